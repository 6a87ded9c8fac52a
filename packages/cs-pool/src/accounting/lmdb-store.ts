/**
 * The default accounting store: LMDB on disk (as csd), one process. Every write resolves once its
 * LMDB transaction is committed to disk, so a kill -9 leaves either all of a step or none of it;
 * shares are committed in groups.
 */
import { mkdirSync } from 'node:fs';
import { asBinary, open, type Database, type RootDatabase } from 'lmdb';
import {
  ZERO_BALANCE,
  type AccountingStore,
  type Balance,
  type BlockRecord,
  type LedgerChange,
  type NewShare,
  type PaymentRecord,
  type StoredShare,
} from './store.ts';
import { blockFromRecord, decodeRecord, encodeRecord, shareFromRecord, shareRecordJson, type Json } from './records.ts';

const PAGE = 1000;

/** JSON bytes put as they are (lmdb-js's Binary; its typings only take the table's value type), read back as JSON. */
const preEncoded = (json: Buffer) => asBinary(json) as unknown as Json;

export class LmdbStore implements AccountingStore {
  private readonly root: RootDatabase;
  private readonly shares: Database<Json, number>;
  private readonly blockTable: Database<Json, string>;
  private readonly balanceTable: Database<Json, string>;
  private readonly paymentTable: Database<Json, number>;
  private readonly metaTable: Database<string, string>;
  private nextSeq: number;
  /** Shares waiting for the next write transaction; null once it has taken them. */
  private openBatch: [number, Buffer][] | null = null;
  private batchDurable: Promise<void> = Promise.resolve();

  /** `powLimit` reads records written before share weights (their work in hashes). */
  constructor(
    path: string,
    private readonly powLimit: bigint,
  ) {
    mkdirSync(path, { recursive: true, mode: 0o700 });
    this.root = open({ path, maxDbs: 8, compression: false });
    this.shares = this.root.openDB({ name: 'shares', encoding: 'json' });
    this.blockTable = this.root.openDB({ name: 'blocks', encoding: 'json' });
    this.balanceTable = this.root.openDB({ name: 'balances', encoding: 'json' });
    this.paymentTable = this.root.openDB({ name: 'payments', encoding: 'json' });
    this.metaTable = this.root.openDB({ name: 'meta', encoding: 'string' });
    let last = 0;
    for (const key of this.shares.getKeys({ reverse: true, limit: 1 })) last = key;
    this.nextSeq = last + 1;
  }

  /**
   * Group commit: the shares that arrive until the write transaction starts go into it together,
   * one record each, and every one of them resolves once that transaction is on disk. (One async
   * put per share costs several times more: a promise, a resolution record and write-thread work
   * each.) lmdb-js resolves a transaction at its commit, visible and safe from a kill -9;
   * `flushed` waits until overlappingSync has synced it, which is what the miner's `true` waits for.
   */
  addShare(share: NewShare): Promise<number> {
    const seq = this.nextSeq++;
    // The table's JSON, encoded here: lmdb-js stores the bytes as they are and reads them back as JSON.
    const entry: [number, Buffer] = [seq, Buffer.from(shareRecordJson(share))];
    if (this.openBatch) this.openBatch.push(entry);
    else {
      // Open before committing: should the transaction run its callback at once, it closes this batch.
      this.openBatch = [entry];
      this.batchDurable = this.commitShares(this.openBatch);
    }
    return this.batchDurable.then(() => seq);
  }

  private async commitShares(batch: [number, Buffer][]): Promise<void> {
    await this.root.transaction(() => {
      if (this.openBatch === batch) this.openBatch = null;
      for (const [seq, record] of batch) this.shares.put(seq, preEncoded(record));
    });
    await this.root.flushed;
  }

  async addBlock(block: BlockRecord): Promise<void> {
    await this.blockTable.ifNoExists(block.hash, () => {
      this.blockTable.put(block.hash, encodeRecord(block));
    });
  }

  async *sharesDescending(fromSeq: number): AsyncIterable<StoredShare> {
    let start = fromSeq;
    for (;;) {
      let n = 0;
      for (const { key, value } of this.shares.getRange({ start, reverse: true, limit: PAGE })) {
        n++;
        start = key - 1;
        yield { ...shareFromRecord(value, this.powLimit), seq: key };
      }
      if (n < PAGE || start < 1) return;
    }
  }

  async *sharesInRange(after: number, upTo: number): AsyncIterable<StoredShare> {
    for (const { key, value } of this.shares.getRange({ start: after + 1, end: upTo + 1 }))
      yield { ...shareFromRecord(value, this.powLimit), seq: key };
  }

  async blocks(): Promise<BlockRecord[]> {
    return [...this.blockTable.getRange({})].map(({ value }) => blockFromRecord(value, this.powLimit)).sort((a, b) => a.shareSeq - b.shareSeq);
  }

  async balance(address: string): Promise<Balance> {
    const v = this.balanceTable.get(address);
    return v ? decodeRecord<Balance>(v) : ZERO_BALANCE;
  }

  async balances(): Promise<Map<string, Balance>> {
    return new Map([...this.balanceTable.getRange({})].map(({ key, value }) => [key, decodeRecord<Balance>(value)]));
  }

  async payments(): Promise<PaymentRecord[]> {
    return [...this.paymentTable.getRange({})].map(({ value }) => decodeRecord<PaymentRecord>(value));
  }

  async meta(key: string): Promise<string | null> {
    return this.metaTable.get(key) ?? null;
  }

  async apply(change: LedgerChange): Promise<void> {
    await this.root.transaction(() => {
      for (const d of change.balances ?? []) {
        const v = this.balanceTable.get(d.address);
        const b = v ? decodeRecord<Balance>(v) : ZERO_BALANCE;
        const next = { immature: b.immature + (d.immature ?? 0n), pending: b.pending + (d.pending ?? 0n), paid: b.paid + (d.paid ?? 0n) };
        if (next.immature < 0n || next.pending < 0n || next.paid < 0n) throw new Error(`balance of ${d.address} would go negative`);
        this.balanceTable.put(d.address, encodeRecord(next));
      }
      for (const b of change.blocks ?? []) this.blockTable.put(b.hash, encodeRecord(b));
      for (const p of change.payments ?? []) this.paymentTable.put(p.id, encodeRecord(p));
      for (const [k, v] of Object.entries(change.meta ?? {})) this.metaTable.put(k, v);
    });
  }

  async acquirePayoutLock(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
