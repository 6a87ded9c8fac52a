/**
 * LWMA-3 difficulty (zawy12's linearly weighted moving average, version 3), as Flux runs it
 * (fluxd Lwma3CalculateNextWorkRequired; N = 60 blocks, T = 120 s).
 *
 * Given blocks b_0 .. b_N (b_N the tip, b_0 the block N before it), with k = N(N+1)T/2:
 *
 *   ts_0 = time(b_0);  ts_i = time(b_i) if time(b_i) > ts_{i-1}, else ts_{i-1} + 1
 *   st_i = min(6T, ts_i - ts_{i-1})                      (so 1 <= st_i <= 6T)
 *   t    = sum_{i=1..N} i * st_i                         (recent solvetimes weigh most)
 *   next = t * sum_{i=1..N} floor(target(b_i) / (k N))   (k N: the weights' sum times N)
 *
 * then next is clamped to [67%, 150%] of target(b_N), each bound computed as target(b_N) * p / 100,
 * and to powLimit; the result is next's compact form. With every st_i = T, t = k and next is the
 * average target. Forcing each timestamp above the previous one keeps out-of-order times from
 * producing negative solvetimes. While the chain has fewer than N+1 blocks the answer is powLimit.
 *
 * The sum of targets times the solvetimes cannot pass 2^256 for any of our networks' limits, and
 * is taken modulo 2^256 as arith_uint256 does. The clamp bounds are computed exactly: fluxd's
 * arith_uint256 product target × 150 wraps once the target passes 2^256 / 150 (about 2^248.8),
 * which the test network's powLimit (2^251 - 1) does, and the wrapped bound would pin its
 * difficulty several times above the easiest forever (Flux's testnet escapes through a
 * minimum-difficulty rule this chain does not have). Below that size, which covers main, the
 * results are fluxd's bit for bit.
 */
import { compactToTarget, targetToCompact } from './target.ts';

const UINT256_MAX = (1n << 256n) - 1n;

export interface LwmaBlock {
  /** Header time (seconds). */
  readonly time: number;
  /** Header compact target. */
  readonly bits: number;
}

export interface LwmaParams {
  /** N: number of solvetimes averaged. */
  readonly window: number;
  /** T: target block spacing in seconds. */
  readonly targetSpacing: number;
  /** Easiest allowed target. */
  readonly powLimit: bigint;
}

/** Flux's window and spacing; the chain parameters add their powLimit. */
export const LWMA3_WINDOW = 60;
export const LWMA3_TARGET_SPACING = 120;

/**
 * The bits required of the block after the last of `blocks`. Pass the chain's last N+1 blocks,
 * oldest first, or the whole chain when it has fewer; blocks before the last N+1 are ignored.
 * Special rules (genesis, testnet minimum difficulty, regtest's no-retarget) belong to the caller.
 */
export function lwma3NextBits(blocks: readonly LwmaBlock[], params: LwmaParams): number {
  const { window: n, targetSpacing: t, powLimit } = params;
  if (!Number.isInteger(n) || n < 1 || !Number.isInteger(t) || t < 1) {
    throw new RangeError('LWMA window and spacing must be positive integers');
  }
  if (blocks.length < n + 1) return targetToCompact(powLimit);
  const first = blocks.length - n - 1;
  const k = BigInt((n * (n + 1) * t) / 2);
  const divisor = k * BigInt(n);

  let previousTimestamp = blocks[first].time;
  let weightedSolvetimes = 0;
  let sumTarget = 0n;
  let lastTarget = 0n;
  for (let j = 1; j <= n; j++) {
    const block = blocks[first + j];
    const timestamp = block.time > previousTimestamp ? block.time : previousTimestamp + 1;
    const solvetime = Math.min(6 * t, timestamp - previousTimestamp);
    previousTimestamp = timestamp;
    weightedSolvetimes += solvetime * j;
    lastTarget = compactToTarget(block.bits).target;
    sumTarget += lastTarget / divisor;
  }

  let next = (BigInt(weightedSolvetimes) * sumTarget) & UINT256_MAX;
  const upper = (lastTarget * 150n) / 100n;
  const lower = (lastTarget * 67n) / 100n;
  if (next > upper) next = upper;
  if (lower > next) next = lower;
  if (next > powLimit) next = powLimit;
  return targetToCompact(next);
}
