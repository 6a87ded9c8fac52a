/**
 * The wallet's unspent outputs (Core's AvailableCoins): what listunspent shows and what coin
 * selection may spend, with Core's rules for which unconfirmed and immature coins qualify.
 */
import { toHex, type TxOut } from '@cs/consensus';
import type { CoinLocks } from './coin-locks.ts';
import type { TxView } from './tx-view.ts';
import type { WalletTx } from './wallet-tx.ts';

export interface WalletCoin {
  readonly wtx: WalletTx;
  readonly txid: string;
  readonly vout: number;
  readonly output: TxOut;
  readonly depth: number;
  /**
   * The wallet holds the key (as opposed to watching the script). An OPoI stake's collateral is
   * never a wallet coin: it pays the collateral form (consensus escrow.ts), which no key spends.
   */
  readonly spendable: boolean;
  /** Unconfirmed coins are safe only when the wallet trusts their transaction (its own, in the mempool). */
  readonly safe: boolean;
}

export interface CoinFilter {
  readonly minDepth?: number;
  readonly maxDepth?: number;
  /** Unconfirmed coins from transactions the wallet does not trust (others' payments). */
  readonly includeUnsafe?: boolean;
  readonly includeWatchOnly?: boolean;
  readonly includeLocked?: boolean;
  readonly includeImmature?: boolean;
  /** Only coins paying one of these scripts (hex). */
  readonly scripts?: ReadonlySet<string>;
}

export function listCoins(view: TxView, locks: CoinLocks, filter: CoinFilter = {}): WalletCoin[] {
  const minDepth = filter.minDepth ?? 0;
  const maxDepth = filter.maxDepth ?? Number.MAX_SAFE_INTEGER;
  const coins: WalletCoin[] = [];
  for (const wtx of view.ledger.all()) {
    if (view.isImmatureCoinbase(wtx) && !filter.includeImmature) continue;
    const depth = view.depth(wtx);
    if (depth < 0) continue;
    // Core: an unconfirmed transaction counts only while it is in the mempool, since it may be
    // conflicted through ancestors the wallet cannot see.
    if (depth === 0 && !view.inMempool(wtx)) continue;
    if (depth < minDepth || depth > maxDepth) continue;
    const safe = view.isTrusted(wtx);
    if (!safe && !filter.includeUnsafe) continue;
    wtx.tx.outputs.forEach((output, vout) => {
      if (output.value <= 0n) return;
      if (filter.scripts && !filter.scripts.has(toHex(output.scriptPubKey))) return;
      const mine = view.mine(output.scriptPubKey);
      if (mine === null || (mine === 'watchonly' && !filter.includeWatchOnly)) return;
      if (!filter.includeLocked && locks.isLocked(wtx.txid, vout)) return;
      if (view.isSpent(wtx.txid, vout)) return;
      coins.push({ wtx, txid: wtx.txid, vout, output, depth, spendable: mine === 'spendable', safe });
    });
  }
  return coins;
}
