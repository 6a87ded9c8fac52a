/** The decayed history that survives a restart (the mempool part is rebuilt from the mempool). */
export interface StatsHistory {
  readonly feerateAvg: readonly number[];
  readonly txCtAvg: readonly number[];
  readonly confAvg: readonly (readonly number[])[];
  readonly failAvg: readonly (readonly number[])[];
}

/**
 * Core's TxConfirmStats: for one time horizon, per fee-rate bucket, exponentially decaying counts
 * of transactions seen, confirmed within each number of periods, and dropped unconfirmed, plus
 * the transactions still waiting in the mempool. Fee rates are units per kvB, as doubles.
 */
export class ConfirmStats {
  /** Per bucket: decayed sum of the fee rates of confirmed transactions (for the bucket's average). */
  private readonly feerateAvg: number[];
  /** Per bucket: decayed count of confirmed transactions. */
  private readonly txCtAvg: number[];
  /** [period][bucket]: decayed count confirmed within period + 1 periods. */
  private readonly confAvg: number[][];
  /** [period][bucket]: decayed count that left the mempool unconfirmed after period + 1 periods. */
  private readonly failAvg: number[][];
  /** [height mod maxConfirms][bucket]: transactions in the mempool by entry height. */
  private readonly unconfTxs: number[][];
  /** Per bucket: transactions in the mempool for maxConfirms blocks or longer. */
  private readonly oldUnconfTxs: number[];

  /**
   * `buckets` are the inclusive upper bounds of the fee-rate buckets, ascending, the last one
   * infinite. `scale` blocks make one period; `decay` multiplies every count once per block.
   */
  constructor(
    readonly buckets: readonly number[],
    readonly periods: number,
    readonly decay: number,
    readonly scale: number,
  ) {
    const n = buckets.length;
    this.feerateAvg = new Array<number>(n).fill(0);
    this.txCtAvg = new Array<number>(n).fill(0);
    this.confAvg = Array.from({ length: periods }, () => new Array<number>(n).fill(0));
    this.failAvg = Array.from({ length: periods }, () => new Array<number>(n).fill(0));
    this.unconfTxs = Array.from({ length: this.maxConfirms }, () => new Array<number>(n).fill(0));
    this.oldUnconfTxs = new Array<number>(n).fill(0);
  }

  history(): StatsHistory {
    return { feerateAvg: this.feerateAvg, txCtAvg: this.txCtAvg, confAvg: this.confAvg, failAvg: this.failAvg };
  }

  /** Replaces the history with a saved one; false (and nothing changed) when its shape differs. */
  restore(h: StatsHistory): boolean {
    const n = this.buckets.length;
    const rows = (m: readonly (readonly number[])[]) => m.length === this.periods && m.every((row) => row.length === n);
    if (h.feerateAvg.length !== n || h.txCtAvg.length !== n || !rows(h.confAvg) || !rows(h.failAvg)) return false;
    this.feerateAvg.splice(0, n, ...h.feerateAvg);
    this.txCtAvg.splice(0, n, ...h.txCtAvg);
    h.confAvg.forEach((row, p) => this.confAvg[p].splice(0, n, ...row));
    h.failAvg.forEach((row, p) => this.failAvg[p].splice(0, n, ...row));
    return true;
  }

  /** The longest confirmation target this horizon tracks, in blocks. */
  get maxConfirms(): number {
    return this.scale * this.periods;
  }

  /** The bucket of `feerate`: the first whose upper bound reaches it. */
  bucketIndex(feerate: number): number {
    let lo = 0;
    let hi = this.buckets.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.buckets[mid] >= feerate) hi = mid;
      else lo = mid + 1;
    }
    return lo;
  }

  /** A new block at `height`: the circular slot it reuses holds transactions now too old to tell apart. */
  clearCurrent(height: number): void {
    const slot = this.unconfTxs[height % this.unconfTxs.length];
    for (let b = 0; b < slot.length; b++) {
      this.oldUnconfTxs[b] += slot[b];
      slot[b] = 0;
    }
  }

  /** A transaction confirmed `blocksToConfirm` (≥ 1) blocks after it entered. */
  record(blocksToConfirm: number, feerate: number): void {
    if (blocksToConfirm < 1) return;
    const periodsToConfirm = Math.ceil(blocksToConfirm / this.scale);
    const b = this.bucketIndex(feerate);
    for (let p = periodsToConfirm; p <= this.periods; p++) this.confAvg[p - 1][b]++;
    this.txCtAvg[b]++;
    this.feerateAvg[b] += feerate;
  }

  updateMovingAverages(): void {
    for (let b = 0; b < this.buckets.length; b++) {
      for (let p = 0; p < this.periods; p++) {
        this.confAvg[p][b] *= this.decay;
        this.failAvg[p][b] *= this.decay;
      }
      this.feerateAvg[b] *= this.decay;
      this.txCtAvg[b] *= this.decay;
    }
  }

  /** A transaction entered the mempool at `height`; returns its bucket. */
  newTx(height: number, feerate: number): number {
    const b = this.bucketIndex(feerate);
    this.unconfTxs[height % this.unconfTxs.length][b]++;
    return b;
  }

  /**
   * A tracked transaction left the mempool, confirmed (`inBlock`) or not. Leaving unconfirmed
   * after at least a period counts as a failure for every period it waited through.
   */
  removeTx(entryHeight: number, bestSeenHeight: number, bucket: number, inBlock: boolean): void {
    const blocksAgo = bestSeenHeight === 0 ? 0 : bestSeenHeight - entryHeight;
    if (blocksAgo < 0) return;
    if (blocksAgo >= this.unconfTxs.length) {
      if (this.oldUnconfTxs[bucket] > 0) this.oldUnconfTxs[bucket]--;
    } else {
      const slot = this.unconfTxs[entryHeight % this.unconfTxs.length];
      if (slot[bucket] > 0) slot[bucket]--;
    }
    if (!inBlock && blocksAgo >= this.scale) {
      const periodsAgo = Math.floor(blocksAgo / this.scale);
      for (let p = 0; p < periodsAgo && p < this.periods; p++) this.failAvg[p][bucket]++;
    }
  }

  /**
   * Core's EstimateMedianVal: walking from the highest fee rates down, buckets are grouped until
   * each group has enough data (`sufficientTxVal` transactions per block on average); the answer
   * is the average fee rate around the median transaction of the lowest group whose share
   * confirmed within `confTarget` blocks, out of all it saw (confirmed, dropped, still waiting),
   * reaches `successBreakPoint`. -1 when no group qualifies.
   */
  estimateMedianVal(confTarget: number, sufficientTxVal: number, successBreakPoint: number, height: number): number {
    let nConf = 0;
    let totalNum = 0;
    let extraNum = 0;
    let failNum = 0;
    const periodTarget = Math.ceil(confTarget / this.scale);
    const maxBucket = this.buckets.length - 1;
    let curNear = maxBucket;
    let curFar = maxBucket;
    let bestNear = maxBucket;
    let bestFar = maxBucket;
    let partialNum = 0;
    let foundAnswer = false;
    let newRange = true;
    const bins = this.unconfTxs.length;

    for (let b = maxBucket; b >= 0; b--) {
      if (newRange) {
        curNear = b;
        newRange = false;
      }
      curFar = b;
      nConf += this.confAvg[periodTarget - 1][b];
      partialNum += this.txCtAvg[b];
      totalNum += this.txCtAvg[b];
      failNum += this.failAvg[periodTarget - 1][b];
      // Still waiting after confTarget blocks or more: as good as failed for this target.
      for (let c = confTarget; c < this.maxConfirms; c++) extraNum += this.unconfTxs[mod(height - c, bins)][b];
      extraNum += this.oldUnconfTxs[b];
      // A decayed count converges to rate / (1 - decay): compare against that steady state.
      if (partialNum < sufficientTxVal / (1 - this.decay)) continue;
      partialNum = 0;
      const curPct = nConf / (totalNum + failNum + extraNum);
      if (curPct < successBreakPoint) continue;
      foundAnswer = true;
      nConf = 0;
      totalNum = 0;
      failNum = 0;
      extraNum = 0;
      bestNear = curNear;
      bestFar = curFar;
      newRange = true;
    }

    if (!foundAnswer) return -1;
    const minBucket = Math.min(bestNear, bestFar);
    const maxBest = Math.max(bestNear, bestFar);
    let txSum = 0;
    for (let b = minBucket; b <= maxBest; b++) txSum += this.txCtAvg[b];
    if (txSum === 0) return -1;
    txSum /= 2;
    for (let b = minBucket; b <= maxBest; b++) {
      if (this.txCtAvg[b] < txSum) txSum -= this.txCtAvg[b];
      else return this.feerateAvg[b] / this.txCtAvg[b];
    }
    return -1;
  }
}

/** Height arithmetic modulo the ring size, non-negative for the first blocks of a chain too. */
function mod(n: number, m: number): number {
  return ((n % m) + m) % m;
}
