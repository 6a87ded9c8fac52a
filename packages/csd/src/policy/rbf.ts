import { hashToHex, type Transaction } from '@cs/consensus';
import type { MempoolEntry } from '../mempool/entry.ts';
import type { TxPool } from '../mempool/pool.ts';
import { feeForSize, feeRateOf, type FeeRate } from './feerate.ts';

/**
 * BIP125 replace-by-fee, with Bitcoin Core's rules (src/policy/rbf.cpp). The functions return
 * null when the rule holds, or Core's debug text when it does not; the caller turns that into
 * the reject reason Core uses for the rule.
 */

/** A sequence number at most this signals that the transaction may be replaced (BIP125). */
export const MAX_BIP125_RBF_SEQUENCE = 0xfffffffd;

/**
 * At most 100 transactions may be evicted by one replacement, so that a replacement's cost to
 * validate and relay stays bounded however large the conflicting packages are.
 */
export const MAX_REPLACEMENT_CANDIDATES = 100;

/** Whether any input of `tx` opts in to replacement. */
export function signalsOptIn(tx: Transaction): boolean {
  return tx.inputs.some((input) => input.sequence <= MAX_BIP125_RBF_SEQUENCE);
}

/**
 * BIP125 replaceability with inherited signalling: the entry or any of its unconfirmed
 * ancestors signals. (Core only looks at the conflicting transaction itself, CVE-2021-31876;
 * with full RBF, the default, neither matters.) Also what getmempoolentry's bip125-replaceable
 * reports.
 */
export function isReplaceable(entry: MempoolEntry, pool: TxPool): boolean {
  if (signalsOptIn(entry.tx)) return true;
  for (const a of pool.ancestorsOf(entry)) if (signalsOptIn(a.tx)) return true;
  return false;
}

/**
 * The replacement must pay a higher fee rate than each transaction it directly replaces, so the
 * next block gets no worse. Descendants of the conflicts are covered by the absolute fee rule.
 */
export function paysMoreThanConflicts(direct: ReadonlySet<MempoolEntry>, modifiedFee: bigint, vsize: number, txid: string): string | null {
  const replacementRate = feeRateOf(modifiedFee, vsize);
  for (const c of direct) {
    const originalRate = feeRateOf(c.modifiedFee, c.vsize);
    if (replacementRate <= originalRate) {
      return `rejecting replacement ${txid}; new feerate ${replacementRate} <= old feerate ${originalRate} (units/kvB)`;
    }
  }
  return null;
}

export type ConflictSetResult = { readonly ok: true; readonly all: Set<MempoolEntry> } | { readonly ok: false; readonly error: string };

/**
 * Every transaction the replacement evicts: the direct conflicts and their descendants, at most
 * MAX_REPLACEMENT_CANDIDATES. The count adds up each conflict's descendant count (shared
 * descendants count more than once), a conservative bound Core checks before walking the graph.
 */
export function entriesForConflicts(pool: TxPool, direct: ReadonlySet<MempoolEntry>, txid: string): ConflictSetResult {
  let count = 0;
  for (const c of direct) {
    count += c.countWithDescendants;
    if (count > MAX_REPLACEMENT_CANDIDATES) {
      return { ok: false, error: `rejecting replacement ${txid}; too many potential replacements (${count} > ${MAX_REPLACEMENT_CANDIDATES})` };
    }
  }
  return { ok: true, all: pool.withDescendants(direct) };
}

/**
 * The replacement may spend unconfirmed outputs only of transactions its conflicts already spent
 * from: a new unconfirmed parent could have a low fee rate that keeps the replacement from being
 * mined, even though it looks better than what it replaced.
 */
export function hasNoNewUnconfirmed(tx: Transaction, pool: TxPool, direct: ReadonlySet<MempoolEntry>): string | null {
  const parentsOfConflicts = new Set<string>();
  for (const c of direct) for (const input of c.tx.inputs) parentsOfConflicts.add(hashToHex(input.prevout.txid));
  for (let i = 0; i < tx.inputs.length; i++) {
    const parent = hashToHex(tx.inputs[i].prevout.txid);
    if (!parentsOfConflicts.has(parent) && pool.get(parent)) {
      return `replacement ${tx.txidHex} adds unconfirmed input, idx ${i}`;
    }
  }
  return null;
}

/**
 * The replacement pays at least the fees of everything it evicts (their relay was paid for),
 * plus its own relay at the incremental relay fee, so repeated replacements with tiny bumps
 * cannot make the network relay the same bytes over and over for free.
 */
export function paysForRbf(originalFees: bigint, replacementFees: bigint, vsize: number, incrementalRelayFee: FeeRate, txid: string): string | null {
  if (replacementFees < originalFees) {
    return `rejecting replacement ${txid}, less fees than conflicting txs; ${replacementFees} < ${originalFees}`;
  }
  const additional = replacementFees - originalFees;
  const required = feeForSize(incrementalRelayFee, vsize);
  if (additional < required) {
    return `rejecting replacement ${txid}, not enough additional fees to relay; ${additional} < ${required}`;
  }
  return null;
}
