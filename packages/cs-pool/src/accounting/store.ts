/**
 * The accounting interface every store implements (LMDB on disk by default, PostgreSQL for several
 * front-ends). Stratum front-ends only append (shares, found blocks); everything that moves money
 * (crediting blocks, maturity, payouts) runs in the one payout processor, as one atomic `apply`
 * per step, so a kill -9 between two steps leaves a state the next run continues from.
 */

export interface NewShare {
  readonly address: string;
  readonly worker: string;
  /** Its difficulty, powLimit / the target it was accepted at, in units of 10^-40 (weights.ts): what it counts for in payouts. */
  readonly weight: bigint;
  /** powLimit / target, for display. */
  readonly difficulty: number;
  readonly solo: boolean;
  /** Milliseconds since the epoch. */
  readonly time: number;
  /**
   * Its header's hash (internal byte order): the share's identity, which PostgreSQL keeps unique
   * so that a batch retried after a lost answer stores it once. Not stored on LMDB.
   */
  readonly hash?: Uint8Array;
}

export interface StoredShare extends NewShare {
  readonly seq: number;
}

/**
 * new: found on the active chain, not credited yet; side: not on the active chain (stored on a side
 * branch when submitted, or reorganized away since), not credited; pending: on the active chain and
 * credited as immature; confirmed: mature, credits payable; orphaned: not on the active chain when
 * a block at its height would have been mature: final, never paid.
 */
export type BlockStatus = 'new' | 'side' | 'pending' | 'confirmed' | 'orphaned';

export interface BlockRecord {
  readonly hash: string;
  readonly height: number;
  readonly coinbaseTxid: string;
  /** What the pool's coinbase outputs pay (base units). */
  readonly reward: bigint;
  readonly finder: string;
  readonly worker: string;
  readonly solo: boolean;
  /** The seq of the share that found it: PPLNS windows end here, PROP rounds close here. */
  readonly shareSeq: number;
  /** The network difficulty at the block (powLimit / block target) in weight units: PPLNS's window is a multiple of it. */
  readonly networkWeight: bigint;
  readonly time: number;
  readonly status: BlockStatus;
  readonly confirmations: number;
  /** address -> base units credited, once credited. */
  readonly credits: Readonly<Record<string, string>>;
  readonly fee: bigint;
  /** PROP: the shares (seq ranges, exclusive start) the block was credited with, to carry over if it is orphaned. */
  readonly rounds: readonly (readonly [number, number])[];
}

export type PaymentStatus = 'signed' | 'broadcast' | 'confirmed' | 'failed';

export interface PaymentRecord {
  readonly id: number;
  readonly txid: string;
  /** The signed transaction, kept so that a restart rebroadcasts exactly it. */
  readonly hex: string;
  /** address -> base units. */
  readonly amounts: Readonly<Record<string, string>>;
  readonly status: PaymentStatus;
  readonly time: number;
}

export interface Balance {
  readonly immature: bigint;
  /** Mature and not paid yet. */
  readonly pending: bigint;
  readonly paid: bigint;
}

export interface BalanceDelta {
  readonly address: string;
  readonly immature?: bigint;
  readonly pending?: bigint;
  readonly paid?: bigint;
}

/** One atomic step of the payout processor. Balance changes are deltas, so they commute with nothing else writing balances. */
export interface LedgerChange {
  readonly balances?: readonly BalanceDelta[];
  readonly blocks?: readonly BlockRecord[];
  readonly payments?: readonly PaymentRecord[];
  readonly meta?: Readonly<Record<string, string>>;
}

export interface AccountingStore {
  /** Appends a share; returns its sequence number (increasing in commit order). */
  addShare(share: NewShare): Promise<number>;
  /** Records a block a share found (status 'new' or 'side'); a hash already recorded is ignored. */
  addBlock(block: BlockRecord): Promise<void>;
  /** Shares with seq <= `fromSeq`, newest first, lazily in pages. */
  sharesDescending(fromSeq: number): AsyncIterable<StoredShare>;
  /** Shares with after < seq <= upTo, oldest first. */
  sharesInRange(after: number, upTo: number): AsyncIterable<StoredShare>;
  blocks(): Promise<BlockRecord[]>;
  balance(address: string): Promise<Balance>;
  balances(): Promise<Map<string, Balance>>;
  payments(): Promise<PaymentRecord[]>;
  meta(key: string): Promise<string | null>;
  apply(change: LedgerChange): Promise<void>;
  /** Whether this process may run the payout processor (always on LMDB; PostgreSQL's advisory lock). */
  acquirePayoutLock(): Promise<boolean>;
  close(): Promise<void>;
}

export const ZERO_BALANCE: Balance = Object.freeze({ immature: 0n, pending: 0n, paid: 0n });
