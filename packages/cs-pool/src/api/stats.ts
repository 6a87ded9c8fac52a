/**
 * Live statistics of this pool process for the API and /metrics: share counters per worker and
 * the share difficulty of the last `windowMs`, from which hashrate is estimated as
 * Σ difficulty × solutions-per-difficulty / the time observed: the window, or less for a worker
 * first seen less than a window ago (dividing a worker's first 24 s of shares by 600 s showed a
 * twenty-fifth of its rate). Every worker seen since the start stays in the history; the live list
 * is the ones connected now. Counters start at zero with the process; balances, blocks and
 * payments come from the store.
 */
export type ShareOutcome = 'valid' | 'invalid' | 'stale' | 'duplicate' | 'low';

export interface WorkerStats {
  readonly address: string;
  readonly worker: string;
  valid: number;
  invalid: number;
  stale: number;
  lastShare: number;
  /**
   * [second's start ms, summed difficulty, share count] of the valid shares inside the window, one
   * entry per second with shares, oldest first: a busy worker's window stays small, and a share
   * allocates nothing that outlives it.
   */
  readonly recent: [number, number, number][];
  /** Its connections now. */
  connected: number;
  /** When it first logged in (ms): its hashrate is measured from here until a window has passed. */
  readonly since: number;
  /** When its last connection closed (ms); 0 while connected. */
  disconnected: number;
}

/** The shortest time a hashrate is measured over, so that a first share does not read as a burst. */
const MIN_OBSERVED_MS = 1000;

export class PoolStats {
  readonly workers = new Map<string, WorkerStats>();
  readonly totals = { valid: 0, invalid: 0, stale: 0, duplicate: 0, low: 0 };
  blocksFound = 0;
  blocksRejected = 0;
  /** The last new block's time from csd's hashblock to the job written to every miner's socket. */
  hashblockToJobsMs = 0;
  /** When the pool first heard of that block, in Unix milliseconds (sub-millisecond); 0 before the first. */
  newBlockSeenAtMs = 0;
  /** The last job broadcast: the loop writing it to every miner's socket. */
  jobFanoutMs = 0;
  /** The process's CPU time over that loop: well below the loop's time means it was waiting for a core. */
  jobFanoutCpuMs = 0;

  constructor(
    readonly windowMs: number,
    private readonly solutionsPerDifficulty: number,
  ) {}

  /** A worker's entry, created on first use; a connection keeps it, so a share costs no key lookup. */
  worker(address: string, worker: string, now: number): WorkerStats {
    const key = `${address}.${worker}`;
    let w = this.workers.get(key);
    if (!w) {
      w = { address, worker, valid: 0, invalid: 0, stale: 0, lastShare: 0, recent: [], connected: 0, since: now, disconnected: 0 };
      this.workers.set(key, w);
    }
    return w;
  }

  connect(w: WorkerStats): void {
    w.connected++;
    w.disconnected = 0;
  }

  disconnect(w: WorkerStats, now: number): void {
    w.connected--;
    if (w.connected === 0) w.disconnected = now;
  }

  /** The workers connected now. */
  live(): WorkerStats[] {
    return [...this.workers.values()].filter((w) => w.connected > 0);
  }

  share(w: WorkerStats, outcome: ShareOutcome, difficulty: number, now: number): void {
    this.totals[outcome]++;
    if (outcome === 'valid') {
      w.valid++;
      w.lastShare = now;
      const second = now - (now % 1000);
      const last = w.recent.at(-1);
      if (last?.[0] === second) {
        last[1] += difficulty;
        last[2]++;
      } else w.recent.push([second, difficulty, 1]);
    } else if (outcome === 'stale') w.stale++;
    else w.invalid++;
    this.prune(w, now);
  }

  private prune(w: WorkerStats, now: number): void {
    while (w.recent.length > 0 && w.recent[0][0] < now - this.windowMs) w.recent.shift();
  }

  /** The seconds a worker's window covers now: the window, or the time since its first login. */
  private observedSeconds(w: WorkerStats, now: number): number {
    return Math.max(MIN_OBSERVED_MS, Math.min(this.windowMs, now - w.since)) / 1000;
  }

  hashrate(w: WorkerStats, now: number): number {
    this.prune(w, now);
    const sum = w.recent.reduce((a, [, d]) => a + d, 0);
    return (sum * this.solutionsPerDifficulty) / this.observedSeconds(w, now);
  }

  /** Valid shares per second over the same time as its hashrate. */
  sharesPerSecond(w: WorkerStats, now: number): number {
    this.prune(w, now);
    return w.recent.reduce((a, [, , n]) => a + n, 0) / this.observedSeconds(w, now);
  }

  poolHashrate(now: number): number {
    let h = 0;
    for (const w of this.workers.values()) h += this.hashrate(w, now);
    return h;
  }

  ofAddress(address: string): WorkerStats[] {
    return [...this.workers.values()].filter((w) => w.address === address);
  }
}
