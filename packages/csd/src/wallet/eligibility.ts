/**
 * Which coins a send may use, tried in rounds from strictest to loosest (Core's
 * CoinEligibilityFilter and the ordered filters of AutomaticCoinSelection): confirmed coins
 * first, the wallet's own unconfirmed change only when they do not cover the payment, and the
 * longer its mempool chain the later. A selection is made from the first round that pays.
 */

/** What the filters look at in a coin. */
export interface CoinStanding {
  /** Confirmations: 0 for a coin of a mempool transaction. */
  readonly depth: number;
  /** Its transaction spends the wallet's coins (Core's IsFromMe): change, or a payment to ourselves. */
  readonly fromMe: boolean;
  /** The unconfirmed transaction with its in-mempool ancestors (0 when confirmed). */
  readonly ancestors: number;
  /** The most descendants any of those has, itself included (0 when confirmed). */
  readonly descendants: number;
}

export interface CoinEligibilityFilter {
  /** Confirmations a coin of the wallet's own transaction needs. */
  readonly confMine: number;
  /** Confirmations a coin received from others needs. */
  readonly confTheirs: number;
  readonly maxAncestors: number;
  readonly maxDescendants: number;
}

export function isEligible(coin: CoinStanding, f: CoinEligibilityFilter): boolean {
  return coin.depth >= (coin.fromMe ? f.confMine : f.confTheirs) && coin.ancestors <= f.maxAncestors && coin.descendants <= f.maxDescendants;
}

export interface FilterOptions {
  /** The mempool's -limitancestorcount and -limitdescendantcount (25 each by default). */
  readonly ancestorLimit: number;
  readonly descendantLimit: number;
  /** Others' unconfirmed payments may be spent too (fundrawtransaction's include_unsafe). */
  readonly includeUnsafe: boolean;
}

const filter = (confMine: number, confTheirs: number, maxAncestors: number, maxDescendants = maxAncestors): CoinEligibilityFilter => ({
  confMine,
  confTheirs,
  maxAncestors,
  maxDescendants,
});

/**
 * Core's rounds, in order. (1, 6, 0): confirmed coins, six confirmations on others' payments.
 * (1, 1, 0): any confirmed coin. Then own unconfirmed change whose mempool chain is at most 2,
 * at most min(4, limit/3), at most limit/2, then up to one below the limit (a spend must still
 * fit under it); others' unconfirmed payments last, and only when asked. Core's -spendzeroconfchange
 * is always on here, and its final round without any chain limit, off by default
 * (-walletrejectlongchains), is not offered.
 */
export function eligibilityFilters(o: FilterOptions): CoinEligibilityFilter[] {
  const a = o.ancestorLimit;
  const d = o.descendantLimit;
  const rounds = [
    filter(1, 6, 0),
    filter(1, 1, 0),
    filter(0, 1, 2),
    filter(0, 1, Math.min(4, Math.floor(a / 3)), Math.min(4, Math.floor(d / 3))),
    filter(0, 1, Math.floor(a / 2), Math.floor(d / 2)),
    filter(0, 1, a - 1, d - 1),
  ];
  if (o.includeUnsafe) rounds.push(filter(0, 0, a - 1, d - 1));
  return rounds;
}
