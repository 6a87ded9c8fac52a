import {
  type Block,
  type BlockHeader,
  type ChainParams,
  ValidationError,
  checkBlock,
  checkBlockHeader,
  contextualCheckBlock,
  contextualCheckBlockHeader,
  hashToHex,
} from '@cs/consensus';
import type { ChainDatabase } from '../storage/database.ts';
import { type BlockIndexEntry, BlockStatus } from './block-index.ts';
import type { BlockStore } from './block-store.ts';
import type { BlockTree } from './block-tree.ts';
import { nextWorkRequired } from './difficulty.ts';

/**
 * What enters the block tree: headers and blocks that pass the checks that need no UTXO set
 * (Core's AcceptBlockHeader and AcceptBlock), stored and added as entries. Connecting them is
 * the chain's.
 */
export class BlockAcceptor {
  constructor(
    private readonly db: ChainDatabase,
    private readonly store: BlockStore,
    private readonly tree: BlockTree,
    private readonly params: ChainParams,
    private readonly now: () => number,
  ) {}

  /**
   * Headers from a peer (Core's ProcessNewBlockHeaders): each is checked as a block's header is
   * (proof of work, known valid parent, difficulty, time) and stored as a header-only entry, so
   * its block can be downloaded. Stops at the first failure; the headers before it stay.
   */
  acceptHeaders(headers: readonly BlockHeader[]): { readonly last: BlockIndexEntry | null; readonly error: ValidationError | null } {
    const added: BlockIndexEntry[] = [];
    let last: BlockIndexEntry | null = null;
    let error: ValidationError | null = null;
    for (const header of headers) {
      const known = this.tree.get(header.hashHex);
      if (known) {
        if (known.isFailed()) {
          error = new ValidationError('duplicate-invalid', `header ${header.hashHex} is of a block known to be invalid`);
          break;
        }
        last = known;
        continue;
      }
      try {
        const entry = this.tree.child(header, this.checkHeader(header));
        entry.status = BlockStatus.VALID_HEADER;
        this.tree.add(entry);
        this.tree.considerCandidate(entry);
        added.push(entry);
        last = entry;
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        error = e;
        break;
      }
    }
    if (added.length > 0) this.store.writeIndex(added);
    return { last, error };
  }

  /**
   * Core's AcceptBlockHeader + AcceptBlock: header checks (proof of work, parent, difficulty,
   * time), then the block's own checks, then store. A valid header whose block breaks a rule is
   * remembered as invalid, as Core does: submitting it again answers duplicate-invalid without
   * validating it again, getchaintips lists it as invalid and its children are bad-prevblk. Not
   * when the failure may be corruption in transit (a mutated merkle tree or witness): the same
   * header with its real transactions must still be accepted.
   * `stored`: the block was read back from the database (-reindex).
   */
  acceptBlock(block: Block, raw: Uint8Array | undefined, known: BlockIndexEntry | undefined, stored: boolean): BlockIndexEntry {
    const prev = this.checkHeader(block.header);
    const entry = known ?? this.tree.child(block.header, prev);
    try {
      checkBlock(block, this.params, { checkPoW: false });
      contextualCheckBlock(block, prev.height + 1, prev.medianTimePast());
    } catch (e) {
      if (e instanceof ValidationError && !e.corruptionPossible) {
        entry.status |= BlockStatus.VALID_HEADER | BlockStatus.FAILED_VALID;
        this.store.writeIndex([entry]);
        this.tree.add(entry);
      }
      throw e;
    }

    entry.status |= BlockStatus.VALID_HEADER | BlockStatus.HAVE_DATA;
    entry.txCount = block.txs.length;
    // A block read back from the database is not written again, and its index record goes into
    // the transaction that connects it: a commit per block less.
    if (!stored) {
      const bytes = raw ?? block.encode();
      this.db.write(() => {
        this.store.putBlock(entry, bytes);
        this.store.putIndex(entry);
      });
    }
    this.tree.add(entry);
    this.tree.linkData(entry);
    this.tree.considerCandidate(entry);
    return entry;
  }

  /** A header's own checks and those against its parent (known and valid, difficulty, time); answers the parent. */
  private checkHeader(header: BlockHeader): BlockIndexEntry {
    checkBlockHeader(header, this.params);
    const prev = this.tree.get(hashToHex(header.prevHash));
    if (!prev) throw new ValidationError('prev-blk-not-found', 'previous block is unknown');
    if (prev.isFailed()) throw new ValidationError('bad-prevblk', 'previous block is invalid');
    contextualCheckBlockHeader(
      header,
      { expectedBits: nextWorkRequired(prev, this.params), medianTimePast: prev.medianTimePast(), now: this.now() },
      this.params,
    );
    return prev;
  }
}
