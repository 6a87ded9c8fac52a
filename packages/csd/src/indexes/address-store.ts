/**
 * The address index's confirmed records, in three tables (storage/database.ts):
 *
 * - `addrsummary`: address key → i64le received ‖ i64le sent ‖ u32le transactions, so balance,
 *   totals and the transaction count are one read whatever the address's history;
 * - `addrindex`: address key ‖ be32(height) ‖ be32(position) → txid, one entry per transaction
 *   touching the address, so its history is one range scan in chain order;
 * - `addrundo`: block hash → the block's AddressDelta list, which is what disconnecting the block
 *   subtracts again.
 */
import { hashToHex, type Block } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { BlockUndo } from '../chain/undo.ts';
import type { Tables } from '../storage/database.ts';
import { blockAddressDeltas, decodeDeltas, encodeDeltas, type AddressDelta } from './address-deltas.ts';
import type { BlockIndexer } from './sync.ts';

/** An address's confirmed activity (base units). */
export interface AddressSummary {
  readonly received: bigint;
  readonly sent: bigint;
  /** Distinct confirmed transactions paying or spending the address. */
  readonly txCount: number;
}

const EMPTY: AddressSummary = { received: 0n, sent: 0n, txCount: 0 };
const SUMMARY_SIZE = 8 + 8 + 4;

function historyKey(key: Buffer, height: number, position: number): Buffer {
  const k = Buffer.allocUnsafe(40);
  key.copy(k, 0);
  k.writeUInt32BE(height, 32);
  k.writeUInt32BE(position, 36);
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
      for (const p of d.positions) this.tables.addrindex.put(historyKey(d.key, entry.height, p), Buffer.from(block.txs[p].txid));
      this.#add(d, 1n);
    }
    this.tables.addrundo.put(Buffer.from(entry.hash), encodeDeltas(deltas));
  }

  disconnect(_block: Block, entry: BlockIndexEntry): void {
    const hash = Buffer.from(entry.hash);
    const record = this.tables.addrundo.get(hash);
    if (record === undefined) throw new Error(`address index has no record of block ${entry.hashHex}`);
    for (const d of decodeDeltas(record)) {
      for (const p of d.positions) this.tables.addrindex.remove(historyKey(d.key, entry.height, p));
      this.#add(d, -1n);
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

  /** Txids of the address's confirmed transactions, newest first (highest block, then last in the block). */
  history(key: Buffer): string[] {
    const txids: string[] = [];
    const range = this.tables.addrindex.getRange({ start: historyKey(key, 0xffffffff, 0xffffffff), end: key, reverse: true });
    for (const { value } of range) txids.push(hashToHex(value));
    return txids;
  }

  /** Adds (`sign` 1) or subtracts (-1) one block's delta to the address's summary. */
  #add(d: AddressDelta, sign: 1n | -1n): void {
    const s = this.summary(d.key);
    const next = {
      received: s.received + sign * d.received,
      sent: s.sent + sign * d.sent,
      txCount: s.txCount + Number(sign) * d.positions.length,
    };
    if (next.txCount === 0) this.tables.addrsummary.remove(d.key);
    else this.tables.addrsummary.put(d.key, encodeSummary(next));
  }
}
