/**
 * Balances as Core's GetBalance computes them: trusted (confirmed, or our own unconfirmed
 * transactions in the mempool), untrusted pending (others' payments still in the mempool) and
 * immature (coinbase outputs not yet spendable), for the wallet's keys and its watch-only
 * scripts apart. Locked coins count: a lock only keeps coin selection away.
 */
import type { TxView } from './tx-view.ts';
import type { WalletTx } from './wallet-tx.ts';

export interface BalanceParts {
  readonly trusted: bigint;
  readonly untrustedPending: bigint;
  readonly immature: bigint;
}

export interface Balances {
  readonly mine: BalanceParts;
  readonly watchonly: BalanceParts;
}

/** `minDepth`: trusted coins need at least this many confirmations (getbalance's minconf). */
export function computeBalances(view: TxView, minDepth = 0): Balances {
  const mine = { trusted: 0n, untrustedPending: 0n, immature: 0n };
  const watchonly = { trusted: 0n, untrustedPending: 0n, immature: 0n };
  for (const wtx of view.ledger.all()) {
    const depth = view.depth(wtx);
    const trusted = view.isTrusted(wtx);
    const pending = !trusted && depth === 0 && view.inMempool(wtx);
    for (const [parts, filter] of [
      [mine, 'spendable'],
      [watchonly, 'watchonly'],
    ] as const) {
      if (view.isImmatureCoinbase(wtx)) {
        // A coinbase of a disconnected block is no income at all.
        if (depth >= 1) parts.immature += view.credit(wtx, filter);
        continue;
      }
      const available = availableCredit(view, wtx, filter);
      if (trusted && depth >= minDepth) parts.trusted += available;
      if (pending) parts.untrustedPending += available;
    }
  }
  return { mine, watchonly };
}

/** Value of the transaction's outputs that pay the wallet and are not spent. */
function availableCredit(view: TxView, wtx: WalletTx, filter: 'spendable' | 'watchonly'): bigint {
  let sum = 0n;
  wtx.tx.outputs.forEach((o, vout) => {
    if (view.matches(o.scriptPubKey, filter) && !view.isSpent(wtx.txid, vout)) sum += o.value;
  });
  return sum;
}
