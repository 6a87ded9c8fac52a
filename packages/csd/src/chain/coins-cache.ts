import type { Table } from '../storage/database.ts';
import { CoinTable, KEY_BYTES } from './coin-table.ts';
import { decodeCoin, encodeCoinScratch, type Coin } from './coins.ts';

/** A coin the database does not hold: spending it only forgets it. 'F', as the writer's batches carry it. */
const FRESH = 0x46;
/** A coin that replaces whatever the database holds under its key ('D'). */
const DIRTY = 0x44;
/** A coin the database holds that is spent: the flush removes it. Its value is empty. */
const SPENT = 0x53;
const NO_VALUE = new Uint8Array(0);

/**
 * Unwritten changes to the UTXO set in front of its LMDB table (Core's CCoinsViewCache), so that
 * catching up writes a batch of blocks' coins in one transaction instead of touching thousands of
 * random B-tree pages per block. Coins created and spent between two flushes never reach the
 * database at all. The changes live in a CoinTable, outside the JavaScript heap: a million cached
 * coins cost the garbage collector nothing, and the memory they hold is known exactly.
 * Callers name coins by their coin key (coins.ts) read as latin1, one character per byte.
 */
export class CoinsCache {
  private entries: CoinTable;
  /** Changes handed to a second thread to write (detach), read through until they are committed. */
  private writing: CoinTable | null = null;
  private readonly key = Buffer.alloc(KEY_BYTES);

  /** `maxBytes` (-dbcache) bounds the memory of the unwritten changes: past it, the cache is `full`. */
  constructor(
    private readonly table: Table,
    private readonly maxBytes = Number.POSITIVE_INFINITY,
  ) {
    this.entries = new CoinTable(maxBytes);
  }

  /** Memory held by the unwritten changes, not counting those being written. */
  get bytes(): number {
    return this.entries.bytes;
  }

  /** The unwritten changes fill the memory they may take: time to write them. */
  get full(): boolean {
    return this.entries.full;
  }

  get size(): number {
    return this.entries.size;
  }

  /**
   * Expects about `coins` changes before the next write (a -reindex rebuilding a set of that
   * size): the cache takes the memory for them now, within its bound, instead of growing to it.
   */
  reserve(coins: number): void {
    this.entries.reserve(coins);
  }

  /** The unspent coin under `key` as of the last applied block, from the cache or the table. */
  get(key: Uint8Array): Coin | undefined {
    // One probe per table: a spent coin's value is empty, and an encoded coin never is.
    const v = this.entries.value(key) ?? this.writing?.value(key);
    if (v === undefined) {
      // The fast read returns LMDB's reused buffer: decoding copies out what it keeps right away.
      const raw = this.table.getBinaryFast(key as Buffer);
      return raw ? decodeCoin(raw) : undefined;
    }
    return v.length === 0 ? undefined : decodeCoin(v);
  }

  /** Records that the coin under the key `k` (read as latin1), which exists, is spent. */
  spend(k: string): void {
    const key = this.keyOf(k);
    // A fresh coin is forgotten; any other is marked for removal from the table.
    if (this.entries.deleteIf(key, FRESH) !== FRESH) this.entries.set(key, SPENT, NO_VALUE);
  }

  /** Records a coin created under the key `k` (read as latin1). */
  add(k: string, coin: Coin): void {
    const key = this.keyOf(k);
    // A key the table may still hold must be overwritten there; only a never-stored coin is fresh.
    // A coin whose removal is being written is fresh too: the table no longer holds it after.
    if (this.entries.set(key, FRESH, encodeCoinScratch(coin)) !== 0) this.entries.setState(key, DIRTY);
  }

  /**
   * Writes every change into the table; call inside the write transaction that also records which
   * block the table now reflects, and not while detached changes are being written.
   */
  write(): void {
    if (this.writing) throw new Error('the coins cache is written while an earlier batch is being written');
    writeChanges(this.table, unpackChanges(packChanges(this.entries)));
  }

  /** Forgets every change (after they were written, or when the table is rebuilt). */
  clear(): void {
    this.entries.clear();
  }

  /**
   * Hands over the changes for another thread to write; until `written` or `restore`, they are
   * read through (beneath the changes made after) but not written again.
   */
  detach(): CoinTable {
    if (this.writing) throw new Error('the coins cache is detached while an earlier batch is being written');
    const changes = this.entries;
    this.writing = changes;
    this.entries = new CoinTable(this.maxBytes);
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
    detached.forEach((key, state, value) => {
      const now = this.entries.find(key);
      if (now === 0) this.entries.set(key, state, value);
      else if (now === FRESH) this.entries.setState(key, DIRTY);
    });
  }

  private keyOf(k: string): Buffer {
    this.key.write(k, 0, KEY_BYTES, 'latin1');
    return this.key;
  }
}

/**
 * Writes cached changes into the table, keys in sorted order so that LMDB fills each page once.
 * `changes` maps a key (read as latin1) to its state letter and coin, or to '' for a removal.
 */
export function writeChanges(table: Table, changes: ReadonlyMap<string, string>): void {
  const keys = [...changes.keys()].sort();
  for (const k of keys) {
    const v = changes.get(k)!;
    const key = Buffer.from(k, 'latin1');
    if (v === '') table.remove(key);
    else table.put(key, Buffer.from(v, 'latin1').subarray(1));
  }
}

/**
 * Cached changes as the bytes of their keys and values in a row, and their lengths: two buffers
 * that are moved to a worker thread, not copied. A value is the state letter and the coin, or
 * nothing for a removal.
 */
export interface PackedChanges {
  readonly bytes: Uint8Array;
  /** Key length, value length, for each change in order. */
  readonly lengths: Uint32Array;
}

export function packChanges(changes: CoinTable): PackedChanges {
  const lengths = new Uint32Array(changes.size * 2);
  let total = 0;
  let i = 0;
  changes.forEach((key, state, value) => {
    lengths[i++] = key.length;
    lengths[i++] = state === SPENT ? 0 : 1 + value.length;
    total += lengths[i - 2] + lengths[i - 1];
  });
  // Not from Buffer's shared pool: the whole ArrayBuffer is handed over.
  const bytes = Buffer.allocUnsafeSlow(total);
  let at = 0;
  changes.forEach((key, state, value) => {
    bytes.set(key, at);
    at += key.length;
    if (state === SPENT) return;
    bytes[at++] = state;
    bytes.set(value, at);
    at += value.length;
  });
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
