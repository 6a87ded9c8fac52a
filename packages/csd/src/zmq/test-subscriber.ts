// A ZeroMQ subscriber for tests: connects to a publisher and reads its three-part messages.
import { Subscriber } from 'zeromq';

export interface ZmqMessage {
  readonly topic: string;
  readonly body: Buffer;
  /** The third part: the notifier's message count. */
  readonly sequence: number;
}

/** How long a fresh subscription takes to reach the publisher (ZeroMQ's "slow joiner"): earlier messages are lost. */
const JOIN_MS = 300;

export class ZmqTestSubscriber {
  private constructor(private readonly socket: Subscriber) {}

  /** Connects and subscribes to `topics` (every topic by default), then waits until the publisher knows. */
  static async connect(address: string, topics: readonly string[] = ['']): Promise<ZmqTestSubscriber> {
    const socket = new Subscriber({ receiveTimeout: 10_000, linger: 0 });
    socket.connect(address);
    socket.subscribe(...topics);
    await new Promise((r) => setTimeout(r, JOIN_MS));
    return new ZmqTestSubscriber(socket);
  }

  async next(): Promise<ZmqMessage> {
    const parts = await this.socket.receive();
    if (parts.length !== 3) throw new Error(`expected a three-part message, got ${parts.length} parts`);
    const [topic, body, sequence] = parts;
    if (sequence.length !== 4) throw new Error(`sequence part of ${sequence.length} bytes`);
    return { topic: topic.toString(), body, sequence: sequence.readUInt32LE(0) };
  }

  /** The next `n` messages. */
  async take(n: number): Promise<ZmqMessage[]> {
    const out: ZmqMessage[] = [];
    while (out.length < n) out.push(await this.next());
    return out;
  }

  /** Whether a message arrives within `ms` (to check that nothing more was sent). */
  async quietFor(ms: number): Promise<boolean> {
    this.socket.receiveTimeout = ms;
    try {
      await this.socket.receive();
      return false;
    } catch {
      return true;
    } finally {
      this.socket.receiveTimeout = 10_000;
    }
  }

  close(): void {
    this.socket.close();
  }
}
