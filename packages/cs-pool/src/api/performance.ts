/**
 * The history behind miningcore's `/performance` routes, kept in this process (it starts empty
 * with it): a sample of the pool and of every miner's workers every `-statsinterval` seconds,
 * summed into buckets as miningcore's SQL averages its stored samples (date_trunc by hour or day,
 * AVG per bucket and worker). The pool keeps hourly buckets for 31 days; each miner address
 * three-minute buckets for an hour, hourly ones for a day and daily ones for a month, which is
 * what miningcore's `perfMode` Hour, Day and Month read.
 */
export interface PoolSample {
  readonly poolHashrate: number;
  readonly connectedMiners: number;
  readonly validSharesPerSecond: number;
  readonly networkHashrate: number;
  readonly networkDifficulty: number;
}

export interface WorkerSample {
  readonly address: string;
  readonly worker: string;
  readonly hashrate: number;
  readonly sharesPerSecond: number;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** A bucket's kind: its length and how long it is kept. */
const MINER_BUCKETS = {
  hour: { size: 3 * MINUTE, keep: HOUR },
  day: { size: HOUR, keep: DAY },
  month: { size: DAY, keep: 31 * DAY },
} as const;
export type MinerRange = keyof typeof MINER_BUCKETS;

const POOL_KEEP = 31 * DAY;

interface Sums<K extends string> {
  n: number;
  sums: Record<K, number>;
}

type PoolField = keyof PoolSample;
const POOL_FIELDS: readonly PoolField[] = ['poolHashrate', 'connectedMiners', 'validSharesPerSecond', 'networkHashrate', 'networkDifficulty'];

export interface AggregatedPoolStats extends PoolSample {
  /** The bucket's start, ms since the epoch. */
  readonly created: number;
}

export interface WorkerPerformance {
  readonly hashrate: number;
  readonly sharesPerSecond: number;
}

export interface MinerPerformanceSample {
  readonly created: number;
  readonly workers: Readonly<Record<string, WorkerPerformance>>;
}

const floorTo = (t: number, size: number) => t - (t % size);

export class PerformanceHistory {
  /** Hourly buckets of pool samples, by start. */
  private readonly pool = new Map<number, Sums<PoolField>>();
  /** address → range → bucket start → worker → sums. */
  private readonly miners = new Map<string, Record<MinerRange, Map<number, Map<string, Sums<'hashrate' | 'sharesPerSecond'>>>>>();

  record(now: number, pool: PoolSample, workers: readonly WorkerSample[]): void {
    const hour = floorTo(now, HOUR);
    let p = this.pool.get(hour);
    if (!p) {
      p = { n: 0, sums: { poolHashrate: 0, connectedMiners: 0, validSharesPerSecond: 0, networkHashrate: 0, networkDifficulty: 0 } };
      this.pool.set(hour, p);
    }
    p.n++;
    for (const f of POOL_FIELDS) p.sums[f] += pool[f];
    for (const w of workers) {
      let m = this.miners.get(w.address);
      if (!m) {
        m = { hour: new Map(), day: new Map(), month: new Map() };
        this.miners.set(w.address, m);
      }
      for (const range of Object.keys(MINER_BUCKETS) as MinerRange[]) {
        const start = floorTo(now, MINER_BUCKETS[range].size);
        let bucket = m[range].get(start);
        if (!bucket) {
          bucket = new Map();
          m[range].set(start, bucket);
        }
        const s = bucket.get(w.worker) ?? { n: 0, sums: { hashrate: 0, sharesPerSecond: 0 } };
        s.n++;
        s.sums.hashrate += w.hashrate;
        s.sums.sharesPerSecond += w.sharesPerSecond;
        bucket.set(w.worker, s);
      }
    }
    this.expire(now);
  }

  private expire(now: number): void {
    for (const start of this.pool.keys()) if (start + HOUR <= now - POOL_KEEP) this.pool.delete(start);
    for (const [address, m] of this.miners) {
      for (const range of Object.keys(MINER_BUCKETS) as MinerRange[]) {
        const { size, keep } = MINER_BUCKETS[range];
        for (const start of m[range].keys()) if (start + size <= now - keep) m[range].delete(start);
      }
      if (m.month.size === 0) this.miners.delete(address);
    }
  }

  /** miningcore's pool performance: `range` back from now (a day or 30 days), averaged per hour or per day, oldest first. */
  poolStats(now: number, range: 'day' | 'month', interval: 'hour' | 'day'): AggregatedPoolStats[] {
    const from = now - (range === 'day' ? DAY : 30 * DAY);
    const groups = new Map<number, Sums<PoolField>>();
    for (const [start, b] of [...this.pool].sort(([a], [b]) => a - b)) {
      if (start + HOUR <= from) continue;
      const key = interval === 'hour' ? start : floorTo(start, DAY);
      const g = groups.get(key) ?? {
        n: 0,
        sums: { poolHashrate: 0, connectedMiners: 0, validSharesPerSecond: 0, networkHashrate: 0, networkDifficulty: 0 },
      };
      g.n += b.n;
      for (const f of POOL_FIELDS) g.sums[f] += b.sums[f];
      groups.set(key, g);
    }
    return [...groups].map(([created, g]) => {
      const avg = (f: PoolField) => g.sums[f] / g.n;
      return {
        created,
        poolHashrate: avg('poolHashrate'),
        // miningcore casts these two averages to integers.
        connectedMiners: Math.trunc(avg('connectedMiners')),
        validSharesPerSecond: Math.trunc(avg('validSharesPerSecond')),
        networkHashrate: avg('networkHashrate'),
        networkDifficulty: avg('networkDifficulty'),
      };
    });
  }

  /** A miner's samples over the last hour, day or month (`perfMode`), one per bucket, oldest first. */
  minerSamples(address: string, range: MinerRange, now: number): MinerPerformanceSample[] {
    const buckets = this.miners.get(address)?.[range];
    if (!buckets) return [];
    const from = now - MINER_BUCKETS[range].keep;
    return [...buckets]
      .filter(([start]) => start + MINER_BUCKETS[range].size > from)
      .sort(([a], [b]) => a - b)
      .map(([created, workers]) => ({
        created,
        workers: Object.fromEntries(
          [...workers].map(([worker, s]) => [worker, { hashrate: s.sums.hashrate / s.n, sharesPerSecond: s.sums.sharesPerSecond / s.n }]),
        ),
      }));
  }
}
