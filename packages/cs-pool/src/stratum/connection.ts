import { LineSplitter } from '@cs/stratum';
import type { WorkerStats } from '../api/stats.ts';
import type { Vardiff } from './vardiff.ts';

/** What a connection keeps of the port it came in on. */
export interface ConnectionPort {
  /** Every login on this port mines solo. */
  readonly solo: boolean;
  /** Start difficulty (configuration units: powLimit = 1). */
  readonly difficulty: string;
}

/** An authorized worker of a connection. */
export interface Login {
  readonly address: string;
  readonly worker: string;
  readonly solo: boolean;
  readonly stats: WorkerStats;
}

/**
 * What the server uses of a miner's socket: a net.Socket or tls.TLSSocket of this process, or a
 * RemoteSocket held by a socket process (-stratumprocesses). 'data' carries text.
 */
export interface MinerSocket {
  write(data: string | Uint8Array): boolean;
  end(data: string): unknown;
  destroy(): unknown;
  pause(): unknown;
  resume(): unknown;
  isPaused(): boolean;
  readonly destroyed: boolean;
  on(event: 'data', listener: (chunk: string) => void): unknown;
  on(event: 'end' | 'close', listener: () => void): unknown;
}

export const NO_LINES: readonly string[] = Object.freeze([]);

/** One miner's connection: its session, logins, target and vardiff, counts, and what is queued to it. */
export class Connection {
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
  worth = { target: -1n, difficulty: 0, weight: 0n };

  constructor(
    readonly socket: MinerSocket,
    readonly ip: string,
    readonly port: ConnectionPort,
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
