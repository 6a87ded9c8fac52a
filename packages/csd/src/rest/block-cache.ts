/**
 * Raw blocks REST served recently, by hash, within a byte budget (least recently used first
 * out). Explorers and wallets ask for the same few blocks (the tip, a block's transactions one by
 * one) again and again, and lmdb-js copies a large value twice on every read: about 0.2 ms per
 * MB, as much as sending it over loopback HTTP. A block's bytes never change for its hash, so a
 * cached copy cannot go stale.
 */
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Chain } from '../chain/chainstate.ts';

/** Room for a handful of full-size (4 MB weight) blocks, or the last few dozen ordinary ones. */
export const BLOCK_CACHE_BYTES = 32 * 1024 * 1024;

export class RawBlockCache {
  readonly #chain: Chain;
  readonly #maxBytes: number;
  /** Insertion order is recency: a hit moves its block to the end. */
  readonly #blocks = new Map<string, Buffer>();
  #bytes = 0;

  constructor(chain: Chain, maxBytes = BLOCK_CACHE_BYTES) {
    this.#chain = chain;
    this.#maxBytes = maxBytes;
  }

  /** The stored block, or undefined when the chain has no data for it. */
  get(entry: BlockIndexEntry): Buffer | undefined {
    const cached = this.#blocks.get(entry.hashHex);
    if (cached !== undefined) {
      this.#blocks.delete(entry.hashHex);
      this.#blocks.set(entry.hashHex, cached);
      return cached;
    }
    const raw = this.#chain.readRawBlock(entry);
    if (raw === undefined || raw.length > this.#maxBytes) return raw;
    this.#blocks.set(entry.hashHex, raw);
    this.#bytes += raw.length;
    for (const [hash, block] of this.#blocks) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#blocks.delete(hash);
      this.#bytes -= block.length;
    }
    return raw;
  }

  /** Bytes held (bounded by the budget). */
  get bytes(): number {
    return this.#bytes;
  }
}
