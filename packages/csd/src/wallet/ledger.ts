/**
 * The wallet's transactions in memory (Core's mapWallet and mapTxSpends): every wallet
 * transaction by txid, and which of them spend each outpoint. Changes go to the database through
 * the caller's writer, so memory and disk change together.
 */
import { hashToHex, type OutPoint } from '@cs/consensus';
import type { TxRecord } from './records.ts';
import type { WalletWriter } from './store.ts';
import { walletTx, type WalletTx } from './wallet-tx.ts';

/** `txid:vout` with the txid in display order. */
export function outpointId(txid: string, vout: number): string {
  return `${txid}:${vout}`;
}

export function outpointIdOf(p: OutPoint): string {
  return outpointId(hashToHex(p.txid), p.vout);
}

export class Ledger {
  private readonly txs = new Map<string, WalletTx>();
  private readonly spends = new Map<string, Set<string>>();
  private nextOrderPos = 0;

  constructor(records: readonly TxRecord[]) {
    for (const r of records) this.index(walletTx(r));
  }

  get size(): number {
    return this.txs.size;
  }

  get(txid: string): WalletTx | undefined {
    return this.txs.get(txid);
  }

  all(): IterableIterator<WalletTx> {
    return this.txs.values();
  }

  /** Wallet transactions spending `txid:vout`: more than one means they conflict. */
  spenders(txid: string, vout: number): WalletTx[] {
    const ids = this.spends.get(outpointId(txid, vout));
    return ids ? [...ids].map((id) => this.txs.get(id)!) : [];
  }

  /** Wallet transactions spending an output of `txid`. */
  children(txid: string): WalletTx[] {
    const wtx = this.txs.get(txid);
    if (!wtx) return [];
    const out = new Set<WalletTx>();
    wtx.tx.outputs.forEach((_, vout) => this.spenders(txid, vout).forEach((c) => out.add(c)));
    return [...out];
  }

  /** The order position the next new transaction gets. */
  allocateOrderPos(): number {
    return this.nextOrderPos++;
  }

  put(record: TxRecord, w: WalletWriter): WalletTx {
    w.putTx(record);
    const wtx = walletTx(record);
    this.index(wtx);
    return wtx;
  }

  remove(txid: string, w: WalletWriter): void {
    const wtx = this.txs.get(txid);
    if (!wtx) return;
    w.deleteTx(txid);
    this.txs.delete(txid);
    for (const input of wtx.tx.inputs) {
      const id = outpointIdOf(input.prevout);
      const set = this.spends.get(id);
      set?.delete(txid);
      if (set?.size === 0) this.spends.delete(id);
    }
  }

  private index(wtx: WalletTx): void {
    const isNew = !this.txs.has(wtx.txid);
    this.txs.set(wtx.txid, wtx);
    this.nextOrderPos = Math.max(this.nextOrderPos, wtx.orderPos + 1);
    if (!isNew || wtx.tx.isCoinbase()) return;
    for (const input of wtx.tx.inputs) {
      const id = outpointIdOf(input.prevout);
      const set = this.spends.get(id);
      if (set) set.add(wtx.txid);
      else this.spends.set(id, new Set([wtx.txid]));
    }
  }
}
