// A peer speaking the protocol from inside a test (Core's P2PInterface): it connects to a csd over
// loopback, completes the handshake, records what the node sends, and sends what the test asks,
// well-formed or not.
import { connect, type Socket } from 'node:net';
import { BlockHeader, fromHex, REGTEST } from '@cs/consensus';
import { encodeFrame, FrameDecoder } from '../src/p2p/framing.ts';
import { decodePayload, encodePayload, isKnownCommand, type Message } from '../src/p2p/messages.ts';
import { LOCAL_SERVICES, PROTOCOL_VERSION } from '../src/p2p/protocol.ts';
import type { Daemon } from './daemon.ts';

/** Polls until `check` holds; fails (never on timing alone) when it does not within five minutes (a loaded 2-core machine). */
export async function waitUntil(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The header of `d`'s active chain at `height`, for a test peer to announce. */
export async function headerAt(d: Daemon, height: number): Promise<BlockHeader> {
  const hash = await d.call<string>('getblockhash', height);
  return BlockHeader.decode(fromHex(await d.call<string>('getblockheader', hash, false)));
}

export class TestPeer {
  readonly received: Message[] = [];
  private readonly decoder = new FrameDecoder(REGTEST.magic);
  private waiters: (() => void)[] = [];
  closed = false;
  private readonly closedPromise: Promise<void>;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      for (const frame of this.decoder.push(chunk)) {
        if ('dropped' in frame || !isKnownCommand(frame.command)) continue;
        const m = decodePayload(frame.command, frame.payload);
        // Answer pings so the node keeps us; everything is recorded for the test.
        if (m.command === 'ping') this.send({ command: 'pong', nonce: m.nonce });
        this.received.push(m);
      }
      this.wake();
    });
    this.closedPromise = new Promise((resolve) => {
      socket.on('close', () => {
        this.closed = true;
        this.wake();
        resolve();
      });
    });
    socket.on('error', () => undefined);
  }

  /** Opens the TCP connection; with `handshake` (the default) also exchanges version and verack. */
  static async connect(port: number, handshake = true): Promise<TestPeer> {
    const socket = connect({ host: '127.0.0.1', port });
    await new Promise<void>((resolve, reject) => {
      socket.once('connect', resolve);
      socket.once('error', reject);
    });
    const peer = new TestPeer(socket);
    if (handshake) {
      peer.send({
        command: 'version',
        payload: {
          version: PROTOCOL_VERSION,
          services: LOCAL_SERVICES,
          time: BigInt(Math.floor(Date.now() / 1000)),
          addrRecv: { services: 0n, host: '127.0.0.1', port },
          addrFrom: { services: 0n, host: '0.0.0.0', port: 0 },
          nonce: 42n,
          userAgent: '/test-peer/',
          startHeight: 0,
          relay: true,
        },
      });
      peer.send({ command: 'wtxidrelay' });
      peer.send({ command: 'verack' });
      await peer.waitFor('verack');
    }
    return peer;
  }

  send(m: Message): void {
    this.sendFrame(m.command, encodePayload(m));
  }

  sendFrame(command: string, payload: Uint8Array, magic: Uint8Array = REGTEST.magic): void {
    this.socket.write(encodeFrame(magic, command, payload));
  }

  sendBytes(bytes: Uint8Array): void {
    this.socket.write(bytes);
  }

  /** The first message of this command received so far (or the next one), within two minutes. */
  async waitFor<C extends Message['command']>(command: C, from = 0): Promise<Message & { command: C }> {
    return this.until(() => this.received.slice(from).find((m): m is Message & { command: C } => m.command === command), command);
  }

  /** Resolves once the node has closed the connection (rejects after two minutes). */
  async waitClosed(): Promise<void> {
    await this.until(() => (this.closed ? true : undefined), 'disconnect');
  }

  get isClosed(): Promise<void> {
    return this.closedPromise;
  }

  /** Stops reading from the socket: what the node sends piles up in its buffers (a slow reader). */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  close(): void {
    this.socket.destroy();
  }

  private async until<T>(check: () => T | undefined, what: string): Promise<T> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const found = check();
      if (found !== undefined) return found;
      if (this.closed && what !== 'disconnect') throw new Error(`connection closed while waiting for ${what}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }
}
