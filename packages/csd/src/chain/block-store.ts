import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Block } from '@cs/consensus';
import { type ChainDatabase, readLarge, readLargeInto } from '../storage/database.ts';
import { type BlockIndexEntry, type StoredIndexRecord, decodeIndexRecord } from './block-index.ts';
import type { ReadBlock } from './lookahead.ts';
import type { OpoiBlockChanges } from './opoi-store.ts';
import { decodeUndo, type BlockUndo } from './undo.ts';

const TIP_KEY = 'tip';
/** Set by ChainDatabase.clearDerived while a -reindex rebuilds what it cleared. */
const REINDEX_KEY = 'reindex';
/** How long a measured database size is reused. */
const DISK_SIZE_TTL_MS = 1000;

/**
 * The chain's own records in its database: stored blocks, their undo data, the block index and the
 * tip. Methods named put and remove run inside a write transaction the caller opens, so that they
 * commit together with the rest of a block's changes.
 */
export class BlockStore {
  private diskSize: { bytes: number; at: number } | null = null;

  constructor(private readonly db: ChainDatabase) {}

  readBlock(e: BlockIndexEntry): Block | undefined {
    const raw = this.readRawBlock(e);
    return raw ? Block.decode(raw) : undefined;
  }

  /** The stored block in a buffer of its own, or in one `allocate` gives for its length. */
  readRawBlock(e: BlockIndexEntry, allocate: (length: number) => Buffer = Buffer.allocUnsafeSlow): Buffer | undefined {
    return readLargeInto(this.db.tables.blocks, Buffer.from(e.hash), allocate);
  }

  /** A stored block, decoded (for a lookahead); null when it is not stored. */
  readStored(e: BlockIndexEntry): ReadBlock | null {
    const raw = this.readRawBlock(e);
    return raw ? { hashHex: e.hashHex, raw, block: Block.decode(raw) } : null;
  }

  /** The coins a block's transactions spent; only blocks on the active chain have undo data. */
  readUndo(e: BlockIndexEntry): BlockUndo | undefined {
    const raw = readLarge(this.db.tables.undo, Buffer.from(e.hash));
    return raw ? decodeUndo(raw) : undefined;
  }

  /** Every block index record, parents before children (by height). */
  indexRecords(): StoredIndexRecord[] {
    const records: StoredIndexRecord[] = [];
    for (const { value } of this.db.tables.index.getRange({})) records.push(decodeIndexRecord(value));
    return records.sort((a, b) => a.height - b.height);
  }

  /** The hash of the stored tip; none before the genesis block is written. */
  storedTip(): Buffer | undefined {
    return this.db.getMeta(TIP_KEY);
  }

  putBlock(e: BlockIndexEntry, bytes: Uint8Array): void {
    this.db.tables.blocks.put(Buffer.from(e.hash), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  }

  putIndex(e: BlockIndexEntry): void {
    this.db.tables.index.put(Buffer.from(e.hash), e.encode());
  }

  putTip(e: BlockIndexEntry): void {
    this.db.putMeta(TIP_KEY, Buffer.from(e.hash));
  }

  removeUndo(e: BlockIndexEntry): void {
    this.db.tables.undo.remove(Buffer.from(e.hash));
  }

  /** Writes the index records of `entries` in a transaction of their own. */
  writeIndex(entries: readonly BlockIndexEntry[]): void {
    this.db.write(() => {
      for (const e of entries) this.putIndex(e);
    });
  }

  /**
   * Puts the records of a connected block: its undo data, OPoI changes, index entry and the tip.
   * Made apart from the connect, whose closures share one context with everything it decoded: a
   * writer held for the next batched commit keeps alive only what it writes.
   */
  connectedRecords(entry: BlockIndexEntry, undo: Buffer, opoi: OpoiBlockChanges): () => void {
    const index = entry.encode();
    return () => {
      const t = this.db.tables;
      t.undo.put(Buffer.from(entry.hash), undo);
      opoi.write(entry.hash);
      t.index.put(Buffer.from(entry.hash), index);
      this.putTip(entry);
    };
  }

  /** Whether a reindex was started and did not finish. */
  get reindexPending(): boolean {
    return this.db.getMeta(REINDEX_KEY) !== undefined;
  }

  /** The reindex rebuilt everything; inside the transaction of its last records. */
  removeReindexMarker(): void {
    this.db.tables.meta.remove(Buffer.from(REINDEX_KEY));
  }

  /** Bytes of the database files (blocks, undo data, index and UTXO set share one LMDB environment). */
  sizeOnDisk(): number {
    // Polled by getblockchaininfo; a directory scan per call would dominate that method's cost.
    const now = Date.now();
    if (!this.diskSize || now - this.diskSize.at > DISK_SIZE_TTL_MS) {
      const bytes = readdirSync(this.db.path, { withFileTypes: true })
        .filter((f) => f.isFile())
        .reduce((sum, f) => sum + statSync(join(this.db.path, f.name)).size, 0);
      this.diskSize = { bytes, at: now };
    }
    return this.diskSize.bytes;
  }
}
