import type { OutPoint } from '@cs/consensus';
import type { MempoolEntry } from './entry.ts';

/**
 * Why a transaction was refused, in Core's TxValidationResult terms: P2P relay needs it to tell a
 * peer that sent an invalid transaction from one that sent a merely unwelcome one.
 */
export type RejectCategory =
  /** Invalid under consensus rules (TX_CONSENSUS). */
  | 'consensus'
  /** Valid, but outside relay policy (TX_NOT_STANDARD). */
  | 'not-standard'
  /** Spends an output whose type is non-standard to spend (TX_INPUTS_NOT_STANDARD). */
  | 'inputs-not-standard'
  /** A witness outside the standard limits (TX_WITNESS_MUTATED). */
  | 'witness-mutated'
  /** Not minable in the next block yet: locktime, BIP68, coinbase maturity (TX_PREMATURE_SPEND). */
  | 'premature-spend'
  /** Already known (TX_CONFLICT). */
  | 'conflict'
  /** Refused by mempool rules: chains, replacement (TX_MEMPOOL_POLICY). */
  | 'mempool-policy'
  /** Fee too low right now; may pass later or with a child (TX_RECONSIDERABLE). */
  | 'reconsiderable';

export interface Rejected {
  readonly kind: 'rejected';
  readonly category: RejectCategory;
  /** Core's reject reason ("min relay fee not met", "txn-mempool-conflict", ...). */
  readonly reason: string;
  /** Core's debug text, e.g. "100 < 141"; '' when Core gives none. */
  readonly debug: string;
}

/** Some input's coin is neither in the UTXO set nor created by a mempool transaction (an orphan, or a double spend of a confirmed coin). */
export interface MissingInputs {
  readonly kind: 'missing-inputs';
  readonly reason: 'bad-txns-inputs-missingorspent';
  readonly missing: readonly OutPoint[];
}

/** The inputs are gone because the transaction itself is confirmed: an output of it is in the UTXO set. */
export interface AlreadyInChain {
  readonly kind: 'already-in-chain';
  readonly reason: 'txn-already-known';
}

/** Valid, but paying more than the caller's maxFeeRate allows. */
export interface MaxFeeExceeded {
  readonly kind: 'max-fee-exceeded';
  readonly reason: 'max-fee-exceeded';
  readonly fee: bigint;
  readonly maxFee: bigint;
}

export type AcceptFailure = Rejected | MissingInputs | AlreadyInChain | MaxFeeExceeded;

/** In the pool now. `replaced`: what it evicted under BIP125 (already removed). */
export interface Accepted {
  readonly kind: 'accepted';
  readonly entry: MempoolEntry;
  readonly replaced: readonly MempoolEntry[];
}

/** testOnly: every check passed and nothing changed. `replaced`: what it would evict. */
export interface WouldAccept {
  readonly kind: 'valid';
  readonly txid: string;
  readonly wtxid: string;
  readonly fee: bigint;
  readonly modifiedFee: bigint;
  readonly vsize: number;
  readonly replaced: readonly MempoolEntry[];
}

export type AcceptResult = Accepted | WouldAccept | AcceptFailure;

export function rejected(category: RejectCategory, reason: string, debug = ''): Rejected {
  return { kind: 'rejected', category, reason, debug };
}
