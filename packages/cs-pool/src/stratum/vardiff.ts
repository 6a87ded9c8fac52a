/**
 * Variable difficulty per connection, toward one share every `targetTime` seconds. Pure: it is fed
 * share times and answers with a new target or null. The average interval counts the time since
 * the last share too, so a miner that stops sending is noticed (miningcore's rule); the idle
 * sweep lowers the difficulty of a miner that sends nothing at all.
 */
import { clampTarget, scaleTarget } from '@cs/stratum';

export interface VardiffConfig {
  /** Wanted seconds between shares. */
  readonly targetTime: number;
  /** Seconds between two changes at least. */
  readonly retargetTime: number;
  /** Tolerated deviation from targetTime, percent, before a change. */
  readonly variancePercent: number;
  /** The hardest (smallest) and easiest (largest) targets allowed. */
  readonly minTarget: bigint;
  readonly maxTarget: bigint;
  /** Largest factor of one change, so one lucky burst cannot swing the difficulty wildly. */
  readonly maxFactor: number;
}

const RING = 10;

export class Vardiff {
  private readonly intervals: number[] = [];
  private lastShare: number;
  private lastChange: number;

  constructor(
    private readonly config: VardiffConfig,
    now: number,
  ) {
    this.lastShare = now;
    this.lastChange = now;
  }

  /** A share arrived at `now` (seconds) while the connection's target was `target`. */
  onShare(now: number, target: bigint): bigint | null {
    this.intervals.push(now - this.lastShare);
    if (this.intervals.length > RING) this.intervals.shift();
    this.lastShare = now;
    return this.retarget(now, target);
  }

  /** Called periodically: a miner silent for longer than retargetTime gets an easier target. */
  idleSweep(now: number, target: bigint): bigint | null {
    if (now - this.lastShare < this.config.retargetTime) return null;
    return this.retarget(now, target);
  }

  private retarget(now: number, target: bigint): bigint | null {
    const c = this.config;
    if (now - this.lastChange < c.retargetTime) return null;
    const sinceLast = now - this.lastShare;
    const sum = this.intervals.reduce((a, b) => a + b, 0) + sinceLast;
    const average = Math.max(sum / (this.intervals.length + (sinceLast > 0 ? 1 : 0)), 0.001);
    const low = c.targetTime * (1 - c.variancePercent / 100);
    const high = c.targetTime * (1 + c.variancePercent / 100);
    if (average >= low && average <= high) return null;
    // Target grows with the time per share: a miner twice too slow gets a target twice as easy.
    const factor = Math.min(Math.max(average / c.targetTime, 1 / c.maxFactor), c.maxFactor);
    let next = scaleTarget(target, factor, 1);
    if (next < c.minTarget) next = c.minTarget;
    if (next > c.maxTarget) next = c.maxTarget;
    next = clampTarget(next);
    if (next === target) return null;
    this.lastChange = now;
    this.intervals.length = 0;
    return next;
  }
}
