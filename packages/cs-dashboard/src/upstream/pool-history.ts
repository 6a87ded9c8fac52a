/**
 * The pool API gives its hashrate now (over its last 10 minutes), not a history: the dashboard
 * samples it at a fixed interval from its start and keeps the last hour for the pool page's chart.
 */
import type { Upstreams } from './upstreams.ts';

export interface HashrateSample {
  /** Milliseconds since the epoch. */
  readonly time: number;
  /** Pool hashrate, Sol/s. */
  readonly hashrate: number;
  readonly miners: number;
}

export const SAMPLE_MS = 10_000;
const KEEP = 360;

export class PoolHistory {
  private readonly samples: HashrateSample[] = [];
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly upstreams: Upstreams) {}

  start(): void {
    if (!this.upstreams.config.poolUrl) return;
    void this.sample();
    this.timer = setInterval(() => void this.sample(), SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }

  list(): readonly HashrateSample[] {
    return this.samples;
  }

  private async sample(): Promise<void> {
    try {
      const r = await this.upstreams.pool('pool/stats');
      if (r.status !== 200) return;
      const stats = JSON.parse(r.body) as { hashrate: number; connectedMiners: number };
      this.samples.push({ time: Date.now(), hashrate: stats.hashrate, miners: stats.connectedMiners });
      if (this.samples.length > KEEP) this.samples.shift();
    } catch {
      // A pool that is down leaves a gap in the chart; the status bar says it is down.
    }
  }
}
