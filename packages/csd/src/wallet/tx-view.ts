/**
 * What the wallet's transactions mean right now: depth in the active chain, whether they are
 * trusted, which outputs are the wallet's and whether they are spent. Core's CWallet and
 * receive.cpp helpers (GetTxDepthInMainChain, CachedTxIsTrusted, IsSpent, GetCredit, GetDebit),
 * computed from the ledger, the keyring, the chain height and the mempool on every call rather
 * than cached, so a reorg or an eviction never leaves a stale answer behind.
 */
import { hashToHex, type OutPoint, type TxOut } from '@cs/consensus';
import type { Keyring } from './keyring.ts';
import type { Ledger } from './ledger.ts';
import type { WalletTx } from './wallet-tx.ts';

/** Which of the wallet's scripts count: those it can spend, those it only watches, or both. */
export type MineFilter = 'spendable' | 'watchonly' | 'all';

export interface ChainHeight {
  readonly height: number;
}

export interface MempoolLookup {
  has(txid: string): boolean;
  spender(outpoint: OutPoint): { readonly txid: string } | undefined;
}

export class TxView {
  constructor(
    readonly ledger: Ledger,
    readonly keyring: Keyring,
    private readonly chain: ChainHeight,
    private readonly mempool: MempoolLookup,
    private readonly coinbaseMaturity: number,
  ) {}

  get tipHeight(): number {
    return this.chain.height;
  }

  /** Confirmations: positive in the active chain, negative for a conflict (as deep as the conflicting block), else 0. */
  depth(wtx: WalletTx): number {
    switch (wtx.state.kind) {
      case 'confirmed':
        return this.chain.height - wtx.state.height + 1;
      case 'conflicted':
        return -(this.chain.height - wtx.state.height + 1);
      case 'inactive':
        return 0;
    }
  }

  inMempool(wtx: WalletTx): boolean {
    return wtx.state.kind === 'inactive' && this.mempool.has(wtx.txid);
  }

  isAbandoned(wtx: WalletTx): boolean {
    return wtx.state.kind === 'inactive' && wtx.state.abandoned;
  }

  /** Core's mempool conflicts: unconfirmed, not in the mempool, and another mempool transaction spends one of its inputs. */
  mempoolConflicts(wtx: WalletTx): string[] {
    if (wtx.state.kind !== 'inactive' || wtx.tx.isCoinbase() || this.mempool.has(wtx.txid)) return [];
    const out = new Set<string>();
    for (const input of wtx.tx.inputs) {
      const spender = this.mempool.spender(input.prevout);
      if (spender && spender.txid !== wtx.txid) out.add(spender.txid);
    }
    return [...out];
  }

  /** Whether `wtx` still counts as spending its inputs (Core's IsSpent test on each spender). */
  private spends(wtx: WalletTx): boolean {
    return !this.isAbandoned(wtx) && wtx.state.kind !== 'conflicted' && this.mempoolConflicts(wtx).length === 0;
  }

  isSpent(txid: string, vout: number): boolean {
    return this.ledger.spenders(txid, vout).some((s) => this.spends(s));
  }

  /** The wallet transaction that spends `txid:vout`, if one counts. */
  spentBy(txid: string, vout: number): WalletTx | undefined {
    return this.ledger.spenders(txid, vout).find((s) => this.spends(s));
  }

  /** Other wallet transactions spending an input of `wtx` (gettransaction's walletconflicts). */
  walletConflicts(wtx: WalletTx): string[] {
    if (wtx.tx.isCoinbase()) return [];
    const out = new Set<string>();
    for (const input of wtx.tx.inputs) {
      for (const s of this.ledger.spenders(hashToHex(input.prevout.txid), input.prevout.vout)) if (s.txid !== wtx.txid) out.add(s.txid);
    }
    return [...out].sort();
  }

  /**
   * Core's CachedTxIsTrusted: confirmed, or an unconfirmed transaction of our own in the mempool
   * whose inputs all come from trusted wallet transactions and are ours to spend.
   */
  isTrusted(wtx: WalletTx, visiting = new Set<string>()): boolean {
    const depth = this.depth(wtx);
    if (depth >= 1) return true;
    if (depth < 0 || !this.inMempool(wtx)) return false;
    if (visiting.has(wtx.txid)) return false;
    visiting.add(wtx.txid);
    for (const input of wtx.tx.inputs) {
      const parent = this.ledger.get(hashToHex(input.prevout.txid));
      const out = parent?.tx.outputs[input.prevout.vout];
      if (!parent || !out || this.mine(out.scriptPubKey) !== 'spendable') return false;
      if (!this.isTrusted(parent, visiting)) return false;
    }
    return true;
  }

  /** Core's GetBlocksToMaturity: a coinbase needs maturity + 1 confirmations in the wallet's view, one more than consensus, as Core. */
  blocksToMaturity(wtx: WalletTx): number {
    if (!wtx.tx.isCoinbase()) return 0;
    return Math.max(0, this.coinbaseMaturity + 1 - this.depth(wtx));
  }

  isImmatureCoinbase(wtx: WalletTx): boolean {
    return this.blocksToMaturity(wtx) > 0;
  }

  mine(script: Uint8Array): 'spendable' | 'watchonly' | null {
    const own = this.keyring.ownership(script);
    if (!own) return null;
    return own.kind === 'watch' ? 'watchonly' : 'spendable';
  }

  matches(script: Uint8Array, filter: MineFilter): boolean {
    const kind = this.mine(script);
    return kind !== null && (filter === 'all' || kind === filter);
  }

  /** Outputs of change: the wallet's own internal-chain addresses. */
  isChange(out: TxOut): boolean {
    const own = this.keyring.ownership(out.scriptPubKey);
    return own?.kind === 'hd' && own.chain === 1;
  }

  /** Value of the outputs paying the wallet. */
  credit(wtx: WalletTx, filter: MineFilter): bigint {
    return wtx.tx.outputs.reduce((sum, o) => (this.matches(o.scriptPubKey, filter) ? sum + o.value : sum), 0n);
  }

  /** Value of the wallet's coins this transaction spends. */
  debit(wtx: WalletTx, filter: MineFilter): bigint {
    if (wtx.tx.isCoinbase()) return 0n;
    let sum = 0n;
    for (const input of wtx.tx.inputs) {
      const out = this.ledger.get(hashToHex(input.prevout.txid))?.tx.outputs[input.prevout.vout];
      if (out && this.matches(out.scriptPubKey, filter)) sum += out.value;
    }
    return sum;
  }

  /** Core's fee of a wallet transaction: known when it spends our coins (debit minus everything paid out). */
  fee(wtx: WalletTx): bigint | undefined {
    const debit = this.debit(wtx, 'all');
    if (debit === 0n) return undefined;
    return debit - wtx.tx.outputs.reduce((sum, o) => sum + o.value, 0n);
  }
}
