/**
 * The fee rates a wallet transaction is built with (Core's GetMinimumFeeRate, GetDiscardRate and
 * the consolidation rate): an explicit rate, settxfee's rate, or the node's estimate for a
 * confirmation target (falling back to -fallbackfee), never below the mempool's minimum, the
 * relay minimum and the wallet's own minimum. All rates in units per kvB.
 */
import type { EstimateMode, FeeEstimator } from '../fees/estimator.ts';
import { DUST_RELAY_TX_FEE } from '../policy/policy.ts';
import type { FeeRate } from '../policy/feerate.ts';
import { WalletError } from './errors.ts';

/** Core's -txconfirmtarget default. */
export const DEFAULT_CONF_TARGET = 6;
/** Core's -mintxfee default (DEFAULT_TRANSACTION_MINFEE). */
export const WALLET_MIN_FEE: FeeRate = 1000n;
/** Core's -maxtxfee default: no wallet transaction pays more than 0.1 coin in fees. */
export const MAX_TX_FEE = 10_000_000n;
/** Core's -discardfee default: change below what spending it would cost at this rate goes to the fee. */
const DEFAULT_DISCARD_FEE: FeeRate = 10_000n;
/** Core's -consolidatefeerate default: the rate the wallet expects to pay for inputs in the long run. */
export const LONG_TERM_FEE_RATE: FeeRate = 10_000n;
/** Core estimates the discard rate at its longest target. */
const DISCARD_TARGET = 1008;

export interface FeeRequest {
  /** fee_rate / feeRate given by the caller: used as is (and refused below the minimum). */
  readonly explicit?: FeeRate;
  readonly confTarget?: number;
  readonly mode: EstimateMode;
}

export interface FeeContext {
  readonly estimator: FeeEstimator;
  /** settxfee, 0 when unset. */
  readonly payTxFee: FeeRate;
  readonly fallbackFee: FeeRate;
  /** The mempool's current minimum (rolling minimum or -minrelaytxfee). */
  readonly mempoolMinFee: FeeRate;
  readonly minRelayFee: FeeRate;
}

export interface FeeChoice {
  readonly rate: FeeRate;
  /** Why this rate, in Core's FeeReason words. */
  readonly reason: string;
}

/** "1.000 units/vB": Core's CFeeRate::ToString in per-vbyte form. */
export function formatFeeRate(rate: FeeRate): string {
  return `${rate / 1000n}.${(rate % 1000n).toString().padStart(3, '0')} units/vB`;
}

export function chooseFeeRate(req: FeeRequest, c: FeeContext): FeeChoice {
  const required = c.minRelayFee > WALLET_MIN_FEE ? c.minRelayFee : WALLET_MIN_FEE;
  if (req.explicit !== undefined) {
    // Core never raises a rate the caller chose; it refuses one below the floor instead.
    if (req.explicit < required) {
      throw new WalletError(
        'create-failed',
        `Fee rate (${formatFeeRate(req.explicit)}) is lower than the minimum fee rate setting (${formatFeeRate(required)})`,
      );
    }
    return { rate: req.explicit, reason: 'PayTxFee set' };
  }
  let choice: FeeChoice;
  if (req.confTarget === undefined && c.payTxFee > 0n) {
    choice = { rate: c.payTxFee, reason: 'PayTxFee set' };
  } else {
    const target = req.confTarget ?? DEFAULT_CONF_TARGET;
    const estimate = c.estimator.estimateSmartFee(target, req.mode, 0n);
    if (estimate.feeRate !== undefined) {
      choice = { rate: estimate.feeRate, reason: `Estimate for ${estimate.blocks} blocks` };
    } else {
      if (c.fallbackFee === 0n) {
        throw new WalletError('create-failed', 'Fee estimation failed. Fallbackfee is disabled. Wait a few blocks or enable -fallbackfee.');
      }
      choice = { rate: c.fallbackFee, reason: 'Fallback fee' };
    }
    if (choice.rate < c.mempoolMinFee) choice = { rate: c.mempoolMinFee, reason: 'Mempool Min Fee' };
  }
  return choice.rate < required ? { rate: required, reason: 'Minimum Required Fee' } : choice;
}

/** Core's GetDiscardRate: the long-target estimate capped at -discardfee, never below the dust relay rate. */
export function discardRate(estimator: FeeEstimator): FeeRate {
  const estimate = estimator.estimateSmartFee(DISCARD_TARGET, 'economical', 0n);
  let rate = estimate.feeRate !== undefined && estimate.feeRate < DEFAULT_DISCARD_FEE ? estimate.feeRate : DEFAULT_DISCARD_FEE;
  if (rate < DUST_RELAY_TX_FEE) rate = DUST_RELAY_TX_FEE;
  return rate;
}
