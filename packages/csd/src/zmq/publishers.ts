import type { Logger } from 'pino';
import { Publisher } from 'zeromq';
import { sequenceFrame } from './bodies.ts';
import type { ZmqNotification, ZmqTopic } from './notifications.ts';

/**
 * One topic on one endpoint (Core's CZMQAbstractPublishNotifier): sends [topic, body, sequence]
 * on its endpoint's socket, counting its own messages. Several notifiers may share a socket.
 */
export class ZmqNotifier {
  /** Messages sent so far; a uint32 that wraps, as Core's nSequence. */
  #count = 0;

  constructor(
    readonly notification: ZmqNotification,
    private readonly socket: Publisher,
    private readonly log: Logger,
  ) {}

  get topic(): ZmqTopic {
    return this.notification.topic;
  }

  send(body: Uint8Array): void {
    const frame = sequenceFrame(this.#count);
    this.#count = (this.#count + 1) >>> 0;
    // With sendTimeout 0 the message is queued (or, past the high water mark, dropped for that
    // subscriber) at once and send() never waits, so calls need no serializing; the promise
    // only reports a failed send. (The interface stops sending before it closes the sockets.)
    this.socket.send([this.topic, body, frame]).catch((err: unknown) => {
      this.log.warn({ err, topic: this.topic, address: this.notification.address }, 'ZeroMQ publish failed');
    });
  }
}

/**
 * The PUB sockets: one per distinct endpoint, bound at start, carrying the topics configured for
 * it. Its SNDHWM is the highest -zmqpub<topic>hwm among those topics (Core takes the first
 * topic's), so no topic gets less room than it was given.
 */
export class ZmqPublishers {
  private constructor(
    readonly notifiers: readonly ZmqNotifier[],
    private readonly sockets: readonly Publisher[],
  ) {}

  /** Binds every endpoint; throws, after closing what was bound, when one cannot be. */
  static async open(notifications: readonly ZmqNotification[], log: Logger): Promise<ZmqPublishers> {
    const byAddress = new Map<string, ZmqNotification[]>();
    for (const n of notifications) byAddress.set(n.address, [...(byAddress.get(n.address) ?? []), n]);
    const sockets = new Map<string, Publisher>();
    try {
      for (const [address, group] of byAddress) {
        const hwm = Math.max(...group.map((n) => n.hwm));
        // As Core: TCP keepalive on, and IPv6 accepted. sendTimeout 0 makes send() never wait.
        const socket = new Publisher({ sendHighWaterMark: hwm, sendTimeout: 0, linger: 0, ipv6: true, tcpKeepalive: 1 });
        sockets.set(address, socket);
        try {
          await socket.bind(address);
        } catch (err) {
          const topics = group.map((n) => n.topic).join(', ');
          throw new Error(`Unable to bind ZeroMQ publisher (${topics}) to ${address}: ${(err as Error).message}`);
        }
        log.info({ address, topics: group.map((n) => n.topic), hwm }, 'ZeroMQ publisher bound');
      }
    } catch (err) {
      for (const socket of sockets.values()) socket.close();
      throw err;
    }
    const notifiers = notifications.map((n) => new ZmqNotifier(n, sockets.get(n.address)!, log));
    return new ZmqPublishers(notifiers, [...sockets.values()]);
  }

  /** Closes the sockets; unsent messages are dropped (linger 0, as Core at shutdown). */
  close(): void {
    for (const socket of this.sockets) socket.close();
  }
}
