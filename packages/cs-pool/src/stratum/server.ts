/**
 * The ZIP 301 stratum server: TCP and TLS listeners, one Connection per miner (connection.ts),
 * its requests answered in slices (the methods are in methods.ts), shares' Equihash checks on
 * verifier threads (verifier.ts), job broadcasts, vardiff's idle sweep, bans (bans.ts) and
 * connection limits. With -stratumprocesses, socket processes (socket-processes.ts) hold the
 * sockets and everything else stays here. Shares that pass validation go to the `onShare` callback
 * (accounting) before the miner hears `true`.
 */
import { randomBytes } from 'node:crypto';
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import type { SecureContext } from 'node:tls';
import type { ChainParams } from '@cs/consensus';
import {
  StratumError,
  StratumErrorCode,
  StratumProtocolError,
  decodeMessage,
  difficultyToTarget,
  encodeError,
  encodeNotification,
  type Job,
  type StratumId,
  type ValidShare,
} from '@cs/stratum';
import type { Logger } from 'pino';
import type { PoolStats } from '../api/stats.ts';
import { type BanConfig, Bans, type Strike } from './bans.ts';
import { JobAudience } from './audience.ts';
import { Connection, type MinerSocket, NO_LINES } from './connection.ts';
import type { JobManager } from './jobs.ts';
import { StratumMethods } from './methods.ts';
import { Nonce1Allocator } from './nonce1.ts';
import { readyMinerSocket, tlsContext } from './miner-socket.ts';
import { RemoteSocket, SocketProcesses } from './socket-processes.ts';
import { ShareVerifier } from './verifier.ts';
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
  /** Per IP, except whitelisted ones. */
  readonly maxPerIp: number;
  readonly bans: BanConfig;
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
  /** Threads checking shares' Equihash solutions; 0 checks them on the main thread. */
  readonly verifyThreads: number;
  /** Processes holding a share of the miners' sockets each; 0 holds them all in this one. */
  readonly socketProcesses: number;
}

export interface AcceptedShare {
  readonly address: string;
  readonly worker: string;
  readonly solo: boolean;
  readonly job: Job;
  readonly share: ValidShare;
  readonly difficulty: number;
  /** What it counts for in payouts: its difficulty in units of 10^-40 (accounting/weights.ts). */
  readonly weight: bigint;
}

export interface ServerHooks {
  /** Is this a valid address of the network (csd's validateaddress)? */
  validateAddress(address: string): Promise<boolean>;
  /** The output script of a validated address (a solo finder's coinbase output). */
  addressScript(address: string): Uint8Array;
  /** Stores the share; resolves once it is durable. */
  onShare(share: AcceptedShare): Promise<unknown>;
}

/** How long a miner has, after client.reconnect at shutdown, to close its connection itself. */
const CLOSE_GRACE_MS = 2000;

/** After the grace, how long socket processes have to report the connections they closed. */
const CLOSE_REPORT_MS = 1000;

/** How long one connection's requests may run before the event loop turns (StratumServer.work). */
const TURN_SLICE_MS = 2;

export class StratumServer {
  private readonly servers: Server[] = [];
  private readonly connections = new Set<Connection>();
  private readonly audience = new JobAudience();
  private readonly perIp = new Map<string, number>();
  private readonly bans: Bans;
  private readonly nonces: Nonce1Allocator;
  private readonly methods: StratumMethods;
  private readonly verifier: ShareVerifier;
  private readonly remote: SocketProcesses | null;
  private readonly tlsContext: SecureContext | null;
  /** Resolves the wait of `close` once the last connection has closed. */
  private onLastClose: (() => void) | null = null;
  private sweepTimer: NodeJS.Timeout | null = null;
  private readonly minTarget: bigint;
  private readonly maxTarget: bigint;
  readonly boundPorts = new Map<string, number>();

  constructor(
    private readonly config: ServerConfig,
    private readonly net: ChainParams,
    private readonly jobs: JobManager,
    hooks: ServerHooks,
    private readonly stats: PoolStats,
    private readonly log: Logger,
  ) {
    this.nonces = new Nonce1Allocator(config.instance ?? undefined);
    this.bans = new Bans(config.bans);
    // Harder difficulty is a smaller target.
    this.minTarget = difficultyToTarget(config.vardiff.maxDifficulty, net.powLimit);
    this.maxTarget = difficultyToTarget(config.vardiff.minDifficulty, net.powLimit);
    this.verifier = new ShareVerifier(config.verifyThreads, net.equihash, log);
    const tls = config.tls ? { ...config.tls, ticketKeys: randomBytes(48) } : null;
    this.remote = config.socketProcesses > 0 ? new SocketProcesses(config.socketProcesses, tls, log) : null;
    this.tlsContext = tls ? tlsContext(tls) : null;
    this.methods = new StratumMethods({
      net,
      jobs,
      nonces: this.nonces,
      stats,
      verifier: this.verifier,
      validateAddress: (address) => hooks.validateAddress(address),
      addressScript: (address) => hooks.addressScript(address),
      storeShare: (login, job, share, difficulty, weight) =>
        hooks.onShare({ address: login.address, worker: login.worker, solo: login.solo, job, share, difficulty, weight }),
      cut: (c, reason) => this.cut(c, reason, 'abuse'),
      refusedLogin: (c) => this.refusedLogin(c),
      joined: (c) => this.audience.add(c),
      banCheckThreshold: config.banCheckThreshold,
      banInvalidPercent: config.banInvalidPercent,
      targetGraceMs: config.targetGraceMs,
    });
    jobs.on('job', (clean) => this.broadcastJob(clean));
  }

  get connectionCount(): number {
    return this.connections.size;
  }

  async listen(): Promise<void> {
    for (const port of this.config.ports) {
      if (port.tls && !this.config.tls) throw new Error(`port ${port.port} wants TLS but no certificate is configured`);
      // Unread until it is known who holds the socket (miner-socket.ts), which does the TLS handshake.
      const server = createTcpServer({ pauseOnConnect: true }, (s) => this.accept(s, port));
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
    this.remote?.stopRestarts();
    const reconnect = encodeNotification('client.reconnect', []);
    for (const c of this.connections) this.end(c, reconnect);
    // Miners get a moment to read client.reconnect and hang up; one that does not is cut off.
    const cutOff = setTimeout(() => {
      for (const c of this.connections) c.socket.destroy();
    }, CLOSE_GRACE_MS);
    // Bounded: the last closes come from socket processes, which may not answer any more.
    const allClosed = new Promise<void>((resolve) => {
      this.onLastClose = resolve;
      if (this.connections.size === 0) resolve();
      setTimeout(resolve, CLOSE_GRACE_MS + CLOSE_REPORT_MS).unref();
    });
    await Promise.all([...this.servers.map((s) => new Promise((r) => s.close(r))), allClosed]);
    clearTimeout(cutOff);
    await this.remote?.close();
    await this.verifier.close();
  }

  private accept(socket: Socket, port: PortConfig): void {
    const ip = socket.remoteAddress ?? '?';
    const now = Date.now();
    if (this.bans.isBanned(ip, now)) return void socket.destroy();
    const overIpLimit = (this.perIp.get(ip) ?? 0) >= this.config.maxPerIp && !this.bans.trusted(ip);
    if (this.connections.size >= this.config.maxConnections || overIpLimit) {
      this.log.warn({ ip }, 'connection limit reached');
      return void socket.destroy();
    }
    const miner: MinerSocket | null = this.remote ? this.remote.adopt(socket, port.tls) : readyMinerSocket(socket, port.tls ? this.tlsContext : null);
    if (!miner) {
      this.log.warn({ ip }, 'no stratum socket process is up; connection refused');
      return void socket.destroy();
    }
    const target = difficultyToTarget(port.difficulty, this.net.powLimit);
    const vardiff = port.vardiff ? new Vardiff({ ...this.config.vardiff, minTarget: this.minTarget, maxTarget: this.maxTarget }, now / 1000) : null;
    const c = new Connection(miner, ip, port, target, vardiff, now);
    this.connections.add(c);
    this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
    const loginTimer = setTimeout(() => {
      if (c.logins.size === 0) c.socket.destroy();
    }, this.config.loginTimeoutMs);
    loginTimer.unref();
    miner.on('data', (chunk: string) => this.onData(c, chunk));
    // The miner hung up its side, so ours is ending too (no half-open sockets): no more jobs. A
    // socket of this process ends itself; a socket process's waits for what was answered before.
    miner.on('end', () => {
      this.audience.remove(c);
      if (miner instanceof RemoteSocket) this.end(c, '');
    });
    miner.on('close', () => {
      clearTimeout(loginTimer);
      this.onClose(c);
    });
  }

  private onClose(c: Connection): void {
    c.closed = true;
    this.connections.delete(c);
    this.audience.remove(c);
    const n = (this.perIp.get(c.ip) ?? 1) - 1;
    if (n <= 0) this.perIp.delete(c.ip);
    else this.perIp.set(c.ip, n);
    if (c.nonce1 && c.sessionId) this.nonces.release(c.sessionId, Date.now() + this.config.sessionTtlMs);
    for (const l of c.logins.values()) this.stats.disconnect(l.stats, Date.now());
    if (this.connections.size === 0) this.onLastClose?.();
  }

  /**
   * Ends one connection for what it did, with an error line saying why, and counts a strike
   * against its IP: the IP is banned only when the strikes add up (bans.ts), and its other
   * connections (other rigs behind the same NAT or proxy) stay.
   */
  private cut(c: Connection, reason: string, kind: Strike): void {
    if (c.closed) return;
    const banned = this.bans.strike(c.ip, kind, Date.now());
    this.log.warn({ ip: c.ip, reason, banned }, banned ? 'connection cut, IP banned' : 'connection cut');
    this.end(c, encodeError(null, new StratumError(StratumErrorCode.OTHER, reason)));
    // Not waiting for the miner to hang up: what it sends now is not read.
    setImmediate(() => c.socket.destroy());
  }

  /**
   * The connection's last line, then its end. It leaves the job audience first: a job written
   * after the end would destroy the socket before the miner has read that line, and a broadcast
   * then need not ask each socket whether it has ended.
   */
  private end(c: Connection, line: string): void {
    this.audience.remove(c);
    c.end(line);
  }

  /** A login answered with error 24: a strike, and the connection cut if that bans its IP. */
  private refusedLogin(c: Connection): void {
    if (this.bans.strike(c.ip, 'login', Date.now())) {
      this.log.warn({ ip: c.ip }, 'too many refused logins, IP banned');
      this.end(c, '');
      setImmediate(() => c.socket.destroy());
    }
  }

  private onData(c: Connection, chunk: string): void {
    if (c.closed) return;
    let lines: string[];
    try {
      lines = c.splitter.push(chunk);
    } catch (e) {
      return this.cut(c, (e as Error).message, 'abuse');
    }
    // A paused socket delivers nothing, so the backlog is normally empty here.
    c.backlog = c.next === c.backlog.length ? lines : [...c.backlog.slice(c.next), ...lines];
    c.next = 0;
    // Paused, its work goes on from where it stopped; a socket process may still pass on what it had read.
    if (!c.socket.isPaused()) this.work(c);
  }

  /**
   * Answers the connection's waiting lines for at most TURN_SLICE_MS, then pauses its socket and
   * lets the event loop turn before going on. A 64 KB chunk of pipelined submits is a few hundred
   * Equihash checks: answered in one go, it held up every other miner, new jobs and LMDB's group
   * commit (whose steps each wait for a turn) for tens of milliseconds per connection, so shares
   * waited for their commit long enough to outlive young-generation collections. With the checks
   * on verifier threads a slice goes much further, so the threads' queue bounds it too: past its
   * limit connections stop being read until the threads catch up.
   */
  private work(c: Connection): void {
    const until = performance.now() + TURN_SLICE_MS;
    while (c.next < c.backlog.length) {
      if (c.closed || c.socket.destroyed) return;
      if (this.verifier.saturated) {
        c.socket.pause();
        this.verifier.whenDrained(() => this.work(c));
        return;
      }
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

  /** One line: false when the connection was cut for it. */
  private request(c: Connection, line: string): boolean {
    let msg: ReturnType<typeof decodeMessage>;
    try {
      msg = decodeMessage(line);
    } catch (e) {
      if (e instanceof StratumProtocolError) {
        this.cut(c, `malformed line: ${e.message}`, 'abuse');
        return false;
      }
      throw e;
    }
    if (msg.kind !== 'request') return true;
    const { id, method } = msg;
    let pending: Promise<void> | undefined;
    try {
      pending = this.methods.handle(c, id, method, msg.params);
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

  private broadcastJob(clean: boolean): void {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const line = this.methods.poolJobLine(clean);
    const pool = line.bytes;
    for (const s of this.audience.pool) s.write(pool);
    this.remote?.broadcast(line.text);
    for (const c of this.audience.solo) c.sendNow(this.methods.jobLine(c, clean)!.bytes);
    this.stats.jobFanoutMs = performance.now() - started;
    const used = process.cpuUsage(cpu);
    this.stats.jobFanoutCpuMs = (used.user + used.system) / 1000;
    // How long the pool itself took from the first news of the block to the last job written to a socket.
    if (clean && this.jobs.lastHashBlockAt > 0) {
      this.stats.hashblockToJobsMs = performance.now() - this.jobs.lastHashBlockAt;
      this.stats.newBlockSeenAtMs = performance.timeOrigin + this.jobs.lastHashBlockAt;
      this.jobs.lastHashBlockAt = 0;
    }
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
      if (next !== null) this.methods.setTarget(c, next);
    }
    this.bans.sweep(now);
    this.nonces.expire(now);
  }
}
