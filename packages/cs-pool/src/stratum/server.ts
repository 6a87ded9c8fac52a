/**
 * The ZIP 301 stratum server: TCP and TLS listeners, one Connection per miner, the methods of
 * ZIP 301 and NiceHash's extranonce extension, vardiff, bans and connection limits. Shares that
 * pass validation go to the `onShare` callback (accounting) before the miner hears `true`.
 */
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import type { ChainParams } from '@cs/consensus';
import {
  LineSplitter,
  StratumError,
  StratumErrorCode,
  StratumProtocolError,
  decodeMessage,
  difficultyToTarget,
  encodeError,
  encodeNotification,
  encodeResult,
  notifyParams,
  parseAuthorize,
  parseLogin,
  parseSubmit,
  parseSubscribe,
  passwordDifficulty,
  targetFromHex,
  targetToDifficulty,
  targetToHex,
  UINT256_MAX,
  validateShare,
  type Job,
  type StratumId,
  type ValidShare,
} from '@cs/stratum';
import type { Logger } from 'pino';
import type { PoolStats, WorkerStats } from '../api/stats.ts';
import { crashArmed, crashPoint } from '../node/crash.ts';
import type { JobManager } from './jobs.ts';
import { Nonce1Allocator } from './nonce1.ts';
import { Vardiff, type VardiffConfig } from './vardiff.ts';

export interface PortConfig {
  readonly port: number;
  readonly tls: boolean;
  /** Every login on this port mines solo. */
  readonly solo: boolean;
  /** Start difficulty (configuration units: powLimit = 1). */
  readonly difficulty: string;
  readonly vardiff: boolean;
  /** Hash-rental marketplaces (NiceHash): a high fixed start difficulty, extranonce subscription expected. */
  readonly name: string;
}

export interface ServerConfig {
  readonly bind: string;
  readonly ports: readonly PortConfig[];
  readonly tls: { readonly cert: string; readonly key: string } | null;
  readonly vardiff: Omit<VardiffConfig, 'minTarget' | 'maxTarget'> & { readonly minDifficulty: string; readonly maxDifficulty: string };
  readonly maxConnections: number;
  readonly maxPerIp: number;
  readonly banTimeMs: number;
  readonly banInvalidPercent: number;
  readonly banCheckThreshold: number;
  /** A connection must subscribe and authorize within this time. */
  readonly loginTimeoutMs: number;
  /** A connection without a valid share for this long is dropped. */
  readonly idleTimeoutMs: number;
  /** How long shares at the previous target are still accepted after a change. */
  readonly targetGraceMs: number;
  /** Cached sessions (for mining.subscribe resume) live this long after a disconnect. */
  readonly sessionTtlMs: number;
  /** NONCE_1's first byte; null picks one at random. */
  readonly instance: number | null;
}

export interface AcceptedShare {
  readonly address: string;
  readonly worker: string;
  readonly solo: boolean;
  readonly job: Job;
  readonly share: ValidShare;
  readonly difficulty: number;
  /** Expected hashes the share stands for: 2^256 / its target. */
  readonly work: bigint;
}

export interface ServerHooks {
  /** Is this a valid address of the network (csd's validateaddress)? */
  validateAddress(address: string): Promise<boolean>;
  /** The output script of a validated address (a solo finder's coinbase output). */
  addressScript(address: string): Uint8Array;
  /** Stores the share; resolves once it is durable. */
  onShare(share: AcceptedShare): Promise<unknown>;
}

interface Login {
  readonly address: string;
  readonly worker: string;
  readonly solo: boolean;
  readonly stats: WorkerStats;
}

class Connection {
  readonly splitter = new LineSplitter();
  /** Received lines not answered yet, from `next` on. */
  backlog: readonly string[] = NO_LINES;
  next = 0;
  subscribed = false;
  nonce1: Uint8Array | null = null;
  sessionId: string | null = null;
  extranonce = false;
  readonly logins = new Map<string, Login>();
  /** Fixed by the first authorize: '' pool, else the solo finder's address. */
  payout: string | null = null;
  payoutScript: Uint8Array | null = null;
  target: bigint;
  previousTarget: bigint | null = null;
  previousTargetUntil = 0;
  staticDifficulty: boolean;
  vardiff: Vardiff | null;
  valid = 0;
  invalid = 0;
  lastValidShare: number;
  closed = false;
  /** Lines queued in this turn of the event loop; null when nothing is. */
  private out: string | null = null;
  /** What a share at `worth.target` is worth, kept while the target stays (BigInt divisions, once per target). */
  worth = { target: -1n, difficulty: 0, work: 0n };

  constructor(
    readonly socket: Socket,
    readonly ip: string,
    readonly port: PortConfig,
    target: bigint,
    vardiff: Vardiff | null,
    now: number,
  ) {
    this.target = target;
    this.vardiff = vardiff;
    this.staticDifficulty = vardiff === null;
    this.lastValidShare = now;
  }

  /**
   * Lines sent in one turn of the event loop leave as one string in one write: a batch of share
   * replies (they resolve together when their group commit is durable), or a login's result,
   * target and job. (Corking the socket instead costs a queued write request per line.)
   */
  send(line: string): void {
    if (this.closed) return;
    if (this.out === null) {
      this.out = line;
      process.nextTick(flush, this);
    } else this.out += line;
  }

  /** Written at once: a job broadcast writes each socket once anyway, and the first miners should not wait for the last. */
  sendNow(line: Buffer): void {
    if (!this.closed) this.socket.write(line);
  }

  flush(): void {
    const out = this.out;
    this.out = null;
    if (out !== null && !this.closed) this.socket.write(out);
  }

  /** What is queued and a last line, then the end of the connection; nothing is sent after. */
  end(line: string): void {
    if (this.closed) return;
    const out = this.out === null ? line : this.out + line;
    this.out = null;
    this.closed = true;
    this.socket.end(out);
    // A socket paused between two slices of work would never read the miner's end of the
    // connection, so it would never close (and the server's close would wait for it forever).
    this.socket.resume();
  }
}

function flush(c: Connection): void {
  c.flush();
}

/** How long a miner has, after client.reconnect at shutdown, to close its connection itself. */
const CLOSE_GRACE_MS = 2000;

/** How long one connection's requests may run before the event loop turns (StratumServer.work). */
const TURN_SLICE_MS = 2;
const NO_LINES: readonly string[] = Object.freeze([]);

/** A job's mining.notify line, encoded once for every miner it goes to: bytes for broadcasts, text for a connection's queue. */
interface NotifyLine {
  readonly bytes: Buffer;
  readonly text: string;
}

export class StratumServer {
  private readonly servers: Server[] = [];
  private readonly connections = new Set<Connection>();
  private readonly perIp = new Map<string, number>();
  private readonly bans = new Map<string, number>();
  private readonly nonces: Nonce1Allocator;
  private readonly notifyLines = new WeakMap<Job, [NotifyLine, NotifyLine]>();
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly minTarget: bigint;
  private readonly maxTarget: bigint;
  readonly boundPorts = new Map<string, number>();

  constructor(
    private readonly config: ServerConfig,
    private readonly net: ChainParams,
    private readonly jobs: JobManager,
    private readonly hooks: ServerHooks,
    private readonly stats: PoolStats,
    private readonly log: Logger,
  ) {
    this.nonces = new Nonce1Allocator(config.instance ?? undefined);
    // Harder difficulty is a smaller target.
    this.minTarget = difficultyToTarget(config.vardiff.maxDifficulty, net.powLimit);
    this.maxTarget = difficultyToTarget(config.vardiff.minDifficulty, net.powLimit);
    jobs.on('job', (clean) => this.broadcastJob(clean));
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  async listen(): Promise<void> {
    for (const port of this.config.ports) {
      if (port.tls && !this.config.tls) throw new Error(`port ${port.port} wants TLS but no certificate is configured`);
      const server =
        port.tls && this.config.tls
          ? createTlsServer({ cert: this.config.tls.cert, key: this.config.tls.key, minVersion: 'TLSv1.2' }, (s) => this.accept(s, port))
          : createTcpServer((s) => this.accept(s, port));
      server.on('error', (e) => this.log.error({ err: e.message, port: port.port }, 'stratum listener error'));
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port.port, this.config.bind, () => {
          server.off('error', reject);
          resolve();
        });
      });
      this.boundPorts.set(port.name, (server.address() as { port: number }).port);
      this.servers.push(server);
    }
    this.sweepTimer = setInterval(() => this.sweep(), 5000);
    this.sweepTimer.unref();
  }

  /** client.reconnect to every miner (they come back to this address, or to another instance), then close. */
  async close(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    const reconnect = encodeNotification('client.reconnect', []);
    for (const c of this.connections) c.end(reconnect);
    // Miners get a moment to read client.reconnect and hang up; one that does not is cut off.
    const cutOff = setTimeout(() => {
      for (const c of this.connections) c.socket.destroy();
    }, CLOSE_GRACE_MS);
    await Promise.all(this.servers.map((s) => new Promise((r) => s.close(r))));
    clearTimeout(cutOff);
    for (const c of this.connections) c.socket.destroy();
  }

  private accept(socket: Socket, port: PortConfig): void {
    const ip = socket.remoteAddress ?? '?';
    const now = Date.now();
    const bannedUntil = this.bans.get(ip);
    if (bannedUntil !== undefined && bannedUntil > now) return void socket.destroy();
    if (this.connections.size >= this.config.maxConnections || (this.perIp.get(ip) ?? 0) >= this.config.maxPerIp) {
      this.log.warn({ ip }, 'connection limit reached');
      return void socket.destroy();
    }
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 60_000);
    socket.setEncoding('utf8');
    const target = difficultyToTarget(port.difficulty, this.net.powLimit);
    const vardiff = port.vardiff ? new Vardiff({ ...this.config.vardiff, minTarget: this.minTarget, maxTarget: this.maxTarget }, now / 1000) : null;
    const c = new Connection(socket, ip, port, target, vardiff, now);
    this.connections.add(c);
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    const loginTimer = setTimeout(() => {
      if (c.logins.size === 0) c.socket.destroy();
    }, this.config.loginTimeoutMs);
    loginTimer.unref();
    socket.on('data', (chunk: string) => this.onData(c, chunk));
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(loginTimer);
      this.onClose(c);
    });
  }

  private onClose(c: Connection): void {
    c.closed = true;
    this.connections.delete(c);
    const n = (this.perIp.get(c.ip) ?? 1) - 1;
    if (n <= 0) this.perIp.delete(c.ip);
    else this.perIp.set(c.ip, n);
    if (c.nonce1 && c.sessionId) this.nonces.release(c.sessionId, Date.now() + this.config.sessionTtlMs);
    for (const l of c.logins.values()) l.stats.connected--;
  }

  private ban(c: Connection, reason: string): void {
    this.log.warn({ ip: c.ip, reason }, 'banned');
    this.bans.set(c.ip, Date.now() + this.config.banTimeMs);
    c.socket.destroy();
  }

  private onData(c: Connection, chunk: string): void {
    let lines: string[];
    try {
      lines = c.splitter.push(chunk);
    } catch (e) {
      return this.ban(c, (e as Error).message);
    }
    // A paused socket delivers nothing, so the backlog is normally empty here.
    c.backlog = c.next === c.backlog.length ? lines : [...c.backlog.slice(c.next), ...lines];
    c.next = 0;
    this.work(c);
  }

  /**
   * Answers the connection's waiting lines for at most TURN_SLICE_MS, then pauses its socket and
   * lets the event loop turn before going on. A 64 KB chunk of pipelined submits is a few hundred
   * Equihash checks: answered in one go, it held up every other miner, new jobs and LMDB's group
   * commit (whose steps each wait for a turn) for tens of milliseconds per connection, so shares
   * waited for their commit long enough to outlive young-generation collections.
   */
  private work(c: Connection): void {
    const until = performance.now() + TURN_SLICE_MS;
    while (c.next < c.backlog.length) {
      if (c.closed || c.socket.destroyed) return;
      if (!this.request(c, c.backlog[c.next++])) return;
      if (c.next < c.backlog.length && performance.now() >= until) {
        c.socket.pause();
        setImmediate(() => this.work(c));
        return;
      }
    }
    c.backlog = NO_LINES;
    c.next = 0;
    if (c.socket.isPaused()) c.socket.resume();
  }

  /** One line: false when the connection was banned for it. */
  private request(c: Connection, line: string): boolean {
    let msg: ReturnType<typeof decodeMessage>;
    try {
      msg = decodeMessage(line);
    } catch (e) {
      if (e instanceof StratumProtocolError) {
        this.ban(c, e.message);
        return false;
      }
      throw e;
    }
    if (msg.kind !== 'request') return true;
    const { id, method } = msg;
    let pending: Promise<void> | undefined;
    try {
      pending = this.handle(c, id, method, msg.params);
    } catch (e) {
      this.refuse(c, id, method, e);
      return true;
    }
    pending?.catch((e: unknown) => this.refuse(c, id, method, e));
    return true;
  }

  private refuse(c: Connection, id: StratumId, method: string, e: unknown): void {
    if (e instanceof StratumError) c.send(encodeError(id, e));
    else {
      this.log.error({ err: (e as Error).message, method }, 'request failed');
      c.send(encodeError(id, new StratumError(StratumErrorCode.OTHER, 'internal error')));
    }
  }

  /**
   * Answers a request; a rejection is thrown (synchronously, or from the returned promise).
   * Not async: a share would pay for a promise and a resumption it does not need.
   */
  private handle(c: Connection, id: StratumId, method: string, params: readonly unknown[]): Promise<void> | undefined {
    switch (method) {
      case 'mining.subscribe':
        this.subscribe(c, id, params);
        return;
      case 'mining.authorize':
        return this.authorize(c, id, params);
      case 'mining.submit':
        return this.submit(c, id, params);
      case 'mining.suggest_target':
        this.suggestTarget(c, id, params);
        return;
      case 'mining.extranonce.subscribe':
        this.extranonceSubscribe(c, id);
        return;
      default:
        throw new StratumError(StratumErrorCode.OTHER, `unsupported method ${method}`);
    }
  }

  private subscribe(c: Connection, id: StratumId, params: readonly unknown[]): void {
    const { sessionId } = parseSubscribe(params);
    if (!c.subscribed) {
      const session = this.nonces.acquire(sessionId, Date.now());
      c.nonce1 = session.nonce1;
      c.sessionId = session.sessionId;
      c.subscribed = true;
    }
    c.send(encodeResult(id, [c.sessionId, Buffer.from(c.nonce1!).toString('hex')]));
  }

  private async authorize(c: Connection, id: StratumId, params: readonly unknown[]): Promise<void> {
    if (!c.subscribed) throw new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'not subscribed');
    const { login, password } = parseAuthorize(params);
    const parsed = parseLogin(login);
    const solo = parsed.solo || c.port.solo;
    if (!(await this.hooks.validateAddress(parsed.address))) {
      c.send(encodeError(id, new StratumError(StratumErrorCode.UNAUTHORIZED, `'${parsed.address}' is not an address of this network`)));
      return;
    }
    const payout = solo ? parsed.address : '';
    if (c.payout !== null && c.payout !== payout) {
      throw new StratumError(StratumErrorCode.UNAUTHORIZED, 'every worker of a connection must share its payout (pool, or the same solo address)');
    }
    const first = c.payout === null;
    c.payout = payout;
    if (solo) c.payoutScript = this.hooks.addressScript(parsed.address);
    const stats = this.stats.worker(parsed.address, parsed.worker);
    c.logins.set(login, { address: parsed.address, worker: parsed.worker, solo, stats });
    stats.connected++;
    const d = passwordDifficulty(password);
    if (d !== null) {
      try {
        c.target = difficultyToTarget(d, this.net.powLimit);
        c.vardiff = null;
        c.staticDifficulty = true;
      } catch {
        // An unreadable d= keeps the port's difficulty; the login itself is fine.
      }
    }
    c.send(encodeResult(id, true));
    if (first || d !== null) {
      c.send(encodeNotification('mining.set_target', [targetToHex(c.target)]));
      this.sendJob(c, true);
    }
  }

  private sendJob(c: Connection, clean: boolean): void {
    const line = this.jobLine(c, clean);
    if (line) c.send(line.text);
  }

  /** The notify line of the connection's current job; null before its first authorize. */
  private jobLine(c: Connection, clean: boolean): NotifyLine | null {
    if (c.payout === null) return null;
    const job = this.jobs.jobFor(c.payout === '' ? null : { address: c.payout, script: c.payoutScript! });
    let lines = this.notifyLines.get(job);
    if (!lines) {
      const line = (cleanJobs: boolean) => {
        const text = encodeNotification('mining.notify', notifyParams(job, cleanJobs));
        return { bytes: Buffer.from(text), text };
      };
      lines = [line(false), line(true)];
      this.notifyLines.set(job, lines);
    }
    return lines[clean ? 1 : 0];
  }

  private broadcastJob(clean: boolean): void {
    const started = performance.now();
    const cpu = process.cpuUsage();
    for (const c of this.connections) {
      const line = this.jobLine(c, clean);
      if (line) c.sendNow(line.bytes);
    }
    this.stats.jobFanoutMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    this.stats.jobFanoutCpuMs = (used.user + used.system) / 1000;
    // How long the pool itself took from the first news of the block to the last job written to a socket.
    if (clean && this.jobs.lastHashBlockAt > 0) {
      this.stats.hashblockToJobsMs = performance.now() - this.jobs.lastHashBlockAt;
      this.jobs.lastHashBlockAt = 0;
    }
  }

  private submit(c: Connection, id: StratumId, params: readonly unknown[]): Promise<void> {
    if (!c.subscribed) throw new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'not subscribed');
    const submit = parseSubmit(params);
    const login = c.logins.get(submit.worker);
    if (!login) throw new StratumError(StratumErrorCode.UNAUTHORIZED, 'unauthorized worker');
    const now = Date.now();
    const live = this.jobs.lookup(submit.jobId);
    if (!live || live.payout !== c.payout) {
      // Stale is the network's doing, not the miner's: it is counted, never held against the ban.
      this.stats.share(login.stats, 'stale', 0, now);
      throw new StratumError(StratumErrorCode.JOB_NOT_FOUND, 'job not found');
    }
    let share: ValidShare;
    try {
      share = validateShare({
        job: live.job,
        nonce1: c.nonce1!,
        submit,
        target: c.target,
        previousTarget: now < c.previousTargetUntil ? c.previousTarget : null,
        seen: live.seen,
        now: Math.floor(now / 1000),
        maxFutureTime: this.net.maxFutureBlockTime,
      });
    } catch (e) {
      if (e instanceof StratumError) {
        const outcome = e.code === StratumErrorCode.DUPLICATE_SHARE ? 'duplicate' : e.code === StratumErrorCode.LOW_DIFFICULTY ? 'low' : 'invalid';
        this.stats.share(login.stats, outcome, 0, now);
        this.countInvalid(c);
      }
      throw e;
    }
    if (c.worth.target !== share.target) {
      c.worth = { target: share.target, difficulty: targetToDifficulty(share.target, this.net.powLimit), work: UINT256_MAX / share.target };
    }
    const { difficulty, work } = c.worth;
    const stored = this.hooks.onShare({ address: login.address, worker: login.worker, solo: login.solo, job: live.job, share, difficulty, work });
    return stored.then(() => this.accepted(c, id, login, difficulty, now));
  }

  /** A valid share is durable: counted, acknowledged, and vardiff hears of it. */
  private accepted(c: Connection, id: StratumId, login: Login, difficulty: number, now: number): void {
    c.valid++;
    c.lastValidShare = now;
    this.stats.share(login.stats, 'valid', difficulty, now);
    c.send(encodeResult(id, true));
    // After the uncork queued by this turn's first reply, so the acknowledgement has left.
    if (crashArmed('after-share-ack')) process.nextTick(crashPoint, 'after-share-ack');
    const next = c.vardiff?.onShare(now / 1000, c.target) ?? null;
    if (next !== null) this.setTarget(c, next);
  }

  private countInvalid(c: Connection): void {
    c.invalid++;
    const total = c.valid + c.invalid;
    if (total >= this.config.banCheckThreshold) {
      if ((c.invalid * 100) / total >= this.config.banInvalidPercent) this.ban(c, `${c.invalid} of ${total} shares invalid`);
      c.valid = 0;
      c.invalid = 0;
    }
  }

  /** A new target: announced, then the current job again so that miners apply it; the old one stays good for a grace period. */
  private setTarget(c: Connection, target: bigint): void {
    c.previousTarget = c.target;
    c.previousTargetUntil = Date.now() + this.config.targetGraceMs;
    c.target = target;
    c.send(encodeNotification('mining.set_target', [targetToHex(target)]));
    this.sendJob(c, false);
  }

  /** ZIP 301: answered with set_target. Harder than the port's start is granted; easier is refused (error 20), as in miningcore. */
  private suggestTarget(c: Connection, id: StratumId, params: readonly unknown[]): void {
    let target: bigint;
    try {
      target = targetFromHex(String(params[0]));
    } catch {
      throw new StratumError(StratumErrorCode.OTHER, 'the suggested target is 64 hex digits');
    }
    const portTarget = difficultyToTarget(c.port.difficulty, this.net.powLimit);
    if (target > portTarget) throw new StratumError(StratumErrorCode.OTHER, 'suggested difficulty too low for this port');
    c.send(encodeResult(id, true));
    this.setTarget(c, target);
  }

  /**
   * NiceHash's extension: acknowledged, then a fresh NONCE_1 with mining.set_extranonce and a clean
   * job, which the miner must switch to at once. Rotating it here also frees the resumed session's
   * NONCE_1 for reuse rules: the new one is the connection's from now on.
   */
  private extranonceSubscribe(c: Connection, id: StratumId): void {
    if (!c.subscribed) throw new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'not subscribed');
    c.extranonce = true;
    c.send(encodeResult(id, true));
    const session = this.nonces.rotate(c.sessionId!, Date.now());
    c.nonce1 = session.nonce1;
    c.sessionId = session.sessionId;
    c.send(encodeNotification('mining.set_extranonce', [Buffer.from(c.nonce1).toString('hex'), 32 - c.nonce1.length]));
    this.sendJob(c, true);
  }

  /** Idle and silent connections out, vardiff's idle sweep, expired bans and sessions. */
  private sweep(): void {
    const now = Date.now();
    for (const c of this.connections) {
      if (c.logins.size > 0 && now - c.lastValidShare > this.config.idleTimeoutMs) {
        c.socket.destroy();
        continue;
      }
      const next = c.vardiff?.idleSweep(now / 1000, c.target) ?? null;
      if (next !== null) this.setTarget(c, next);
    }
    for (const [ip, until] of this.bans) if (until <= now) this.bans.delete(ip);
    this.nonces.expire(now);
  }
}
