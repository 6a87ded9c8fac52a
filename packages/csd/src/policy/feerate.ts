import { COIN } from '@cs/consensus';

/**
 * Fee rates are integers in base units per 1000 virtual bytes (Core's CFeeRate, sat/kvB), held
 * as bigint like every amount. RPC shows them in coins per kvB.
 */
export type FeeRate = bigint;

/**
 * Core's CFeeRate::GetFee: the fee `rate` asks of `vsize` virtual bytes, rounded up so that paying
 * it never falls below the rate, and at least one unit for a positive rate and size.
 */
export function feeForSize(rate: FeeRate, vsize: number): bigint {
  // For a positive rate and size the rounded-up quotient is already at least one unit.
  if (rate <= 0n || vsize <= 0) return 0n;
  return (rate * BigInt(vsize) + 999n) / 1000n;
}

/** Core's CFeeRate(fee, size) constructor: the rate of `fee` over `vsize`, truncated. */
export function feeRateOf(fee: bigint, vsize: number): FeeRate {
  return vsize > 0 ? (fee * 1000n) / BigInt(vsize) : 0n;
}

/** A rate in coins per kvB as a JSON number (getmempoolinfo, estimatesmartfee). */
export function feeRateToCoins(rate: FeeRate): number {
  return Number(rate) / Number(COIN);
}
