/**
 * Payout schemes as pure functions: who gets what of a block's reward. Amounts are base units
 * (bigint), weights are share difficulty in units of 10^-40 (weights.ts). Nothing is lost to
 * rounding: floor division leaves a few base units, which go to the largest contributor.
 */

export type PayoutScheme = 'pplns' | 'prop' | 'solo';

export interface WeightedShare {
  readonly address: string;
  /** powLimit / target in units of 10^-40 (weights.ts). */
  readonly weight: bigint;
}

/** address -> base units. */
export type Credits = Map<string, bigint>;

/** The pool fee in basis points (1% = 100) of the reward, rounded down. */
export function feeOf(reward: bigint, feeBasisPoints: number): bigint {
  return (reward * BigInt(feeBasisPoints)) / 10_000n;
}

/**
 * Splits `amount` in proportion to the weights, each part rounded down; the few units left go to
 * the heaviest, and among equals to the address that sorts first, so the result does not depend
 * on the order the shares were read in.
 */
export function splitByWeight(amount: bigint, weights: Map<string, bigint>): Credits {
  const credits: Credits = new Map();
  let total = 0n;
  for (const w of weights.values()) total += w;
  if (total === 0n || amount === 0n) return credits;
  let given = 0n;
  let heaviest = '';
  let heaviestWeight = -1n;
  for (const [address, w] of weights) {
    const part = (amount * w) / total;
    credits.set(address, part);
    given += part;
    if (w > heaviestWeight || (w === heaviestWeight && address < heaviest)) {
      heaviest = address;
      heaviestWeight = w;
    }
  }
  credits.set(heaviest, credits.get(heaviest)! + amount - given);
  return credits;
}

function sumByAddress(shares: Iterable<WeightedShare>): Map<string, bigint> {
  const weights = new Map<string, bigint>();
  for (const s of shares) weights.set(s.address, (weights.get(s.address) ?? 0n) + s.weight);
  return weights;
}

/**
 * PPLNS: the last shares (newest first, ending at the block's share) until their weight reaches
 * `window`; the share that crosses the line counts only with the part inside. No round boundary.
 * When the pool has fewer shares than the window (a young or small pool), the shares there are
 * split the whole reward: unlike miningcore, nothing stays undistributed.
 */
export function pplnsCredits(amount: bigint, newestFirst: Iterable<WeightedShare>, window: bigint): Credits {
  const inside: WeightedShare[] = [];
  let sum = 0n;
  for (const s of newestFirst) {
    if (sum >= window) break;
    const weight = sum + s.weight > window ? window - sum : s.weight;
    inside.push({ address: s.address, weight });
    sum += weight;
  }
  return splitByWeight(amount, sumByAddress(inside));
}

/** PROP: the round's shares, each in proportion to its weight. */
export function propCredits(amount: bigint, roundShares: Iterable<WeightedShare>): Credits {
  return splitByWeight(amount, sumByAddress(roundShares));
}

/** SOLO: everything to the finder. */
export function soloCredits(amount: bigint, finder: string): Credits {
  return new Map([[finder, amount]]);
}
