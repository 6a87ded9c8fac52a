/**
 * Share targets and difficulty in exact integer arithmetic.
 *
 * The unit: difficulty 1 is the network's powLimit (docs/mining.md, "Difficulty ... is powLimit's
 * target over the target"), so difficulty D means target floor(powLimit / D). On main that is
 * Zcash's and Flux's 0x0007ff..ff; on regtest powLimit is 0x0f0f..0f and blocks sit at difficulty
 * 1, so share difficulties are fractions well below 1 (0.001 and less). A target is the source of
 * truth everywhere in the pool; difficulty numbers exist for configuration and display only.
 */

export const UINT256_MAX = (1n << 256n) - 1n;

/** An exact non-negative decimal as numerator / 10^scale. */
export interface Decimal {
  readonly digits: bigint;
  readonly scale: bigint;
}

const DECIMAL_RE = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/**
 * Parses a positive difficulty as written in configuration or a `d=` password ("0.0005", "2",
 * "1e-7", or a JS number, whose shortest decimal form is taken exactly). Anything else is a
 * RangeError naming the bad value.
 */
export function parseDecimal(value: string | number): Decimal {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const m = DECIMAL_RE.exec(text);
  if (!m) throw new RangeError(`difficulty '${value}' is not a positive decimal number`);
  const fraction = m[2] ?? '';
  const exponent = BigInt(m[3] ?? '0');
  let digits = BigInt(m[1] + fraction);
  let scale = BigInt(fraction.length) - exponent;
  if (scale < 0n) {
    digits *= 10n ** -scale;
    scale = 0n;
  }
  if (digits === 0n) throw new RangeError(`difficulty '${value}' must be above zero`);
  return { digits, scale };
}

/** The target of a difficulty: floor(powLimit * 10^scale / digits), kept within 1 .. 2^256-1. */
export function difficultyToTarget(difficulty: string | number, powLimit: bigint): bigint {
  const { digits, scale } = parseDecimal(difficulty);
  return clampTarget((powLimit * 10n ** scale) / digits);
}

export function clampTarget(target: bigint): bigint {
  if (target < 1n) return 1n;
  return target > UINT256_MAX ? UINT256_MAX : target;
}

/**
 * powLimit / target as a double for display and statistics: the quotient is taken on integers
 * scaled by 2^64 first, so that fractional difficulties keep full double precision.
 */
export function targetToDifficulty(target: bigint, powLimit: bigint): number {
  if (target <= 0n) throw new RangeError('a target is positive');
  return Number((powLimit << 64n) / target) / 2 ** 64;
}

/** A 256-bit target as ZIP 301's set_target and getblocktemplate write it: 64 hex digits, big-endian. */
export function targetToHex(target: bigint): string {
  if (target < 0n || target > UINT256_MAX) throw new RangeError('a target is a 256-bit unsigned integer');
  return target.toString(16).padStart(64, '0');
}

/** Reads a 64-digit big-endian target (set_target, suggest_target, getblocktemplate's `target`). */
export function targetFromHex(hex: string): bigint {
  if (typeof hex !== 'string' || !/^[0-9a-fA-F]{64}$/.test(hex)) throw new RangeError('a target is 64 hex digits');
  return BigInt(`0x${hex}`);
}

/**
 * Scales a target by a ratio of two positive doubles (vardiff: observed / wanted share time),
 * exactly up to the ratio's own precision: the ratio is turned into integers with 6 decimals.
 */
export function scaleTarget(target: bigint, numerator: number, denominator: number): bigint {
  if (!(numerator > 0) || !(denominator > 0)) throw new RangeError('a target scales by a positive ratio');
  const scale = 1_000_000;
  return clampTarget((target * BigInt(Math.round(numerator * scale))) / BigInt(Math.max(1, Math.round(denominator * scale))));
}

/**
 * Expected Equihash solutions (each gives one block hash) per unit of difficulty: 2^256 /
 * (powLimit + 1). 8192 on main (powLimit 2^243 - 1), which is Flux's and magicpool's factor; about
 * 17 on regtest. Hashrate in Sol/s is the sum of share difficulties times this over the window.
 */
export function solutionsPerDifficulty(powLimit: bigint): number {
  return 2 ** 256 / (Number(powLimit) + 1);
}
