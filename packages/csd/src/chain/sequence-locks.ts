import { SEQUENCE_LOCKTIME_DISABLE_FLAG, SEQUENCE_LOCKTIME_MASK, SEQUENCE_LOCKTIME_TYPE_FLAG, type TxData } from '@cs/consensus';
import type { BlockIndexEntry } from './block-index.ts';

/** BIP68 time locks count in units of 2^9 = 512 seconds. */
const SEQUENCE_LOCKTIME_GRANULARITY = 9;

/**
 * The last height and median time past at which a transaction is still locked (Core's
 * CalculateSequenceLocks result, which keeps nLockTime's "last invalid" semantics): -1 means
 * no lock of that kind.
 */
export interface SequenceLock {
  readonly minHeight: number;
  readonly minTime: number;
}

/**
 * BIP68 relative lock-times of `tx` in a block built on `parent`: for version 2 and up, each input
 * whose sequence does not disable it waits a number of blocks, or of 512-second units of median
 * time past, after the block that created the coin it spends. `prevHeights[i]` is the height
 * of the block that created the coin input i spends; the mempool passes parent.height + 1 for
 * coins of unconfirmed transactions, assuming they confirm in that same next block.
 */
export function sequenceLocks(tx: TxData, prevHeights: readonly number[], parent: BlockIndexEntry): SequenceLock {
  let minHeight = -1;
  let minTime = -1;
  // Versions below 2 predate BIP68: their sequence numbers carry no meaning. The version is
  // compared unsigned, as Core's uint32 nVersion and as OP_CHECKSEQUENCEVERIFY does: a version
  // such as 0xffffffff (-1 as the signed field) is above 2 and its locks apply.
  if (tx.version >>> 0 < 2) return { minHeight, minTime };
  tx.inputs.forEach((input, i) => {
    const seq = input.sequence;
    if (seq & SEQUENCE_LOCKTIME_DISABLE_FLAG) return;
    const coinHeight = prevHeights[i];
    if (seq & SEQUENCE_LOCKTIME_TYPE_FLAG) {
      // Time locks count from the median time past of the block before the coin's block.
      const base = parent.ancestor(Math.max(coinHeight - 1, 0));
      const coinTime = base ? base.medianTimePast() : 0;
      minTime = Math.max(minTime, coinTime + ((seq & SEQUENCE_LOCKTIME_MASK) << SEQUENCE_LOCKTIME_GRANULARITY) - 1);
    } else {
      minHeight = Math.max(minHeight, coinHeight + (seq & SEQUENCE_LOCKTIME_MASK) - 1);
    }
  });
  return { minHeight, minTime };
}

/** Core's EvaluateSequenceLocks: whether a block on `parent` may include the locked transaction. */
export function sequenceLocksSatisfied(lock: SequenceLock, parent: BlockIndexEntry): boolean {
  return lock.minHeight < parent.height + 1 && lock.minTime < parent.medianTimePast();
}
