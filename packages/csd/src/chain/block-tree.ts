import { type BlockHeader, hashToHex } from '@cs/consensus';
import type { ActiveChain } from './active-chain.ts';
import { BlockIndexEntry, BlockStatus, FAILED_MASK, type StoredIndexRecord, betterTip, findFork } from './block-index.ts';

export interface ChainTip {
  readonly entry: BlockIndexEntry;
  readonly branchLength: number;
  readonly status: 'active' | 'valid-fork' | 'valid-headers' | 'headers-only' | 'invalid';
}

/**
 * Every block index entry the node knows, by hash, and what choosing the tip needs of them: which
 * ones can be connected, which of those have more work than the tip, and the best header. Changes
 * nothing in the database: the chain writes the entries' records.
 */
export class BlockTree {
  private readonly byHash = new Map<string, BlockIndexEntry>();
  /** Entries with data that may become the tip: more work than the tip, not known invalid. */
  private readonly candidates = new Set<BlockIndexEntry>();
  /**
   * Entries whose block and every ancestor's block are stored (Core's nChainTx != 0): only these
   * can be connected. Blocks downloaded out of order wait in `unlinked` under their parent.
   */
  private readonly linked = new Set<BlockIndexEntry>();
  private readonly unlinked = new Map<BlockIndexEntry, BlockIndexEntry[]>();
  private sequence = 0;
  /** Cached; recomputed when it turns out invalid, extended as better headers arrive. */
  private bestHeaderEntry: BlockIndexEntry | null = null;

  constructor(private readonly active: ActiveChain) {}

  get size(): number {
    return this.byHash.size;
  }

  get(hashHex: string): BlockIndexEntry | undefined {
    return this.byHash.get(hashHex);
  }

  /** In the order the entries were added: for a loaded tree, height order. */
  values(): IterableIterator<BlockIndexEntry> {
    return this.byHash.values();
  }

  /** A new entry for `header` on top of `prev`, not yet added. */
  child(header: BlockHeader, prev: BlockIndexEntry | null): BlockIndexEntry {
    return BlockIndexEntry.child(header, prev, this.sequence++);
  }

  /**
   * Adds the entry of a stored record, which keeps the sequence it was given; records come in
   * height order. Answers null, adding nothing, for a record whose parent is not in the tree.
   */
  restore(rec: StoredIndexRecord): BlockIndexEntry | null {
    const prev = rec.height === 0 ? null : (this.byHash.get(hashToHex(rec.header.prevHash)) ?? null);
    if (rec.height > 0 && !prev) return null;
    const e = BlockIndexEntry.child(rec.header, prev, rec.sequence);
    e.status = rec.status;
    e.txCount = rec.txCount;
    this.add(e);
    this.sequence = Math.max(this.sequence, rec.sequence + 1);
    return e;
  }

  add(e: BlockIndexEntry): void {
    this.byHash.set(e.hashHex, e);
  }

  /** The genesis block: stored, with no ancestor to wait for. */
  addGenesis(e: BlockIndexEntry): void {
    this.add(e);
    this.linked.add(e);
  }

  clear(): void {
    this.byHash.clear();
    this.candidates.clear();
    this.linked.clear();
    this.unlinked.clear();
  }

  /** After load: links every stored block and finds the candidates among all entries. */
  indexLoaded(): void {
    // In height order (the map's insertion order), so parents are linked before their children.
    for (const e of this.byHash.values()) {
      if (e.hasData()) this.linkData(e);
      this.considerCandidate(e);
    }
  }

  /** Whether `e`'s block and all its ancestors' blocks are stored, so it can be connected. */
  hasChainData(e: BlockIndexEntry): boolean {
    return this.linked.has(e);
  }

  /** Records that `e`'s block is stored, and links the waiting descendants it completes. */
  linkData(e: BlockIndexEntry): void {
    if (e.prev && !this.linked.has(e.prev)) {
      const waiting = this.unlinked.get(e.prev);
      if (waiting) waiting.push(e);
      else this.unlinked.set(e.prev, [e]);
      return;
    }
    this.linkFrom(e);
  }

  /**
   * A loaded UTXO snapshot's base: its chain state is known without its block or any ancestor's,
   * so the blocks after it can connect (Core gives it a chain transaction count from the snapshot).
   */
  linkSnapshotBase(e: BlockIndexEntry): void {
    this.linkFrom(e);
  }

  /** Links `e` and the waiting descendants it completes. */
  private linkFrom(e: BlockIndexEntry): void {
    const stack = [e];
    while (stack.length > 0) {
      const next = stack.pop()!;
      this.linked.add(next);
      this.considerCandidate(next);
      const children = this.unlinked.get(next);
      if (children) {
        this.unlinked.delete(next);
        stack.push(...children);
      }
    }
  }

  considerCandidate(e: BlockIndexEntry): void {
    if (this.bestHeaderEntry && !e.isFailed() && betterTip(e, this.bestHeaderEntry)) this.bestHeaderEntry = e;
    if (this.linked.has(e) && !e.isFailed() && betterTip(e, this.active.tip)) this.candidates.add(e);
  }

  /** After the tip moved back or failure marks changed: any entry may be a candidate again. */
  considerAll(): void {
    for (const e of this.byHash.values()) this.considerCandidate(e);
  }

  dropCandidate(e: BlockIndexEntry): void {
    this.candidates.delete(e);
  }

  /** The most-work candidate, forgetting those that no longer beat the tip. */
  bestCandidate(): BlockIndexEntry | undefined {
    let best: BlockIndexEntry | undefined;
    for (const e of this.candidates) {
      if (e.isFailed() || !betterTip(e, this.active.tip)) {
        this.candidates.delete(e);
        continue;
      }
      if (!best || betterTip(e, best)) best = e;
    }
    return best;
  }

  /** The most-work block header not known to be invalid. */
  get bestHeader(): BlockIndexEntry {
    if (!this.bestHeaderEntry || this.bestHeaderEntry.isFailed()) {
      let best = this.active.tip;
      for (const e of this.byHash.values()) if (!e.isFailed() && betterTip(e, best)) best = e;
      this.bestHeaderEntry = best;
    }
    return this.bestHeaderEntry;
  }

  /**
   * Marks `entry` invalid and every descendant as having an invalid ancestor; answers the entries
   * changed, whose records the caller writes.
   */
  fail(entry: BlockIndexEntry): BlockIndexEntry[] {
    entry.status |= BlockStatus.FAILED_VALID;
    const changed = [entry];
    for (const e of this.descendants(entry)) {
      if (e.status & FAILED_MASK) continue;
      e.status |= BlockStatus.FAILED_CHILD;
      changed.push(e);
    }
    for (const e of changed) this.candidates.delete(e);
    return changed;
  }

  /** Clears the failure marks of `entry`, its ancestors and its descendants; answers the entries changed. */
  clearFailures(entry: BlockIndexEntry): BlockIndexEntry[] {
    const changed: BlockIndexEntry[] = [];
    const related: BlockIndexEntry[] = [...this.descendants(entry)];
    for (let e: BlockIndexEntry | null = entry; e; e = e.prev) related.push(e);
    for (const e of related) {
      if (e.status & FAILED_MASK) {
        e.status &= ~FAILED_MASK;
        changed.push(e);
      }
    }
    return changed;
  }

  /** Every entry that has `entry` as a proper ancestor. */
  private descendants(entry: BlockIndexEntry): BlockIndexEntry[] {
    const children = new Map<BlockIndexEntry, BlockIndexEntry[]>();
    for (const e of this.byHash.values()) {
      if (!e.prev || e.height <= entry.height) continue;
      const list = children.get(e.prev);
      if (list) list.push(e);
      else children.set(e.prev, [e]);
    }
    const out: BlockIndexEntry[] = [];
    const stack = [entry];
    while (stack.length) {
      for (const child of children.get(stack.pop()!) ?? []) {
        out.push(child);
        stack.push(child);
      }
    }
    return out;
  }

  /** Every branch tip, as getchaintips reports them. */
  chainTips(): ChainTip[] {
    const tip = this.active.tip;
    const hasChild = new Set<BlockIndexEntry>();
    for (const e of this.byHash.values()) if (e.prev) hasChild.add(e.prev);
    const tips: ChainTip[] = [];
    for (const e of this.byHash.values()) {
      if (hasChild.has(e) && e !== tip) continue;
      const fork = findFork(e, tip);
      let status: ChainTip['status'];
      if (this.active.contains(e)) status = 'active';
      else if (e.isFailed()) status = 'invalid';
      else if (!e.hasData()) status = 'headers-only';
      else if (e.status & BlockStatus.VALID_SCRIPTS) status = 'valid-fork';
      else status = 'valid-headers';
      tips.push({ entry: e, branchLength: e.height - fork.height, status });
    }
    return tips.sort((a, b) => b.entry.height - a.entry.height);
  }
}
