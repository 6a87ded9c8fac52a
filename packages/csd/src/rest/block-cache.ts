/**
 * Raw blocks REST served recently, by hash, within a byte budget (least recently used first
 * out). Explorers and wallets ask for the same few blocks (the tip, a block's transactions one by
 * one) again and again, and a read out of LMDB is a copy of the whole block: about 0.2 ms per MB,
 * as much as sending it over loopback HTTP. A block's bytes never change for its hash, so a
 * cached copy cannot go stale. Blocks the cache does not keep are read into pooled buffers.
 */
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Chain } from '../chain/chainstate.ts';
import { BufferPool, type Lease } from './buffer-pool.ts';

const KEPT: Omit<Lease, 'bytes'> = { release() {} };

/** Room for a handful of full-size (4 MB weight) blocks, or the last few dozen ordinary ones. */
export const BLOCK_CACHE_BYTES = 32 * 1024 * 1024;

export class RawBlockCache {
  readonly #chain: Chain;
  readonly #maxBytes: number;
  /** Insertion order is recency: a hit moves its block to the end. */
  readonly #blocks = new Map<string, Buffer>();
  readonly #pool = new BufferPool();
  #bytes = 0;

  constructor(chain: Chain, maxBytes = BLOCK_CACHE_BYTES) {
    this.#chain = chain;
    this.#maxBytes = maxBytes;
  }

  /** The stored block, or undefined when the chain has no data for it. */
  get(entry: BlockIndexEntry): Buffer | undefined {
    const cached = this.#touch(entry);
    if (cached !== undefined) return cached;
    const raw = this.#chain.readRawBlock(entry);
    if (raw !== undefined && raw.length <= this.#maxBytes) this.#keep(entry, raw);
    return raw;
  }

  /**
   * The stored block for a reply that holds on to it until it is sent; call `release` then. A
   * block the cache does not keep comes in a pooled buffer, reused after the release.
   */
  lease(entry: BlockIndexEntry): Lease | undefined {
    const cached = this.#touch(entry);
    if (cached !== undefined) return { bytes: cached, ...KEPT };
    const read: { pooled?: Lease } = {};
    const raw = this.#chain.readRawBlock(entry, (length) =>
      length > this.#maxBytes ? (read.pooled = this.#pool.lease(length)).bytes : Buffer.allocUnsafeSlow(length),
    );
    if (raw === undefined) return undefined;
    if (read.pooled) return read.pooled;
    this.#keep(entry, raw);
    return { bytes: raw, ...KEPT };
  }

  /** The cached block, made the most recently used. */
  #touch(entry: BlockIndexEntry): Buffer | undefined {
    const cached = this.#blocks.get(entry.hashHex);
    if (cached === undefined) return undefined;
    this.#blocks.delete(entry.hashHex);
    this.#blocks.set(entry.hashHex, cached);
    return cached;
  }

  #keep(entry: BlockIndexEntry, raw: Buffer): void {
    this.#blocks.set(entry.hashHex, raw);
    this.#bytes += raw.length;
    for (const [hash, block] of this.#blocks) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#blocks.delete(hash);
      this.#bytes -= block.length;
    }
  }

  /** Bytes held (bounded by the budget). */
  get bytes(): number {
    return this.#bytes;
  }
}
