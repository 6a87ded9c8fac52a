import { COIN, MAX_MONEY } from '@cs/consensus/money';

const DECIMALS = 8;

/**
 * Parses a coin amount the way Core's ParseMoney does: plain decimal notation, at most 8 decimals,
 * no sign, no exponent, at most MAX_MONEY. Returns base units, or null when the text is not such
 * an amount. Exponents are refused because "1e-5" in a config file is more likely a typo than intent.
 */
export function parseAmount(text: string): bigint | null {
  const match = /^(\d*)(?:\.(\d{0,8}))?$/.exec(text);
  if (!match || text === '' || text === '.') return null;
  const [, whole = '', fraction = ''] = match;
  // Eleven integer digits already exceed MAX_MONEY; the guard keeps BigInt off absurd inputs.
  if (whole.length > 10) return null;
  const units = BigInt(whole || '0') * COIN + BigInt(fraction.padEnd(DECIMALS, '0'));
  return units <= MAX_MONEY ? units : null;
}

/** Base units as a coin amount without trailing zeros: 1000n -> "0.00001", 100000000n -> "1". */
export function formatAmount(units: bigint): string {
  const whole = units / COIN;
  const fraction = (units % COIN).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  return fraction === '' ? whole.toString() : `${whole}.${fraction}`;
}
