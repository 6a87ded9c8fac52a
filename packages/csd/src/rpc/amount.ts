/**
 * Amount arguments: coin units in, bigint base units out, with Core's AmountFromValue rules and
 * messages (all RPC_TYPE_ERROR, as Core): a JSON number or a numeric string, at most 8 decimals,
 * within MoneyRange.
 */
import { moneyRange } from '@cs/consensus';
import { RpcError, RpcErrorCode } from './errors.ts';
import type { JsonValue } from './json.ts';

/** 1 coin = 10^8 base units (COIN in @cs/consensus). */
const DECIMALS = 8;
/** Core's ParseFixedPoint refuses results of 10^18 and above (19 digits), which keeps them in an int64. */
const MAX_DIGITS = 18;
const FIXED_POINT = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

export function amountFromValue(value: JsonValue | undefined): bigint {
  if (typeof value !== 'number' && typeof value !== 'string') {
    throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Amount is not a number or string');
  }
  // A JSON number has already been through a double. String() gives its shortest round-trip
  // form, which reproduces the request text for anything up to 15 significant digits; clients
  // that need more (above ~10 million coins with all 8 decimals) send a string.
  const amount = parseFixedPoint(typeof value === 'number' ? String(value) : value);
  if (amount === null) throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Invalid amount');
  if (!moneyRange(amount)) throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Amount out of range');
  return amount;
}

/** Decimal text (optionally with an exponent) to base units; null when malformed or finer than 1e-8. */
function parseFixedPoint(text: string): bigint | null {
  const m = FIXED_POINT.exec(text);
  if (m === null) return null;
  const [, sign, intPart, fracPart = '', expPart = '0'] = m;
  let digits = (intPart + fracPart).replace(/^0+/, '');
  if (digits === '') return 0n;
  const exponent = Number(expPart);
  if (!Number.isSafeInteger(exponent)) return null;
  // value = digits × 10^(exponent − fraction length); base units = value × 10^DECIMALS.
  let shift = exponent - fracPart.length + DECIMALS;
  const trailing = digits.length - digits.replace(/0+$/, '').length;
  digits = digits.slice(0, digits.length - trailing);
  shift += trailing;
  if (shift < 0) return null; // more precision than a base unit
  if (digits.length + shift > MAX_DIGITS) return null;
  const units = BigInt(digits) * 10n ** BigInt(shift);
  return sign === '-' ? -units : units;
}
