import type { BlockIndexEntry } from './block-index.ts';

/**
 * The active chain as an array by height (Core's CChain): whether a block is on it, and which
 * block is at a height, are one lookup each.
 */
export class ActiveChain {
  private entries: BlockIndexEntry[] = [];

  get tip(): BlockIndexEntry {
    return this.entries[this.entries.length - 1];
  }

  get height(): number {
    return this.entries.length - 1;
  }

  at(height: number): BlockIndexEntry | undefined {
    return this.entries[height];
  }

  contains(e: BlockIndexEntry): boolean {
    return this.entries[e.height] === e;
  }

  /** The active-chain successor of an active-chain entry. */
  next(e: BlockIndexEntry): BlockIndexEntry | undefined {
    return this.contains(e) ? this.entries[e.height + 1] : undefined;
  }

  /** Makes the chain end at `tip`, whatever it held before. */
  setTip(tip: BlockIndexEntry): void {
    const chain: BlockIndexEntry[] = new Array(tip.height + 1);
    for (let e: BlockIndexEntry | null = tip; e; e = e.prev) chain[e.height] = e;
    this.entries = chain;
  }

  /** `entry`, a child of the tip, was connected. */
  extend(entry: BlockIndexEntry): void {
    this.entries[entry.height] = entry;
    this.entries.length = entry.height + 1;
  }

  /** The tip was disconnected. */
  dropTip(): void {
    this.entries.length = this.height;
  }

  clear(): void {
    this.entries = [];
  }

  /**
   * A block locator (Core's GetLocator): the hashes of `from` and its ancestors, dense for the
   * last ten, then doubling the step back to genesis.
   */
  locator(from: BlockIndexEntry = this.tip): Uint8Array[] {
    const hashes: Uint8Array[] = [];
    let step = 1;
    for (let e: BlockIndexEntry | null = from; e; ) {
      hashes.push(e.hash);
      if (e.height === 0) break;
      const height = Math.max(0, e.height - step);
      e = this.contains(e) ? this.entries[height] : e.ancestor(height);
      if (hashes.length > 10) step *= 2;
    }
    return hashes;
  }
}
