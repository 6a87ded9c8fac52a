import type { MempoolEntry } from './entry.ts';
import type { TxPool } from './pool.ts';

/**
 * Whether `a` has a lower descendant score than `b` (Core's CompareTxMemPoolEntryByDescendantScore):
 * each entry scores the higher of its own modified fee rate and that of it with its descendants,
 * so a parent is kept for the sake of a well-paying child. Ties evict the newer entry first.
 */
function lowerDescendantScore(a: MempoolEntry, b: MempoolEntry): boolean {
  const [aFee, aSize] = descendantScore(a);
  const [bFee, bSize] = descendantScore(b);
  const left = aFee * BigInt(bSize);
  const right = bFee * BigInt(aSize);
  if (left !== right) return left < right;
  return a.time !== b.time ? a.time > b.time : a.sequence > b.sequence;
}

function descendantScore(e: MempoolEntry): [bigint, number] {
  const own = e.modifiedFee * BigInt(e.sizeWithDescendants);
  const withDescendants = e.modFeesWithDescendants * BigInt(e.vsize);
  return withDescendants > own ? [e.modFeesWithDescendants, e.sizeWithDescendants] : [e.modifiedFee, e.vsize];
}

/**
 * The entry TrimToSize evicts next (with its descendants): the lowest descendant score. A scan:
 * scores change with every descendant added, and eviction only runs while the pool is over its
 * limit.
 */
export function evictionCandidate(pool: TxPool): MempoolEntry | undefined {
  let worst: MempoolEntry | undefined;
  for (const e of pool.entries()) if (!worst || lowerDescendantScore(e, worst)) worst = e;
  return worst;
}
