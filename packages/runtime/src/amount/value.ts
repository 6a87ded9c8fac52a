/**
 * Amounts as JSON carries them: coin units in, bigint base units out, with Core's AmountFromValue
 * rules and messages (a JSON number or a numeric string, at most 8 decimals, within MoneyRange),
 * and base units back out as a JSON number.
 */
import { moneyRange } from '@cs/consensus/money';

/**
 * An amount that is not one, with Core's message. csd's RPC layer answers it as RPC_TYPE_ERROR,
 * as Core does; other programs report the message as it is.
 */
export class AmountError extends TypeError {
  override readonly name = 'AmountError';
}

/** 1 coin = 10^8 base units (COIN in @cs/consensus). */
const DECIMALS = 8;
/** Core's ParseFixedPoint refuses results of 10^18 and above (19 digits), which keeps them in an int64. */
const MAX_DIGITS = 18;
const FIXED_POINT = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?(?:[eE]([+-]?[0-9]+))?$/;

export function amountFromValue(value: unknown): bigint {
  if (typeof value !== 'number' && typeof value !== 'string') {
    throw new AmountError('Amount is not a number or string');
  }
  // A JSON number has already been through a double. String() gives its shortest round-trip
  // form, which reproduces the request text for anything up to 15 significant digits; clients
  // that need more (above ~10 million coins with all 8 decimals) send a string.
  const amount = parseFixedPoint(typeof value === 'number' ? String(value) : value);
  if (amount === null) throw new AmountError('Invalid amount');
  if (!moneyRange(amount)) throw new AmountError('Amount out of range');
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

/** Base units to coin units. Exact: every amount up to MAX_MONEY prints as its 8-decimal value. */
export function amountToJson(units: bigint): number {
  return Number(units) / 1e8;
}
