/**
 * The address index's confirmed records, in three tables (storage/database.ts):
 *
 * - `addrsummary`: address key → i64le received ‖ i64le sent ‖ u32le transactions, running totals
 *   kept per address, so balance, totals and the transaction count are one read whatever the
 *   address's history;
 * - `addrindex`: address key ‖ be32(n) → txid in display order (byte-reversed, as hex shows it, so
 *   a page's txids need no reversing), the address's n-th confirmed transaction (n from 0, oldest
 *   first). Blocks join and leave the active chain only at its tip, so an address's entries
 *   are only ever appended or taken off the end: n is the entry's position in the history, which
 *   makes any page one range read of its own length (`page`), however long the history and
 *   however deep the page;
 * - `addrundo`: block hash → the block's AddressDelta list, which is what disconnecting the block
 *   subtracts again.
 *
 * Entries and totals change together in the write transaction that moves the index's marker
 * (indexes/sync.ts), so a kill at any moment leaves them in agreement.
 */
import type { Block } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { BlockUndo } from '../chain/undo.ts';
import type { Tables } from '../storage/database.ts';
import { blockAddressDeltas, decodeDeltas, encodeDeltas, type AddressDelta } from './address-deltas.ts';
import type { BlockIndexer } from './sync.ts';

/**
 * The format of the records above; 2 replaced the entries' be32(height) ‖ be32(position) suffix
 * by the position in the history, and their txids' internal byte order by the display order.
 * IndexSync rebuilds an index of another version.
 */
export const ADDRESS_INDEX_VERSION = 2;

/** An address's confirmed activity (base units). */
export interface AddressSummary {
  readonly received: bigint;
  readonly sent: bigint;
  /** Distinct confirmed transactions paying or spending the address. */
  readonly txCount: number;
}

const EMPTY: AddressSummary = { received: 0n, sent: 0n, txCount: 0 };
const SUMMARY_SIZE = 8 + 8 + 4;

function entryKey(key: Buffer, n: number): Buffer {
  const k = Buffer.allocUnsafe(36);
  key.copy(k, 0);
  k.writeUInt32BE(n, 32);
  return k;
}

function encodeSummary(s: AddressSummary): Buffer {
  const b = Buffer.allocUnsafe(SUMMARY_SIZE);
  b.writeBigInt64LE(s.received, 0);
  b.writeBigInt64LE(s.sent, 8);
  b.writeUInt32LE(s.txCount, 16);
  return b;
}

function decodeSummary(b: Buffer): AddressSummary {
  return { received: b.readBigInt64LE(0), sent: b.readBigInt64LE(8), txCount: b.readUInt32LE(16) };
}

export class AddressStore implements BlockIndexer {
  constructor(private readonly tables: Pick<Tables, 'addrindex' | 'addrsummary' | 'addrundo'>) {}

  connect(block: Block, entry: BlockIndexEntry, spent: () => BlockUndo): void {
    const deltas = blockAddressDeltas(block, spent());
    for (const d of deltas) {
      this.append(
        d,
        d.positions.map((p) => block.txs[p].txid),
      );
    }
    this.tables.addrundo.put(Buffer.from(entry.hash), encodeDeltas(deltas));
  }

  disconnect(_block: Block, entry: BlockIndexEntry): void {
    const hash = Buffer.from(entry.hash);
    const record = this.tables.addrundo.get(hash);
    if (record === undefined) throw new Error(`address index has no record of block ${entry.hashHex}`);
    for (const d of decodeDeltas(record)) {
      const s = this.summary(d.key);
      // The block is the newest the index holds: its transactions are the last entries.
      for (let n = s.txCount - d.positions.length; n < s.txCount; n++) this.tables.addrindex.remove(entryKey(d.key, n));
      this.#put(d.key, { received: s.received - d.received, sent: s.sent - d.sent, txCount: s.txCount - d.positions.length });
    }
    this.tables.addrundo.remove(hash);
  }

  clear(): void {
    for (const table of [this.tables.addrindex, this.tables.addrsummary, this.tables.addrundo]) table.clearSync();
  }

  summary(key: Buffer): AddressSummary {
    const value = this.tables.addrsummary.get(key);
    return value === undefined ? EMPTY : decodeSummary(value);
  }

  /**
   * Adds `d`'s totals to the address's and appends `txids` (its transactions, oldest first) to its
   * history. Call inside a write transaction; `connect` does, and bench/address.ts through it
   * writes long histories directly.
   */
  append(d: Pick<AddressDelta, 'key' | 'received' | 'sent'>, txids: readonly Uint8Array[]): void {
    const s = this.summary(d.key);
    txids.forEach((txid, i) => this.tables.addrindex.put(entryKey(d.key, s.txCount + i), Buffer.from(txid).reverse()));
    this.#put(d.key, { received: s.received + d.received, sent: s.sent + d.sent, txCount: s.txCount + txids.length });
  }

  /**
   * Txids of up to `count` of the address's confirmed transactions, newest first (highest block,
   * then last in the block), skipping the `skip` newest; `txCount` is its summary's. One range
   * read of at most `count` entries, starting at its position.
   */
  page(key: Buffer, txCount: number, skip: number, count: number): string[] {
    const txids: string[] = [];
    if (skip >= txCount || count <= 0) return txids;
    const range = this.tables.addrindex.getRange({ start: entryKey(key, txCount - 1 - skip), end: key, reverse: true, limit: count });
    for (const { value } of range) txids.push(value.toString('hex'));
    return txids;
  }

  #put(key: Buffer, s: AddressSummary): void {
    if (s.txCount === 0) this.tables.addrsummary.remove(key);
    else this.tables.addrsummary.put(key, encodeSummary(s));
  }
}
