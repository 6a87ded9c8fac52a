/**
 * The default accounting store: LMDB on disk (as csd), one process. Every write is one LMDB
 * transaction that is committed to disk before its promise resolves, so a kill -9 leaves either
 * all of a step or none of it.
 */
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
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
import { decodeRecord, encodeRecord, type Json } from './records.ts';

const PAGE = 1000;

export class LmdbStore implements AccountingStore {
  private readonly root: RootDatabase;
  private readonly shares: Database<Json, number>;
  private readonly blockTable: Database<Json, string>;
  private readonly balanceTable: Database<Json, string>;
  private readonly paymentTable: Database<Json, number>;
  private readonly metaTable: Database<string, string>;
  private nextSeq: number;

  constructor(path: string) {
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
   * Group commit without a queue of our own: lmdb-js puts every write of one event-loop turn into
   * one transaction (a batch of pipelined submits is one commit, one sync). The put resolves when
   * that transaction is committed (visible, and safe from a kill -9); `flushed` when it is on disk
   * (overlappingSync syncs after the commit), which is what the miner's `true` waits for.
   */
  async addShare(share: NewShare): Promise<number> {
    const seq = this.nextSeq++;
    await this.shares.put(seq, encodeRecord(share));
    await this.root.flushed;
    return seq;
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
        yield { ...decodeRecord<NewShare>(value), seq: key };
      }
      if (n < PAGE || start < 1) return;
    }
  }

  async *sharesInRange(after: number, upTo: number): AsyncIterable<StoredShare> {
    for (const { key, value } of this.shares.getRange({ start: after + 1, end: upTo + 1 })) yield { ...decodeRecord<NewShare>(value), seq: key };
  }

  async blocks(): Promise<BlockRecord[]> {
    return [...this.blockTable.getRange({})].map(({ value }) => decodeRecord<BlockRecord>(value)).sort((a, b) => a.shareSeq - b.shareSeq);
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
