/**
 * The bridge's state on disk: LMDB in the data directory (as csd and cs-pool). Every change is one
 * LMDB transaction committed to disk before its promise resolves, so a kill -9 leaves each step
 * whole or absent: a request's stage moves together with what it produced (a txid, a credit).
 */
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';
import {
  AUDIT_TERMINAL,
  type AuditJob,
  type Balance,
  type PaymentRecord,
  type RequestRecord,
  type SentTx,
  StaleRecordError,
  TERMINAL,
} from './records.ts';

export * from './records.ts';

/** Records whose writes name the revision they were computed from (RequestRecord.rev). */
type Revised = { readonly rev?: number; readonly updatedAt: number };

export interface Change {
  /** Each replaces the stored record of the same revision (or, with no `rev`, one not stored yet). */
  readonly requests?: readonly RequestRecord[];
  /** Stored only when no record of that id exists (requests first seen on chain). */
  readonly newRequests?: readonly RequestRecord[];
  /** As `requests`, for audits the bridge was drawn for. */
  readonly audits?: readonly AuditJob[];
  /** Added to the wallet's balance (negative pending moves to paid with a positive `paid`). */
  readonly balances?: readonly { wallet: string; pending: bigint; paid: bigint }[];
  readonly payments?: readonly PaymentRecord[];
  /** txid → what the bridge sent, or null to stop following it. */
  readonly sent?: Record<string, SentTx | null>;
  readonly meta?: Record<string, string | null>;
}

export class BridgeStore {
  private readonly root: RootDatabase;
  private readonly requestTable: Database<RequestRecord, string>;
  private readonly balanceTable: Database<{ pending: string; paid: string }, string>;
  private readonly paymentTable: Database<PaymentRecord, number>;
  private readonly sentTable: Database<SentTx, string>;
  private readonly metaTable: Database<string, string>;
  private readonly auditTable: Database<AuditJob, string>;

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.root = open({ path: dir, maxDbs: 8, compression: false });
    this.requestTable = this.root.openDB({ name: 'requests', encoding: 'json' });
    this.balanceTable = this.root.openDB({ name: 'balances', encoding: 'json' });
    this.paymentTable = this.root.openDB({ name: 'payments', encoding: 'json' });
    this.sentTable = this.root.openDB({ name: 'sent', encoding: 'json' });
    this.metaTable = this.root.openDB({ name: 'meta', encoding: 'string' });
    this.auditTable = this.root.openDB({ name: 'audits', encoding: 'json' });
  }

  request(id: string): RequestRecord | undefined {
    return this.requestTable.get(id);
  }

  requests(): RequestRecord[] {
    return [...this.requestTable.getRange()].map((e) => e.value);
  }

  active(): RequestRecord[] {
    return this.requests().filter((r) => !TERMINAL.has(r.stage));
  }

  audit(requestId: string): AuditJob | undefined {
    return this.auditTable.get(requestId);
  }

  audits(): AuditJob[] {
    return [...this.auditTable.getRange()].map((e) => e.value);
  }

  activeAudits(): AuditJob[] {
    return this.audits().filter((a) => !AUDIT_TERMINAL.has(a.stage));
  }

  balance(wallet: string): Balance {
    const b = this.balanceTable.get(wallet);
    return b ? { pending: BigInt(b.pending), paid: BigInt(b.paid) } : { pending: 0n, paid: 0n };
  }

  balances(): [string, Balance][] {
    return [...this.balanceTable.getRange()].map((e) => [e.key, { pending: BigInt(e.value.pending), paid: BigInt(e.value.paid) }]);
  }

  payments(): PaymentRecord[] {
    return [...this.paymentTable.getRange()].map((e) => e.value);
  }

  /** The bridge's own transactions not yet buried: txid and what it is. */
  sent(): [string, SentTx][] {
    return [...this.sentTable.getRange()].map((e) => [e.key, e.value]);
  }

  meta(key: string): string | undefined {
    return this.metaTable.get(key);
  }

  /** The next number of a sequence kept in meta (submission ids, payment ids). */
  nextNumber(key: string): number {
    return Number(this.meta(key) ?? '0') + 1;
  }

  /** One transaction; StaleRecordError (and nothing written) when a request changed meanwhile. */
  async apply(change: Change): Promise<void> {
    await this.root.transaction(() => {
      const requests = change.requests ?? [];
      const audits = change.audits ?? [];
      for (const r of requests) this.checkRevision(this.requestTable.get(r.requestId), r, r.requestId);
      for (const a of audits) this.checkRevision(this.auditTable.get(a.requestId), a, a.requestId);
      for (const r of requests) this.requestTable.put(r.requestId, this.revised(r));
      for (const a of audits) this.auditTable.put(a.requestId, this.revised(a));
      for (const r of change.newRequests ?? []) {
        if (this.requestTable.get(r.requestId) === undefined) this.requestTable.put(r.requestId, { ...r, updatedAt: Date.now(), rev: 1 });
      }
      for (const d of change.balances ?? []) {
        const b = this.balance(d.wallet);
        this.balanceTable.put(d.wallet, { pending: (b.pending + d.pending).toString(), paid: (b.paid + d.paid).toString() });
      }
      for (const p of change.payments ?? []) this.paymentTable.put(p.id, p);
      for (const [txid, what] of Object.entries(change.sent ?? {})) {
        if (what === null) this.sentTable.remove(txid);
        else this.sentTable.put(txid, what);
      }
      for (const [k, v] of Object.entries(change.meta ?? {})) {
        if (v === null) this.metaTable.remove(k);
        else this.metaTable.put(k, v);
      }
    });
  }

  /** A write replaces the stored revision it names (no `rev`: a record not stored yet). */
  private checkRevision(stored: Revised | undefined, next: Revised, id: string): void {
    if ((stored === undefined) !== (next.rev === undefined) || (stored && stored.rev !== next.rev)) throw new StaleRecordError(id);
  }

  private revised<T extends Revised>(r: T): T {
    return { ...r, updatedAt: Date.now(), rev: (r.rev ?? 0) + 1 };
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
