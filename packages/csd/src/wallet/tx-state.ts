/**
 * Where a wallet transaction stands relative to the active chain (Core's TxState). Kept apart from
 * the transaction record so the record's encoding and the in-memory WalletTx both depend on it,
 * not on each other.
 */
export type TxState =
  /** In a block of the active chain. */
  | { readonly kind: 'confirmed'; readonly blockHash: string; readonly height: number; readonly index: number; readonly blockTime: number }
  /** Not in the active chain: waiting in the mempool, evicted, or (a coinbase) disconnected. Abandoned ones no longer count as spending. */
  | { readonly kind: 'inactive'; readonly abandoned: boolean }
  /** Spends an input that a transaction of the active chain spent (itself or an ancestor). */
  | { readonly kind: 'conflicted'; readonly blockHash: string; readonly height: number };

export const INACTIVE: TxState = { kind: 'inactive', abandoned: false };
