/**
 * Coins set aside with lockunspent (Core's setLockedCoins): coin selection skips them. Persistent
 * locks are stored and survive restarts; the others (fundrawtransaction's lockUnspents) last as
 * long as the process.
 */
import { outpointId } from './ledger.ts';
import type { WalletWriter } from './store.ts';

export interface LockedCoin {
  readonly txid: string;
  readonly vout: number;
}

export class CoinLocks {
  /** outpoint id → the coin and whether its lock is stored. */
  private readonly locked = new Map<string, { coin: LockedCoin; persistent: boolean }>();

  constructor(stored: readonly LockedCoin[]) {
    for (const coin of stored) this.locked.set(outpointId(coin.txid, coin.vout), { coin, persistent: true });
  }

  isLocked(txid: string, vout: number): boolean {
    return this.locked.has(outpointId(txid, vout));
  }

  list(): LockedCoin[] {
    return [...this.locked.values()].map((l) => l.coin);
  }

  lock(coin: LockedCoin, persistent: boolean, w: WalletWriter): void {
    if (persistent) w.putLock(coin.txid, coin.vout);
    this.locked.set(outpointId(coin.txid, coin.vout), { coin, persistent });
  }

  unlock(coin: LockedCoin, w: WalletWriter): void {
    const id = outpointId(coin.txid, coin.vout);
    if (this.locked.get(id)?.persistent) w.deleteLock(coin.txid, coin.vout);
    this.locked.delete(id);
  }

  unlockAll(w: WalletWriter): void {
    for (const { coin } of [...this.locked.values()]) this.unlock(coin, w);
  }
}
