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
  private entries = new Map<string, string>();
  /** Changes handed to a second thread to write (detach), read through until they are committed. */
  private writing: Map<string, string> | null = null;
  private valueBytes = 0;

  constructor(private readonly table: Table) {}

  /** Estimated heap held by the unwritten changes, not counting those being written. */
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
    const v = this.entries.get(id) ?? this.writing?.get(id);
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
    // A coin whose removal is being written is fresh too: the table no longer holds it after.
    const state = before === undefined ? FRESH : DIRTY;
    if (before !== undefined) this.valueBytes -= before.length;
    const v = coinToLatin1(state, coin);
    this.valueBytes += v.length;
    this.entries.set(k, v);
  }

  /**
   * Writes every change into the table; call inside the write transaction that also records which
   * block the table now reflects, and not while detached changes are being written.
   */
  write(): void {
    if (this.writing) throw new Error('the coins cache is written while an earlier batch is being written');
    writeChanges(this.table, this.entries);
  }

  /** Forgets every change (after they were written, or when the table is rebuilt). */
  clear(): void {
    this.entries.clear();
    this.valueBytes = 0;
  }

  /**
   * Hands over the changes for another thread to write; until `written` or `restore`, they are
   * read through (beneath the changes made after) but not written again.
   */
  detach(): Map<string, string> {
    if (this.writing) throw new Error('the coins cache is detached while an earlier batch is being written');
    const changes = this.entries;
    this.writing = changes;
    this.entries = new Map();
    this.valueBytes = 0;
    return changes;
  }

  /** The detached changes are committed: the table holds them now. */
  written(): void {
    this.writing = null;
  }

  /**
   * The detached changes were not written: they become unwritten changes again, beneath the ones
   * made since. A coin added since as fresh (the table would not have held it once the batch
   * landed) may still be in the table now, so it is overwritten there instead.
   */
  restore(): void {
    const detached = this.writing;
    if (!detached) return;
    this.writing = null;
    for (const [k, old] of detached) {
      const now = this.entries.get(k);
      if (now === undefined) {
        this.entries.set(k, old);
        this.valueBytes += old.length;
      } else if (now[0] === FRESH) {
        this.entries.set(k, DIRTY + now.slice(1));
      }
    }
  }
}

/** Writes cached changes into the table, keys in sorted order so that LMDB fills each page once. */
export function writeChanges(table: Table, changes: ReadonlyMap<string, string>): void {
  const keys = [...changes.keys()].sort();
  for (const k of keys) {
    const v = changes.get(k)!;
    const key = Buffer.from(k, 'latin1');
    if (v === SPENT) table.remove(key);
    else table.put(key, Buffer.from(v, 'latin1').subarray(1));
  }
}

/**
 * Cached changes as the bytes of their keys and values in a row, and their lengths: two buffers
 * that are moved to a worker thread, not copied. A structured clone of a million map entries, or
 * of one joined string, would cost the connecting thread seconds (measured).
 */
export interface PackedChanges {
  readonly bytes: Uint8Array;
  /** Key length, value length, for each change in order. */
  readonly lengths: Uint32Array;
}

export function packChanges(changes: ReadonlyMap<string, string>): PackedChanges {
  const lengths = new Uint32Array(changes.size * 2);
  let total = 0;
  let i = 0;
  for (const [k, v] of changes) {
    lengths[i++] = k.length;
    lengths[i++] = v.length;
    total += k.length + v.length;
  }
  // Not from Buffer's shared pool: the whole ArrayBuffer is handed over.
  const bytes = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (const [k, v] of changes) {
    at += bytes.write(k, at, 'latin1');
    at += bytes.write(v, at, 'latin1');
  }
  return { bytes, lengths };
}

export function unpackChanges({ bytes, lengths }: PackedChanges): Map<string, string> {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const changes = new Map<string, string>();
  let at = 0;
  for (let i = 0; i < lengths.length; i += 2) {
    const k = buf.toString('latin1', at, (at += lengths[i]));
    changes.set(k, buf.toString('latin1', at, (at += lengths[i + 1])));
  }
  return changes;
}

export function latin1(key: Uint8Array): string {
  return Buffer.from(key.buffer, key.byteOffset, key.byteLength).toString('latin1');
}
