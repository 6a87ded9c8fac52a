import type { Table } from '../storage/database.ts';
import { coinFromLatin1, coinToLatin1, decodeCoin, type Coin } from './coins.ts';

/**
 * Heap cost of one entry beyond its value's characters: the 36-character key, the value string's
 * header and the Map's slot. A million entries with 34-character values measured 165 bytes each
 * (heap used, after gc); this overestimates it, so -dbcache bounds the cache rather than hopes to.
 */
const ENTRY_OVERHEAD = 176;

/** A coin the database does not hold: spending it only forgets it. */
const FRESH = 'F';
/** A coin that replaces whatever the database holds under its key. */
const DIRTY = 'D';
/** A coin the database holds that is spent: the flush removes it. */
const SPENT = '';

/**
 * Unwritten changes to the UTXO set in front of its LMDB table (Core's CCoinsViewCache), so that
 * catching up writes a batch of blocks' coins in one transaction instead of touching thousands of
 * random B-tree pages per block. Coins created and spent between two flushes never reach the
 * database at all. Keys are coin keys (coins.ts) read as latin1, one character per byte; values
 * are a state letter followed by the encoded coin, also latin1: strings are the most compact
 * thing V8 keeps, and a million of them is what a large sync holds.
 */
export class CoinsCache {
  private readonly entries = new Map<string, string>();
  private valueBytes = 0;

  constructor(private readonly table: Table) {}

  /** Estimated heap held by the unwritten changes. */
  get bytes(): number {
    return this.entries.size * ENTRY_OVERHEAD + this.valueBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * The unspent coin under `key` as of the last applied block, from the cache or the table; `id`
   * is the key read as latin1, when the caller has it already.
   */
  get(key: Uint8Array, id: string = latin1(key)): Coin | undefined {
    const v = this.entries.get(id);
    if (v === undefined) {
      // The fast read returns LMDB's reused buffer: decoding copies out what it keeps right away.
      const raw = this.table.getBinaryFast(key as Buffer);
      return raw ? decodeCoin(raw) : undefined;
    }
    return v === SPENT ? undefined : coinFromLatin1(v, 1);
  }

  /** Records that the coin under the key `k` (read as latin1), which exists, is spent. */
  spend(k: string): void {
    const v = this.entries.get(k);
    if (v !== undefined) this.valueBytes -= v.length;
    if (v !== undefined && v[0] === FRESH) this.entries.delete(k);
    else this.entries.set(k, SPENT);
  }

  /** Records a coin created under the key `k` (read as latin1). */
  add(k: string, coin: Coin): void {
    const before = this.entries.get(k);
    // A key the table may still hold must be overwritten there; only a never-stored coin is fresh.
    const state = before === undefined ? FRESH : DIRTY;
    if (before !== undefined) this.valueBytes -= before.length;
    const v = coinToLatin1(state, coin);
    this.valueBytes += v.length;
    this.entries.set(k, v);
  }

  /**
   * Writes every change into the table; call inside the write transaction that also records which
   * block the table now reflects. Keys go in sorted order, so LMDB fills each page once.
   */
  write(): void {
    const keys = [...this.entries.keys()].sort();
    for (const k of keys) {
      const v = this.entries.get(k)!;
      const key = Buffer.from(k, 'latin1');
      if (v === SPENT) this.table.remove(key);
      else this.table.put(key, Buffer.from(v, 'latin1').subarray(1));
    }
  }

  /** Forgets every change (after they were written, or when the table is rebuilt). */
  clear(): void {
    this.entries.clear();
    this.valueBytes = 0;
  }
}

export function latin1(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}
