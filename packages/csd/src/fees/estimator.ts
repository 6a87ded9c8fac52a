import { readOptionalFile, writeFileAtomic } from '../mempool/files.ts';
import { feeRateOf, type FeeRate } from '../policy/feerate.ts';
import { ConfirmStats } from './confirm-stats.ts';
import { decodeEstimatesFile, encodeEstimatesFile, type EstimatorState } from './estimates-file.ts';

/**
 * Fee-rate buckets, units per kvB: exponentially spaced (5% apart) so the resolution is relative
 * to the rate, from 100 (low enough for a lowered -minrelaytxfee) to 10,000,000, plus a last
 * bucket for everything above.
 */
const MIN_BUCKET_FEERATE = 100;
const MAX_BUCKET_FEERATE = 1e7;
const FEE_SPACING = 1.05;
const INF_FEERATE = 1e99;

/**
 * Three horizons, as Core: short tracks up to 12 blocks one by one and forgets fast (decay .962,
 * half-life 18 blocks); medium up to 48 blocks in pairs (.9952, half-life 144); long up to 1008
 * in periods of 24 (.99931, half-life about 1000). Block counts, not hours: with 2-minute blocks
 * every horizon spans a fifth of Bitcoin's wall-clock time.
 */
const SHORT = { periods: 12, decay: 0.962, scale: 1 };
const MEDIUM = { periods: 24, decay: 0.9952, scale: 2 };
const LONG = { periods: 42, decay: 0.99931, scale: 24 };

/** The highest conf_target estimatesmartfee accepts (the long horizon's reach). */
export const MAX_CONF_TARGET = LONG.periods * LONG.scale;

/** Success thresholds: 60% within half the target, 85% within it, 95% within twice it. */
const HALF_SUCCESS_PCT = 0.6;
const SUCCESS_PCT = 0.85;
const DOUBLE_SUCCESS_PCT = 0.95;
/** Average transactions per block a bucket group needs to be judged (more for the fast-decaying short horizon). */
const SUFFICIENT_FEETXS = 0.1;
const SUFFICIENT_TXS_SHORT = 0.5;
/** A saved history whose last block is older than this many blocks no longer counts. */
const OLDEST_ESTIMATE_HISTORY = 6 * 1008;
/** Core ignores an estimates file older than 60 hours rather than serve stale estimates. */
const MAX_FILE_AGE = 60 * 60 * 60;

export const NO_ESTIMATE_ERROR = 'Insufficient data or no feerate found';

export type EstimateMode = 'unset' | 'economical' | 'conservative';

/** Core's FeeModeFromString for estimatesmartfee: case-insensitive; null for anything else. */
export function parseEstimateMode(text: string): EstimateMode | null {
  const mode = text.toLowerCase();
  return mode === 'unset' || mode === 'economical' || mode === 'conservative' ? mode : null;
}

/** What the estimator needs of a mempool transaction. */
export interface TrackedTx {
  readonly txid: string;
  /** The fee paid, without prioritisation. */
  readonly fee: bigint;
  readonly vsize: number;
  /** Chain height when it entered the mempool. */
  readonly height: number;
}

/** estimatesmartfee's answer: a rate, or errors; `blocks` is the target the answer is for. */
export interface SmartFeeEstimate {
  readonly feeRate?: FeeRate;
  readonly errors?: readonly string[];
  readonly blocks: number;
}

export type LoadResult = { readonly loaded: true } | { readonly loaded: false; readonly reason: string };

/**
 * Core's CBlockPolicyEstimator. It watches transactions enter the mempool (fee rate, height) and
 * learns, per fee-rate bucket, how many blocks they took to confirm or whether they left without.
 * An estimate for a target of N blocks is the lowest fee rate whose transactions confirmed within
 * N blocks often enough. Only transactions without unconfirmed parents are tracked (a child's
 * delay depends on its parents), and only while the node is in sync.
 */
export class FeeEstimator {
  private readonly buckets: number[] = [];
  private readonly short: ConfirmStats;
  private readonly medium: ConfirmStats;
  private readonly long: ConfirmStats;
  private readonly tracked = new Map<string, { readonly height: number; readonly bucket: number }>();
  private bestSeenHeight = 0;
  private firstRecordedHeight = 0;
  private historicalFirst = 0;
  private historicalBest = 0;

  /** `now`: Unix seconds, for the age of the estimates file. */
  constructor(private readonly now: () => number = () => Math.floor(Date.now() / 1000)) {
    for (let b = MIN_BUCKET_FEERATE; b <= MAX_BUCKET_FEERATE; b *= FEE_SPACING) this.buckets.push(b);
    this.buckets.push(INF_FEERATE);
    this.short = new ConfirmStats(this.buckets, SHORT.periods, SHORT.decay, SHORT.scale);
    this.medium = new ConfirmStats(this.buckets, MEDIUM.periods, MEDIUM.decay, MEDIUM.scale);
    this.long = new ConfirmStats(this.buckets, LONG.periods, LONG.decay, LONG.scale);
  }

  private get allStats(): ConfirmStats[] {
    return [this.medium, this.short, this.long];
  }

  /**
   * A transaction entered the mempool. `valid`: it has no unconfirmed parents, was not re-added
   * from a disconnected block, and the chain is current; others only count as untracked.
   */
  processTransaction(tx: TrackedTx, valid: boolean): void {
    if (this.tracked.has(tx.txid)) return;
    // Entered against another tip than the last block seen (a reorg, or not yet synced): its
    // waiting time would be measured from the wrong place.
    if (tx.height !== this.bestSeenHeight || !valid) return;
    const rate = Number(feeRateOf(tx.fee, tx.vsize));
    let bucket = 0;
    for (const s of this.allStats) bucket = s.newTx(tx.height, rate);
    this.tracked.set(tx.txid, { height: tx.height, bucket });
  }

  /** A transaction left the mempool without confirming (replaced, evicted, expired, conflicted). */
  removeTx(txid: string): void {
    this.untrack(txid, false);
  }

  private untrack(txid: string, inBlock: boolean): boolean {
    const t = this.tracked.get(txid);
    if (!t) return false;
    for (const s of this.allStats) s.removeTx(t.height, this.bestSeenHeight, t.bucket, inBlock);
    this.tracked.delete(txid);
    return true;
  }

  /**
   * A block at `height` confirmed `confirmed` (its transactions that were in the mempool). Blocks
   * at or below the best height seen (reorgs) are ignored: they would count twice.
   */
  processBlock(height: number, confirmed: readonly TrackedTx[]): void {
    if (height <= this.bestSeenHeight) return;
    this.bestSeenHeight = height;
    for (const s of this.allStats) {
      s.clearCurrent(height);
      s.updateMovingAverages();
    }
    let counted = 0;
    for (const tx of confirmed) {
      if (!this.untrack(tx.txid, true)) continue;
      const blocksToConfirm = height - tx.height;
      if (blocksToConfirm <= 0) continue;
      const rate = Number(feeRateOf(tx.fee, tx.vsize));
      for (const s of this.allStats) s.record(blocksToConfirm, rate);
      counted++;
    }
    if (this.firstRecordedHeight === 0 && counted > 0) this.firstRecordedHeight = height;
  }

  /** Counts every transaction still tracked as having left unconfirmed (Core does so at shutdown, before saving). */
  flushUnconfirmed(): void {
    for (const txid of [...this.tracked.keys()]) this.untrack(txid, false);
  }

  private blockSpan(): number {
    return this.firstRecordedHeight === 0 ? 0 : this.bestSeenHeight - this.firstRecordedHeight;
  }

  private historicalBlockSpan(): number {
    if (this.historicalFirst === 0) return 0;
    if (this.bestSeenHeight - this.historicalBest > OLDEST_ESTIMATE_HISTORY) return 0;
    return this.historicalBest - this.historicalFirst;
  }

  /** Targets beyond half the blocks observed cannot have seen enough failures to be trusted. */
  private maxUsableEstimate(): number {
    return Math.min(this.long.maxConfirms, Math.floor(Math.max(this.blockSpan(), this.historicalBlockSpan()) / 2));
  }

  /** The estimate at `target` from the shortest horizon reaching it (optionally lowered by shorter horizons' longest targets). */
  private combinedFee(target: number, threshold: number, checkShorterHorizon: boolean): number {
    if (target < 1 || target > this.long.maxConfirms) return -1;
    const h = this.bestSeenHeight;
    let estimate: number;
    if (target <= this.short.maxConfirms) estimate = this.short.estimateMedianVal(target, SUFFICIENT_TXS_SHORT, threshold, h);
    else if (target <= this.medium.maxConfirms) estimate = this.medium.estimateMedianVal(target, SUFFICIENT_FEETXS, threshold, h);
    else estimate = this.long.estimateMedianVal(target, SUFFICIENT_FEETXS, threshold, h);
    if (checkShorterHorizon) {
      if (target > this.medium.maxConfirms) {
        const medMax = this.medium.estimateMedianVal(this.medium.maxConfirms, SUFFICIENT_FEETXS, threshold, h);
        if (medMax > 0 && (estimate === -1 || medMax < estimate)) estimate = medMax;
      }
      if (target > this.short.maxConfirms) {
        const shortMax = this.short.estimateMedianVal(this.short.maxConfirms, SUFFICIENT_TXS_SHORT, threshold, h);
        if (shortMax > 0 && (estimate === -1 || shortMax < estimate)) estimate = shortMax;
      }
    }
    return estimate;
  }

  /** The 95% threshold at twice the target must also hold over the longer horizons. */
  private conservativeFee(doubleTarget: number): number {
    const h = this.bestSeenHeight;
    let estimate = -1;
    if (doubleTarget <= this.short.maxConfirms) {
      estimate = this.medium.estimateMedianVal(doubleTarget, SUFFICIENT_FEETXS, DOUBLE_SUCCESS_PCT, h);
    }
    if (doubleTarget <= this.medium.maxConfirms) {
      const longEstimate = this.long.estimateMedianVal(doubleTarget, SUFFICIENT_FEETXS, DOUBLE_SUCCESS_PCT, h);
      if (longEstimate > estimate) estimate = longEstimate;
    }
    return estimate;
  }

  /**
   * estimatesmartfee (Core's estimateSmartFee plus the RPC's floor): the highest of the 60%
   * estimate at half the target, 85% at the target and 95% at twice the target, each from the
   * shortest horizon that tracks it; conservative mode also requires the 95% over longer
   * horizons. A target of 1 is answered for 2, and targets beyond what the data supports are
   * lowered (`blocks` says which target was used). `minFee` (the mempool minimum and the relay
   * minimum) is the lowest rate ever returned. 'unset' means economical, Core 28's default.
   */
  estimateSmartFee(confTarget: number, mode: EstimateMode, minFee: FeeRate): SmartFeeEstimate {
    const none = (blocks: number): SmartFeeEstimate => ({ errors: [NO_ESTIMATE_ERROR], blocks });
    if (!Number.isInteger(confTarget) || confTarget <= 0 || confTarget > this.long.maxConfirms) return none(confTarget);
    let target = confTarget === 1 ? 2 : confTarget;
    target = Math.min(target, this.maxUsableEstimate());
    if (target <= 1) return none(target);
    const conservative = mode === 'conservative';

    let median = this.combinedFee(Math.floor(target / 2), HALF_SUCCESS_PCT, true);
    median = Math.max(median, this.combinedFee(target, SUCCESS_PCT, true));
    median = Math.max(median, this.combinedFee(2 * target, DOUBLE_SUCCESS_PCT, !conservative));
    if (conservative || median === -1) median = Math.max(median, this.conservativeFee(2 * target));
    if (median < 0) return none(target);
    const rate = BigInt(Math.round(median));
    return { feeRate: rate > minFee ? rate : minFee, blocks: target };
  }

  /** Writes the learned history to `path` atomically (fee_estimates.dat). */
  async save(path: string): Promise<void> {
    // Keep whichever history covers more: the current run's, or the one loaded at startup.
    const current = this.blockSpan() > this.historicalBlockSpan() / 2;
    const state: EstimatorState = {
      writtenAt: this.now(),
      bestSeenHeight: this.bestSeenHeight,
      historicalFirst: current ? this.firstRecordedHeight : this.historicalFirst,
      historicalBest: current ? this.bestSeenHeight : this.historicalBest,
      buckets: this.buckets,
      horizons: this.allStats.map((s) => ({ decay: s.decay, scale: s.scale, history: s.history() })),
    };
    await writeFileAtomic(path, encodeEstimatesFile(state));
  }

  /**
   * Reads a history saved by save(). A missing, damaged, foreign-layout or stale (over 60 hours)
   * file is ignored: the estimator then starts empty, as Core does.
   */
  async load(path: string): Promise<LoadResult> {
    let state: EstimatorState;
    try {
      const bytes = await readOptionalFile(path);
      if (bytes === null) return { loaded: false, reason: 'no estimates file' };
      state = decodeEstimatesFile(bytes);
    } catch (e) {
      return { loaded: false, reason: e instanceof Error ? e.message : String(e) };
    }
    if (this.now() - state.writtenAt > MAX_FILE_AGE) return { loaded: false, reason: 'estimates file too old' };
    const sameBuckets = state.buckets.length === this.buckets.length && state.buckets.every((b, i) => b === this.buckets[i]);
    const stats = this.allStats;
    const sameHorizons =
      state.horizons.length === stats.length && state.horizons.every((h, i) => h.decay === stats[i].decay && h.scale === stats[i].scale);
    if (!sameBuckets || !sameHorizons) return { loaded: false, reason: 'estimates file has another bucket layout' };
    if (state.historicalFirst > state.historicalBest || state.historicalBest > state.bestSeenHeight) {
      return { loaded: false, reason: 'estimates file has an invalid block range' };
    }
    // Check every horizon on a scratch copy first, so a bad one leaves the estimator untouched.
    const scratch = stats.map((s) => new ConfirmStats(this.buckets, s.periods, s.decay, s.scale));
    if (!scratch.every((s, i) => s.restore(state.horizons[i].history))) return { loaded: false, reason: 'estimates file has another shape' };
    stats.forEach((s, i) => s.restore(state.horizons[i].history));
    this.bestSeenHeight = state.bestSeenHeight;
    this.historicalFirst = state.historicalFirst;
    this.historicalBest = state.historicalBest;
    return { loaded: true };
  }
}
