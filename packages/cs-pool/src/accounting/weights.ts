/**
 * Share weights as scaled integers (docs/pool.md, "Share weights"). A share weighs its difficulty,
 * powLimit / target, the unit in which the PPLNS window is also counted; it is kept as an integer
 * number of 10^-40 difficulty units, rounded to the nearest. Why this form:
 *
 * - Work 2^256 / target as an integer (what the pool stored before) floors away up to one whole
 *   hash per share: 1.7 became 1 at regtest difficulty 0.1, a 40 % error.
 * - Exact fractions powLimit / target need a common denominator over every distinct target in a
 *   window, and vardiff makes a new target at each change: the denominators grow with the pool.
 * - Rounded to 10^-40, a difficulty written as a decimal (ports, `d=` passwords, vardiff bounds) of
 *   up to 40 decimals comes back exactly: its target is floor(powLimit / d), which moves
 *   powLimit / target by less than d² / powLimit (below 10^-43 for any d under 10^15 on every
 *   network), far less than half a unit. Any other target (vardiff steps, suggest_target, a target
 *   capped at 2^256 - 1) is off by at most half a unit, 0.5·10^-40.
 */
import { parseDecimal } from '@cs/stratum';

/** Weight units per difficulty unit. */
export const WEIGHT_SCALE = 10n ** 40n;

/** powLimit / target in units of 10^-40, rounded to the nearest (halves up). */
export function weightOfTarget(target: bigint, powLimit: bigint): bigint {
  if (target <= 0n) throw new RangeError('a target is positive');
  return (2n * powLimit * WEIGHT_SCALE + target) / (2n * target);
}

/**
 * The PPLNS window, `factor` (a decimal, -pplnsfactor) times the network difficulty at the block,
 * in weight units, rounded to the nearest.
 */
export function pplnsWindow(networkWeight: bigint, factor: string | number): bigint {
  const { digits, scale } = parseDecimal(factor);
  const den = 10n ** scale;
  return (2n * networkWeight * digits + den) / (2n * den);
}

/**
 * Records written before weights held `work`, floor((2^256 - 1) / target) expected hashes; read
 * back as a weight, that is work × powLimit / 2^256 (their truncation, at most one hash per share,
 * stays: the target is gone).
 */
export function weightOfLegacyWork(work: bigint, powLimit: bigint): bigint {
  return (2n * work * powLimit * WEIGHT_SCALE + (1n << 256n)) / (1n << 257n);
}
