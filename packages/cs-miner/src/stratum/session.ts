/**
 * The miner's stratum session: connects to the first pool of the list, subscribes (resuming the
 * previous session on the same pool), authorizes, optionally announces OPoI, and follows the
 * pool's set_target, notify, set_extranonce and client.reconnect. When the connection fails it
 * reconnects with exponential back-off, and after `retries` failed attempts in a row moves to the
 * next pool of the list (round robin); a pool that worked is retried first after a disconnect.
 */
import type { EquihashParams } from '@cs/consensus';
import {
  StratumErrorCode,
  notifyAlgorithm,
  opoiSubscribeParams,
  parseNotify,
  parseSetExtranonce,
  parseSetTarget,
  type NotifiedJob,
  type OpoiSubscription,
  type StratumErrorArray,
} from '@cs/stratum';
import { StratumConnection, type Reply, type TlsSettings } from './connection.ts';
import type { PoolUrl } from './pool-url.ts';

export interface SessionConfig {
  readonly pools: readonly PoolUrl[];
  /** `<wallet_address>.<worker_name>`. */
  readonly user: string;
  readonly password: string;
  readonly userAgent: string;
  readonly tls: TlsSettings;
  /** Failed attempts in a row on one pool before the next is tried. */
  readonly retries: number;
  readonly backoffMinMs: number;
  readonly backoffMaxMs: number;
  /** Connect and request timeout. */
  readonly timeoutMs: number;
  /** Used when a notify carries no ALGO_TYPE/PERSONALIZATION. */
  readonly defaultAlgorithm: EquihashParams;
  /** Ask for mining.set_extranonce (NiceHash's extension). */
  readonly extranonce: boolean;
  /** What opoi.subscribe announces after each login, or null for a miner without models. */
  readonly opoi: OpoiSubscription | null;
}

/** Everything a solver needs, as of the last message that changed any of it. */
export interface Work {
  readonly jobId: string;
  readonly params: EquihashParams;
  readonly headerInput: Uint8Array;
  readonly nonce1: Uint8Array;
  readonly target: bigint;
}

export type SubmitOutcome = { readonly kind: 'accepted' } | { readonly kind: 'stale' | 'rejected'; readonly reason: string };

export interface SessionEvents {
  onWork(work: Work | null): void;
  onConnected(pool: PoolUrl): void;
  onDisconnected(pool: PoolUrl, reason: string): void;
  /**
   * A server message this module does not handle itself (opoi.assign); `send` makes requests on
   * the connection it came from, so an answer never goes to another pool.
   */
  onMessage(method: string, params: readonly unknown[], send: (method: string, params: readonly unknown[]) => Promise<Reply>): void;
  onOpoiSubscribed(pool: PoolUrl, reply: Reply): void;
  log(level: 'info' | 'warn' | 'error' | 'debug', msg: string, fields?: Record<string, unknown>): void;
}

interface Attempt {
  /** Subscribed and authorized before the connection ended. */
  readonly authorized: boolean;
  /** client.reconnect asked to go to this address after `waitMs`. */
  readonly redirect: { readonly url: PoolUrl; readonly waitMs: number } | null;
}

export class StratumSession {
  private connection: StratumConnection | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  private running: Promise<void> | null = null;
  private nonce1: Uint8Array | null = null;
  private target: bigint | null = null;
  private job: (NotifiedJob & { params: EquihashParams }) | null = null;
  /** Jobs a share may still be submitted for: cleared by clean_jobs and by every new connection. */
  private readonly liveJobs = new Set<string>();
  /** Per pool address: the session id to offer when subscribing again. */
  private readonly sessionIds = new Map<string, string>();
  private redirect: Attempt['redirect'] = null;
  current: PoolUrl | null = null;

  constructor(
    private readonly config: SessionConfig,
    private readonly events: SessionEvents,
  ) {
    if (config.pools.length === 0) throw new RangeError('at least one pool address is needed');
  }

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.connection?.close();
    this.wake?.();
    await this.running;
  }

  isLive(jobId: string): boolean {
    return this.liveJobs.has(jobId);
  }

  /** NONCE_1's length on the current connection (a share's NONCE_2 is what follows it). */
  get nonce1Length(): number {
    return this.nonce1?.length ?? 0;
  }

  async submit(params: readonly string[]): Promise<SubmitOutcome> {
    const c = this.connection;
    if (!c) return { kind: 'stale', reason: 'not connected' };
    let reply: Reply;
    try {
      reply = await c.request('mining.submit', params);
    } catch (e) {
      return { kind: 'stale', reason: (e as Error).message };
    }
    if (reply.error === null && reply.result === true) return { kind: 'accepted' };
    const error = reply.error ?? ([StratumErrorCode.OTHER, `result ${JSON.stringify(reply.result)}`, null] as StratumErrorArray);
    return { kind: error[0] === StratumErrorCode.JOB_NOT_FOUND ? 'stale' : 'rejected', reason: `${error[0]} ${error[1]}` };
  }

  private async run(): Promise<void> {
    const { pools, retries, backoffMinMs, backoffMaxMs } = this.config;
    let index = 0;
    let failures = 0;
    while (!this.stopped) {
      const redirect = this.redirect;
      this.redirect = null;
      const url = redirect?.url ?? pools[index];
      const attempt = await this.attempt(url);
      if (this.stopped) break;
      let delay: number;
      if (attempt.redirect) {
        this.redirect = attempt.redirect;
        delay = attempt.redirect.waitMs;
        failures = 0;
      } else if (attempt.authorized) {
        failures = 0;
        delay = backoffMinMs;
      } else if (redirect) {
        // The address client.reconnect named does not answer: back to the list.
        delay = backoffMinMs;
      } else if (++failures >= retries && pools.length > 1) {
        index = (index + 1) % pools.length;
        failures = 0;
        delay = backoffMinMs;
        this.events.log('warn', 'failing over to the next pool', { pool: pools[index].text });
      } else {
        delay = Math.min(backoffMaxMs, backoffMinMs * 2 ** Math.max(0, failures - 1));
      }
      await this.sleep(delay);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** One connection from open to close. */
  private async attempt(url: PoolUrl): Promise<Attempt> {
    let authorized = false;
    let redirect: Attempt['redirect'] = null;
    let closed!: () => void;
    const ended = new Promise<void>((r) => (closed = r));
    let reason = '';
    const connectionEvents = {
      onMessage: (method: string, params: readonly unknown[]) => {
        const send = (m: string, p: readonly unknown[]) => (connection ? connection.request(m, p) : Promise.reject(new Error('not connected')));
        const r = this.onServerMessage(url, method, params, send);
        if (r) {
          redirect = r;
          connection?.close('client.reconnect');
        }
      },
      onClose: (why: string) => {
        reason = why;
        closed();
      },
    };
    let connection: StratumConnection | null = null;
    try {
      connection = await StratumConnection.open(url, this.config.tls, connectionEvents, this.config.timeoutMs);
    } catch (e) {
      this.events.log('warn', 'cannot connect to the pool', { pool: url.text, reason: (e as Error).message });
      return { authorized: false, redirect: null };
    }
    this.connection = connection;
    this.current = url;
    this.nonce1 = null;
    this.target = null;
    this.job = null;
    this.liveJobs.clear();
    try {
      authorized = await this.login(connection, url);
    } catch (e) {
      this.events.log('warn', 'pool login failed', { pool: url.text, reason: (e as Error).message });
    }
    if (!authorized) connection.close('login failed');
    else this.events.onConnected(url);
    if (this.stopped) connection.close();
    await ended;
    this.connection = null;
    this.liveJobs.clear();
    this.events.onWork(null);
    if (authorized) this.events.onDisconnected(url, reason);
    return { authorized, redirect };
  }

  private async login(c: StratumConnection, url: PoolUrl): Promise<boolean> {
    const cfg = this.config;
    const sub = await c.request('mining.subscribe', [cfg.userAgent, this.sessionIds.get(url.text) ?? null, url.host, String(url.port)]);
    if (sub.error) throw new Error(`mining.subscribe refused: ${sub.error[1]}`);
    const [sessionId, nonce1] = Array.isArray(sub.result) ? sub.result : [];
    if (typeof sessionId === 'string') this.sessionIds.set(url.text, sessionId);
    this.setNonce1(parseSetExtranonce([nonce1]));
    if (cfg.extranonce) {
      const ext = await c.request('mining.extranonce.subscribe', []);
      if (ext.error) this.events.log('debug', 'pool has no extranonce subscription', { pool: url.text });
    }
    const auth = await c.request('mining.authorize', [cfg.user, cfg.password]);
    if (auth.error || auth.result !== true) {
      this.events.log('error', 'the pool refused the login', { pool: url.text, user: cfg.user, reason: auth.error?.[1] ?? String(auth.result) });
      return false;
    }
    if (cfg.opoi !== null) {
      c.request('opoi.subscribe', opoiSubscribeParams(cfg.opoi)).then(
        (reply) => this.events.onOpoiSubscribed(url, reply),
        () => {},
      );
    }
    return true;
  }

  /** Handles the mining methods; returns a redirect for client.reconnect. */
  private onServerMessage(
    url: PoolUrl,
    method: string,
    params: readonly unknown[],
    send: Parameters<SessionEvents['onMessage']>[2],
  ): Attempt['redirect'] {
    try {
      switch (method) {
        case 'mining.set_target':
          this.target = parseSetTarget(params);
          this.publish();
          return null;
        case 'mining.notify': {
          const job = parseNotify(params);
          const params_ = notifyAlgorithm(params) ?? this.config.defaultAlgorithm;
          if (job.cleanJobs) this.liveJobs.clear();
          this.liveJobs.add(job.jobId);
          this.job = { ...job, params: params_ };
          this.publish();
          return null;
        }
        case 'mining.set_extranonce':
          this.setNonce1(parseSetExtranonce(params));
          // Shares of the old NONCE_1 cannot be valid any more; the pool follows with a clean job.
          this.liveJobs.clear();
          this.job = null;
          this.publish();
          return null;
        case 'client.reconnect':
          return this.reconnectTarget(url, params);
        default:
          this.events.onMessage(method, params, send);
          return null;
      }
    } catch (e) {
      this.events.log('warn', 'ignored a pool message', { method, reason: (e as Error).message });
      return null;
    }
  }

  /** client.reconnect [host, port, wait]: every field optional, the current pool by default. */
  private reconnectTarget(url: PoolUrl, params: readonly unknown[]): Attempt['redirect'] {
    const [host, port, wait] = params;
    const p = Number(port);
    const target: PoolUrl =
      typeof host === 'string' && host !== '' && Number.isInteger(p) && p > 0 && p < 65536
        ? { tls: url.tls, host, port: p, text: `${url.tls ? 'stratum+ssl' : 'stratum+tcp'}://${host}:${p}` }
        : url;
    const seconds = Number(wait);
    const waitMs = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3600) * 1000 : 0;
    this.events.log('info', 'pool asked to reconnect', { to: target.text, waitMs });
    return { url: target, waitMs };
  }

  private setNonce1(nonce1: Uint8Array): void {
    if (nonce1.length > 28) throw new RangeError('NONCE_1 leaves fewer than 4 bytes of NONCE_2');
    this.nonce1 = nonce1;
  }

  private publish(): void {
    const { job, nonce1, target } = this;
    if (!job || !nonce1 || target === null) return;
    this.events.onWork({ jobId: job.jobId, params: job.params, headerInput: job.headerInput, nonce1, target });
  }
}
