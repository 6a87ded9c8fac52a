/**
 * How chain and mempool events change the wallet (Core's SyncTransaction, AddToWalletIfInvolvingMe,
 * MarkConflicted, blockConnected/blockDisconnected). Every method runs inside the caller's write
 * transaction, so a block's effect on the wallet lands atomically with the wallet's best block.
 */
import { hashToHex, type Block, type Transaction } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Keyring } from './keyring.ts';
import type { Ledger } from './ledger.ts';
import type { WalletWriter } from './store.ts';
import { INACTIVE, type TxState } from './tx-state.ts';
import type { WalletTx } from './wallet-tx.ts';

export class TxTracker {
  constructor(
    private readonly ledger: Ledger,
    private readonly keyring: Keyring,
    private readonly now: () => number,
  ) {}

  /** Whether `tx` pays one of the wallet's scripts or spends one of its coins. */
  isRelevant(tx: Transaction): boolean {
    if (tx.outputs.some((o) => this.keyring.ownership(o.scriptPubKey) !== undefined)) return true;
    if (tx.isCoinbase()) return false;
    return tx.inputs.some((input) => {
      const out = this.ledger.get(hashToHex(input.prevout.txid))?.tx.outputs[input.prevout.vout];
      return out !== undefined && this.keyring.ownership(out.scriptPubKey) !== undefined;
    });
  }

  /**
   * Records `tx` in `state` if it concerns the wallet (or is already a wallet transaction).
   * A confirmed transaction also marks the wallet transactions it conflicts with. Returns the
   * wallet transaction, or undefined when `tx` is none of the wallet's business.
   */
  sync(tx: Transaction, state: TxState, w: WalletWriter, comment?: { comment: string; commentTo: string }): WalletTx | undefined {
    const txid = tx.txidHex;
    if (state.kind === 'confirmed' && !tx.isCoinbase()) {
      for (const input of tx.inputs) {
        for (const other of this.ledger.spenders(hashToHex(input.prevout.txid), input.prevout.vout)) {
          if (other.txid !== txid) this.markConflicted(other, state.blockHash, state.height, w);
        }
      }
    }
    const existing = this.ledger.get(txid);
    if (!existing && !this.isRelevant(tx)) return undefined;
    this.markScriptsUsed(tx, w);
    if (existing) {
      if (sameState(existing.state, state)) return existing;
      return this.ledger.put({ ...existing, state }, w);
    }
    const now = this.now();
    return this.ledger.put(
      {
        tx,
        state,
        timeReceived: now,
        time: state.kind === 'confirmed' ? state.blockTime : now,
        orderPos: this.ledger.allocateOrderPos(),
        comment: comment?.comment ?? '',
        commentTo: comment?.commentTo ?? '',
      },
      w,
    );
  }

  /** Every transaction of a block that joined the active chain. */
  blockConnected(block: Block, entry: BlockIndexEntry, w: WalletWriter): void {
    block.txs.forEach((tx, index) => {
      this.sync(tx, { kind: 'confirmed', blockHash: entry.hashHex, height: entry.height, index, blockTime: entry.time }, w);
    });
    w.putBestBlock({ hash: entry.hashHex, height: entry.height });
  }

  /**
   * A block left the active chain: its wallet transactions become unconfirmed (the mempool offers
   * the non-coinbase ones again when the reorg ends), and what it conflicted becomes unconfirmed too.
   */
  blockDisconnected(block: Block, entry: BlockIndexEntry, w: WalletWriter): void {
    for (const tx of block.txs) {
      const wtx = this.ledger.get(tx.txidHex);
      if (wtx?.state.kind === 'confirmed' && wtx.state.blockHash === entry.hashHex) this.ledger.put({ ...wtx, state: INACTIVE }, w);
    }
    for (const wtx of [...this.ledger.all()]) {
      if (wtx.state.kind === 'conflicted' && wtx.state.height >= entry.height) this.ledger.put({ ...wtx, state: INACTIVE }, w);
    }
    w.putBestBlock({ hash: entry.prev!.hashHex, height: entry.height - 1 });
  }

  /** Core's MarkConflicted: the transaction and its wallet descendants, unless already confirmed or conflicted. */
  private markConflicted(root: WalletTx, blockHash: string, height: number, w: WalletWriter): void {
    const queue = [root];
    const seen = new Set<string>();
    while (queue.length > 0) {
      const wtx = queue.shift()!;
      if (seen.has(wtx.txid)) continue;
      seen.add(wtx.txid);
      if (wtx.state.kind === 'confirmed' || wtx.state.kind === 'conflicted') continue;
      this.ledger.put({ ...wtx, state: { kind: 'conflicted', blockHash, height } }, w);
      queue.push(...this.ledger.children(wtx.txid));
    }
  }

  /** A payment to an address of the lookahead window uses up that index and the ones before it. */
  private markScriptsUsed(tx: Transaction, w: WalletWriter): void {
    for (const out of tx.outputs) {
      const own = this.keyring.ownership(out.scriptPubKey);
      if (own?.kind === 'hd') this.keyring.markUsed(own.type, own.chain, own.index, w);
    }
  }
}

function sameState(a: TxState, b: TxState): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'confirmed':
      return b.kind === 'confirmed' && a.blockHash === b.blockHash && a.index === b.index;
    case 'conflicted':
      return b.kind === 'conflicted' && a.blockHash === b.blockHash;
    case 'inactive':
      return b.kind === 'inactive' && a.abandoned === b.abandoned;
  }
}
