/**
 * Core's GetNetworkHashPS: the chain work of a span of blocks over the time it took.
 *
 * Chain work counts expected block hashes (2^256 / (target + 1) per block). Each Equihash
 * solution yields one block hash to test against the target, so for this chain the result is in
 * solutions per second (Sol/s), the unit Equihash and ZelHash miners report.
 */
import type { BlockIndexEntry } from '../chain/block-index.ts';

/**
 * The estimate over the `lookup` blocks before `end` (fewer when the chain is shorter). 0 for the
 * genesis block, or when every block in the span has the same time (no time elapsed to divide by).
 */
export function networkHashPerSecond(end: BlockIndexEntry, lookup: number): number {
  if (end.height === 0) return 0;
  const span = Math.min(lookup, end.height);
  let start = end;
  let minTime = end.time;
  let maxTime = end.time;
  // Block times are not monotonic: the span's duration is its latest minus its earliest time.
  for (let i = 0; i < span; i++) {
    start = start.prev!;
    minTime = Math.min(minTime, start.time);
    maxTime = Math.max(maxTime, start.time);
  }
  if (minTime === maxTime) return 0;
  return Number(end.chainWork - start.chainWork) / (maxTime - minTime);
}
