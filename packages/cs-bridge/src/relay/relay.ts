/**
 * The stratum relay: miners connect here, and each miner connection gets its own connection to
 * the upstream pool. Every well-formed line from the miner that is not `opoi.*` goes on byte for
 * byte (the pool sees the miner's own lines, so shares and payouts are exactly as without the
 * bridge); a malformed one (what the pool would cut the connection for: not a JSON object, a bad
 * id, method or params, longer than the pool's line limit) is answered here with error 20 and not
 * forwarded, so the pool never holds one against the bridge's address; `opoi.*` from the miner
 * is answered here; `opoi.*` from the pool is dropped. Every miner line is parsed once; of the
 * pool's lines only the answers to authorize requests and opoi.* are.
 */
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import {
  MAX_LINE_BYTES,
  OPOI_MAX_LINE_BYTES,
  type OpoiSubscribed,
  type OpoiSubscription,
  StratumError,
  StratumErrorCode,
  StratumProtocolError,
  decodeMessage,
  encodeError,
  encodeResult,
  parseLogin,
  parseOpoiSubscribe,
  type StratumId,
} from '@cs/stratum';
import type { Logger } from 'pino';
import type { HostPort } from '../config/env.ts';

export interface MinerConnection {
  readonly id: number;
  readonly remote: string;
  /** Wallet and worker of the last mining.authorize the pool answered `true` to; null before. */
  readonly wallet: string | null;
  readonly worker: string | null;
  readonly opoi: OpoiSubscription | null;
  /** Sends an opoi.* line to the miner; dropped for miners that did not announce OPoI. */
  sendOpoi(line: string): void;
}

export interface OpoiHandler {
  /** Answers an opoi.* request of a miner: the result, or a StratumError for the error array. */
  handle(conn: MinerConnection, method: string, params: readonly unknown[]): Promise<unknown>;
  /** A miner became able (authorized + opoi) or unable (closed) to take work. */
  changed(conn: MinerConnection, event: 'ready' | 'closed'): void;
}

const OPOI_MARKER = '"opoi.';

/** The id to answer a malformed line with: its own when it has a usable one, else null. */
function idOf(line: string): StratumId {
  try {
    const id = (JSON.parse(line) as { id?: unknown }).id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  } catch {
    return null;
  }
}

/**
 * Splits a byte stream into complete lines, each kept exactly as sent (with its LF). Either side
 * may send lines as long as an OPoI peer's (an opoi.submit_result with its answer); the pool
 * applies its own, shorter limit to what it receives.
 */
class RawLines {
  private pending = '';

  push(chunk: string): string[] | null {
    const text = this.pending + chunk;
    const last = text.lastIndexOf('\n');
    if (last < 0) {
      this.pending = text;
      return this.pending.length > OPOI_MAX_LINE_BYTES ? null : [];
    }
    this.pending = text.slice(last + 1);
    if (this.pending.length > OPOI_MAX_LINE_BYTES) return null;
    const lines: string[] = [];
    let start = 0;
    while (start <= last) {
      const end = text.indexOf('\n', start);
      if (end - start > OPOI_MAX_LINE_BYTES) return null;
      lines.push(text.slice(start, end + 1));
      start = end + 1;
    }
    return lines;
  }
}

class RelayedMiner implements MinerConnection {
  wallet: string | null = null;
  worker: string | null = null;
  opoi: OpoiSubscription | null = null;
  private readonly fromMiner = new RawLines();
  private readonly fromPool = new RawLines();
  /** mining.authorize requests waiting for the pool's answer: id → login. */
  private readonly authorizing = new Map<string, string>();
  private upstreamReady = false;
  private queued: string[] = [];
  private closed = false;

  constructor(
    readonly id: number,
    readonly remote: string,
    private readonly miner: Socket,
    private readonly upstream: Socket,
    private readonly handler: OpoiHandler,
    private readonly log: Logger,
  ) {
    miner.setEncoding('utf8');
    upstream.setEncoding('utf8');
    miner.setNoDelay(true);
    upstream.setNoDelay(true);
    miner.on('data', (chunk: string) => this.onMinerData(chunk));
    upstream.on('data', (chunk: string) => this.onPoolData(chunk));
    upstream.on('connect', () => {
      this.upstreamReady = true;
      if (this.queued.length > 0) upstream.write(this.queued.join(''));
      this.queued = [];
    });
    // The pool went away: close the miner's side so that it reconnects (to us, and we to the pool).
    upstream.on('close', () => this.close('upstream closed'));
    upstream.on('error', (e) => log.warn({ conn: id, err: e.message }, 'upstream connection error'));
    miner.on('close', () => this.close('miner closed'));
    miner.on('error', () => {});
  }

  sendOpoi(line: string): void {
    if (!this.closed && this.opoi) this.miner.write(line);
  }

  private toPool(text: string): void {
    if (this.upstreamReady) this.upstream.write(text);
    else this.queued.push(text);
  }

  private onMinerData(chunk: string): void {
    const lines = this.fromMiner.push(chunk);
    if (lines === null) return this.close('miner sent an over-long line');
    let out = '';
    for (const line of lines) {
      const text = line.trimEnd();
      // Blank lines: the pool skips them too.
      if (text.trim() === '') {
        out += line;
        continue;
      }
      let msg: ReturnType<typeof decodeMessage>;
      try {
        // Only opoi.* lines may be longer than the pool's limit: they never reach it.
        if (text.length > MAX_LINE_BYTES && !text.includes(OPOI_MARKER)) {
          throw new StratumProtocolError(`line longer than ${MAX_LINE_BYTES} bytes`);
        }
        msg = decodeMessage(text);
      } catch (e) {
        if (!(e instanceof StratumProtocolError)) throw e;
        this.malformed(text, e.message);
        continue;
      }
      if (msg.kind === 'request' && msg.method.startsWith('opoi.')) {
        this.handleOpoi(msg.id, msg.method, msg.params);
        continue;
      }
      if (text.length > MAX_LINE_BYTES) {
        this.malformed(text, `line longer than ${MAX_LINE_BYTES} bytes`);
        continue;
      }
      if (msg.kind === 'request' && msg.method === 'mining.authorize' && typeof msg.params[0] === 'string' && msg.id !== null) {
        this.authorizing.set(JSON.stringify(msg.id), msg.params[0]);
      }
      out += line;
    }
    if (out !== '') this.toPool(out);
  }

  /** A line the pool would cut the connection for: answered here, never forwarded. */
  private malformed(text: string, reason: string): void {
    this.log.debug({ conn: this.id, reason }, 'malformed line from the miner answered by the bridge');
    if (!this.closed) this.miner.write(encodeError(idOf(text), new StratumError(StratumErrorCode.OTHER, `malformed line: ${reason}`)));
  }

  private onPoolData(chunk: string): void {
    const lines = this.fromPool.push(chunk);
    if (lines === null) return this.close('pool sent an over-long line');
    let out = '';
    for (const line of lines) {
      if (this.authorizing.size === 0 && !line.includes(OPOI_MARKER)) {
        out += line;
        continue;
      }
      let msg: ReturnType<typeof decodeMessage>;
      try {
        msg = decodeMessage(line.trimEnd());
      } catch {
        out += line;
        continue;
      }
      if (msg.kind === 'request' && msg.method.startsWith('opoi.')) continue;
      if (msg.kind === 'response') {
        const key = JSON.stringify(msg.id);
        const login = this.authorizing.get(key);
        if (login !== undefined) {
          this.authorizing.delete(key);
          if (msg.result === true && msg.error === null) this.authorized(login);
        }
      }
      out += line;
    }
    if (out !== '') this.miner.write(out);
  }

  private authorized(login: string): void {
    const { address, worker } = parseLogin(login);
    const wasReady = this.ready();
    this.wallet = address;
    this.worker = worker;
    this.log.info({ conn: this.id, wallet: address, worker }, 'miner authorized by the pool');
    if (!wasReady && this.ready()) this.handler.changed(this, 'ready');
  }

  private ready(): boolean {
    return this.wallet !== null && this.opoi !== null;
  }

  private handleOpoi(id: StratumId, method: string, params: readonly unknown[]): void {
    const reply = (line: string) => {
      if (!this.closed) this.miner.write(line);
    };
    if (method === 'opoi.subscribe') {
      try {
        const wasReady = this.ready();
        this.opoi = parseOpoiSubscribe(params);
        const subscribed: OpoiSubscribed = { subscribed: true, models: this.opoi.models };
        reply(encodeResult(id, subscribed));
        if (!wasReady && this.ready()) this.handler.changed(this, 'ready');
      } catch (e) {
        reply(encodeError(id, e instanceof StratumError ? e : new StratumError(StratumErrorCode.OTHER, 'bad opoi.subscribe')));
      }
      return;
    }
    if (this.wallet === null) return reply(encodeError(id, new StratumError(StratumErrorCode.UNAUTHORIZED, 'authorize with the pool first')));
    this.handler.handle(this, method, params).then(
      (result) => reply(encodeResult(id, result)),
      (e) => {
        if (e instanceof StratumError) return reply(encodeError(id, e));
        this.log.error({ conn: this.id, method, err: (e as Error).message }, 'opoi request failed');
        reply(encodeError(id, new StratumError(StratumErrorCode.OTHER, 'internal error, try again')));
      },
    );
  }

  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.log.info({ conn: this.id, reason }, 'miner connection closed');
    this.miner.end();
    this.miner.destroySoon();
    this.upstream.destroy();
    if (this.ready()) this.handler.changed(this, 'closed');
  }
}

export class Relay {
  private readonly server: Server;
  private nextId = 1;
  private readonly miners = new Set<RelayedMiner>();

  private constructor(
    private readonly upstream: HostPort,
    private readonly handler: OpoiHandler,
    private readonly log: Logger,
  ) {
    this.server = createServer((socket) => this.accept(socket));
  }

  static async listen(listen: HostPort, upstream: HostPort, handler: OpoiHandler, log: Logger): Promise<Relay> {
    const relay = new Relay(upstream, handler, log);
    await new Promise<void>((resolve, reject) => {
      relay.server.once('error', reject);
      relay.server.listen(listen.port, listen.host, () => {
        relay.server.off('error', reject);
        resolve();
      });
    });
    return relay;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  get connections(): number {
    return this.miners.size;
  }

  private accept(socket: Socket): void {
    const id = this.nextId++;
    const remote = `${socket.remoteAddress}:${socket.remotePort}`;
    const upstream = createConnection({ host: this.upstream.host, port: this.upstream.port });
    const miner = new RelayedMiner(id, remote, socket, upstream, this.handler, this.log);
    this.miners.add(miner);
    socket.on('close', () => this.miners.delete(miner));
    this.log.debug({ conn: id, remote }, 'miner connected');
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      for (const m of this.miners) m.close('bridge stopping');
    });
  }
}
