/**
 * The bridge's state on disk: LMDB in the data directory (as csd and cs-pool). Every change is one
 * LMDB transaction committed to disk before its promise resolves, so a kill -9 leaves each step
 * whole or absent: a request's stage moves together with what it produced (a txid, a credit).
 */
import { mkdirSync } from 'node:fs';
import { open, type Database, type RootDatabase } from 'lmdb';

/** A request's place in the bridge's lifecycle (docs/bridge.md, "Stages"). */
export type Stage =
  | 'awaiting_prompt'
  | 'queued'
  | 'assigned'
  | 'received'
  | 'committed'
  | 'revealed'
  | 'published'
  | 'claimed'
  | 'paid'
  | 'lost'
  | 'expired';

export const TERMINAL: ReadonlySet<Stage> = new Set(['paid', 'lost', 'expired']);

export interface Assignment {
  readonly conn: number;
  readonly wallet: string;
  readonly worker: string;
  /** ms since the epoch. */
  readonly at: number;
}

/** The miner's answer and everything the chain steps made of it. */
export interface Submission {
  readonly id: number;
  readonly wallet: string;
  readonly worker: string;
  readonly responseHash: string;
  readonly responseHex: string;
  readonly tokenCount: number;
  /** Chosen before the COMMIT is sent, so a resend after a crash makes the same commitment. */
  readonly nonce: string;
  readonly receivedAt: number;
  readonly commitTxid?: string;
  readonly commitment?: string;
  readonly revealTxid?: string;
  readonly claimTxid?: string;
  /** Base units credited to the miner's wallet (its share of the winner's pay). */
  readonly credited?: string;
}

export interface RequestRecord {
  readonly requestId: string;
  readonly model: string;
  readonly promptHash: string;
  readonly maxTokens: number;
  readonly payment: number;
  readonly blockHeight: number;
  readonly stage: Stage;
  readonly prompt: string | null;
  readonly assigned: Assignment | null;
  /** Miners (wallet.worker) that timed out or gave up on it: tried last. */
  readonly passed: readonly string[];
  readonly submission: Submission | null;
  readonly note?: string;
  readonly updatedAt: number;
  /**
   * Bumped by every write. The engine's tick, the miners' answers and the HTTP API change requests
   * concurrently (each awaits node calls between reading and writing), so a write names the
   * revision it was computed from and is refused when another write came first.
   */
  readonly rev?: number;
}

/** A write computed from a record that another write changed meanwhile. */
export class StaleRecordError extends Error {
  constructor(readonly requestId: string) {
    super(`request ${requestId} changed meanwhile`);
  }
}

export interface Balance {
  readonly pending: bigint;
  readonly paid: bigint;
}

export interface PaymentRecord {
  readonly id: number;
  readonly txid: string;
  readonly hex: string;
  /** wallet → base units (decimal text). */
  readonly amounts: Record<string, string>;
  readonly status: 'signed' | 'broadcast' | 'failed';
  readonly time: number;
}

/** A transaction the bridge sent and follows until it is buried (engine.ts, followSent). */
export interface SentTx {
  readonly kind: 'STAKE' | 'RENEW' | 'COMMIT' | 'REVEAL' | 'payout';
  /** The request a COMMIT, REVEAL or payout claim is for. */
  readonly requestId?: string;
}

export interface Change {
  /** Each replaces the stored record of the same revision (or, with no `rev`, one not stored yet). */
  readonly requests?: readonly RequestRecord[];
  /** Stored only when no record of that id exists (requests first seen on chain). */
  readonly newRequests?: readonly RequestRecord[];
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

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    this.root = open({ path: dir, maxDbs: 8, compression: false });
    this.requestTable = this.root.openDB({ name: 'requests', encoding: 'json' });
    this.balanceTable = this.root.openDB({ name: 'balances', encoding: 'json' });
    this.paymentTable = this.root.openDB({ name: 'payments', encoding: 'json' });
    this.sentTable = this.root.openDB({ name: 'sent', encoding: 'json' });
    this.metaTable = this.root.openDB({ name: 'meta', encoding: 'string' });
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
      for (const r of change.requests ?? []) {
        const stored = this.requestTable.get(r.requestId);
        if ((stored === undefined) !== (r.rev === undefined) || (stored && stored.rev !== r.rev)) throw new StaleRecordError(r.requestId);
      }
      for (const r of change.requests ?? []) this.requestTable.put(r.requestId, { ...r, updatedAt: Date.now(), rev: (r.rev ?? 0) + 1 });
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

  async close(): Promise<void> {
    await this.root.close();
  }
}
