import type { FeeRate } from '../policy/feerate.ts';

/** The rolling minimum halves every 12 hours once a block has been seen since it last rose. */
const ROLLING_FEE_HALFLIFE = 12 * 60 * 60;

/**
 * Core's rolling mempool minimum fee rate. Evicting a package for space raises it to that
 * package's fee rate plus the incremental relay fee, so that what replaces the evicted
 * transactions pays more than they did (otherwise the same bytes could be churned in and out for
 * free). It then decays, but only after a block, since only blocks make room; faster when the
 * pool is well under its limit. Below half the incremental relay fee it drops to zero.
 */
export class RollingMinimumFee {
  /** Units per kvB; fractional while it decays. */
  private rate = 0;
  private lastUpdate: number;
  private blockSinceBump = false;

  constructor(
    private readonly incrementalRelayFee: FeeRate,
    now: number,
  ) {
    this.lastUpdate = now;
  }

  /** Core's GetMinFee: the current minimum, decayed up to `now` (seconds). */
  current(now: number, usage: number, maxUsage: number): FeeRate {
    if (!this.blockSinceBump || this.rate === 0) return BigInt(Math.round(this.rate));
    // Core updates at most every 10 seconds; between updates the rate stands.
    if (now > this.lastUpdate + 10) {
      let halflife = ROLLING_FEE_HALFLIFE;
      if (usage < maxUsage / 4) halflife /= 4;
      else if (usage < maxUsage / 2) halflife /= 2;
      this.rate /= 2 ** ((now - this.lastUpdate) / halflife);
      this.lastUpdate = now;
      if (this.rate < Number(this.incrementalRelayFee) / 2) {
        this.rate = 0;
        return 0n;
      }
    }
    const rate = BigInt(Math.round(this.rate));
    return rate > this.incrementalRelayFee ? rate : this.incrementalRelayFee;
  }

  /** Core's trackPackageRemoved: a package evicted at `rate` (already including the increment). */
  raise(rate: FeeRate): void {
    if (Number(rate) > this.rate) {
      this.rate = Number(rate);
      this.blockSinceBump = false;
    }
  }

  /** A block was connected at `now`: decay may start from here. */
  blockConnected(now: number): void {
    this.lastUpdate = now;
    this.blockSinceBump = true;
  }
}
