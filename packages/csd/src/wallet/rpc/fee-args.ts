/**
 * The fee arguments of the spending methods (Core's SetFeeEstimateMode): conf_target,
 * estimate_mode and fee_rate in units per vbyte (Core's sat/vB), or feeRate in coins per kvB.
 */
import { MAX_CONF_TARGET, parseEstimateMode } from '../../fees/estimator.ts';
import { amountFromValue } from '@cs/runtime/amount';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { JsonValue } from '../../format/json-value.ts';
import type { FeeRequest } from '../fee-policy.ts';

const INVALID_MODE = 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"';

/**
 * A fee rate in units/vB with at most 3 decimals (Core's AmountFromValue with 3 decimals), as
 * units/kvB. Read with the 8-decimal amount parser, the value comes out ×10^8; units/kvB is
 * ×10^3, so the parsed value must be a multiple of 10^5.
 */
export function parseFeeRatePerVbyte(value: JsonValue): bigint {
  const scaled = amountFromValue(value);
  if (scaled % 100_000n !== 0n) throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Invalid amount');
  return scaled / 100_000n;
}

/** Checks and combines conf_target, estimate_mode and an explicit rate, with Core's messages. */
export function feeRequest(confTarget: number | undefined, estimateMode: string | undefined, explicit: bigint | undefined): FeeRequest {
  if (explicit !== undefined) {
    if (confTarget !== undefined) {
      throw new RpcError(
        RpcErrorCode.INVALID_PARAMETER,
        'Cannot specify both conf_target and fee_rate. Please provide either a confirmation target in blocks for automatic fee estimation, or an explicit fee rate.',
      );
    }
    if (estimateMode !== undefined && estimateMode.toLowerCase() !== 'unset') {
      throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Cannot specify both estimate_mode and fee_rate');
    }
  }
  const mode = parseEstimateMode(estimateMode ?? 'unset');
  if (!mode) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, INVALID_MODE);
  if (confTarget !== undefined && (confTarget < 1 || confTarget > MAX_CONF_TARGET)) {
    throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Invalid conf_target, must be between 1 and ${MAX_CONF_TARGET}`);
  }
  return { explicit, confTarget, mode };
}
