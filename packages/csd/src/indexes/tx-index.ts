/**
 * The transaction index (-txindex): where each transaction of the active chain sits, so that
 * getrawtransaction and /rest/tx find confirmed transactions by txid alone.
 *
 * A record is txid (internal order) → block hash ‖ u32le byte offset ‖ u32le length of the
 * transaction inside the stored raw block: a lookup reads the block's bytes and slices, without
 * decoding the rest of the block. The genesis block is not indexed (its coinbase is not an
 * ordinary transaction, as Core says).
 */
import type { Logger } from 'pino';
import { Transaction, compactSizeLength, hashFromHex, hashToHex, type Block } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Chain } from '../chain/chainstate.ts';
import type { TxIndex } from '../rpc/context.ts';
import { TX_INDEX_MARKER, type ChainDatabase, type Table } from '../storage/database.ts';
import { IndexSync, type BlockIndexer, type IndexProgress } from './sync.ts';

const LOCATION_SIZE = 32 + 4 + 4;

/** Where a confirmed transaction is: its block, and its bytes' offset and length in the serialized block. */
export interface TxPosition {
  readonly entry: BlockIndexEntry;
  readonly offset: number;
  readonly length: number;
}

/** Where each transaction of `block` starts in its serialization, and how long it is. */
export function txLocations(block: Block): { readonly offset: number; readonly length: number }[] {
  // Block serialization: header, compactsize count, transactions back to back. Decoding only
  // accepts canonical encodings, so re-encoding gives the stored bytes exactly.
  let offset = block.header.encode().length + compactSizeLength(block.txs.length);
  return block.txs.map((tx) => {
    const length = tx.size;
    const location = { offset, length };
    offset += length;
    return location;
  });
}

/** The index's records: BlockIndexer over the `txindex` table. */
class TxRecords implements BlockIndexer {
  constructor(private readonly table: Table) {}

  connect(block: Block, entry: BlockIndexEntry): void {
    const locations = txLocations(block);
    block.txs.forEach((tx, i) => {
      const value = Buffer.allocUnsafe(LOCATION_SIZE);
      value.set(entry.hash, 0);
      value.writeUInt32LE(locations[i].offset, 32);
      value.writeUInt32LE(locations[i].length, 36);
      this.table.put(Buffer.from(tx.txid), value);
    });
  }

  disconnect(block: Block, entry: BlockIndexEntry): void {
    for (const tx of block.txs) {
      const key = Buffer.from(tx.txid);
      // A record naming another block belongs to that block (the same transaction confirmed
      // again on the branch the chain moved to is written by its own connect).
      const value = this.table.get(key);
      if (value?.subarray(0, 32).equals(entry.hash)) this.table.remove(key);
    }
  }

  clear(): void {
    this.table.clearSync();
  }
}

export interface TransactionIndexOptions {
  readonly db: ChainDatabase;
  readonly chain: Chain;
  readonly log: Logger;
}

/** The transaction index as the node uses it; also the TxIndex that getrawtransaction takes. */
export class TransactionIndex implements TxIndex {
  readonly #table: Table;
  readonly #chain: Chain;
  readonly #sync: IndexSync;

  constructor(options: TransactionIndexOptions) {
    this.#table = options.db.tables.txindex;
    this.#chain = options.chain;
    this.#sync = new IndexSync({
      name: TX_INDEX_MARKER,
      db: options.db,
      chain: options.chain,
      indexer: new TxRecords(this.#table),
      log: options.log,
    });
  }

  start(): void {
    this.#sync.start();
  }

  close(): Promise<void> {
    return this.#sync.close();
  }

  progress(): IndexProgress {
    return this.#sync.progress();
  }

  synced(): boolean {
    return this.#sync.progress().synced;
  }

  /** Where the confirmed transaction with this txid (display hex) is, if indexed. */
  position(txid: string): TxPosition | undefined {
    const value = this.#table.get(Buffer.from(hashFromHex(txid)));
    if (value === undefined) return undefined;
    const entry = this.#chain.entry(hashToHex(value.subarray(0, 32)));
    return entry && { entry, offset: value.readUInt32LE(32), length: value.readUInt32LE(36) };
  }

  async find(txid: string): Promise<{ readonly tx: Transaction; readonly blockHash: string } | undefined> {
    const at = this.position(txid);
    const block = at && this.#chain.readRawBlock(at.entry);
    if (!at || !block) return undefined;
    return { tx: Transaction.decode(block.subarray(at.offset, at.offset + at.length)), blockHash: at.entry.hashHex };
  }
}
