import {
  MANDATORY_SCRIPT_VERIFY_FLAGS,
  PrecomputedTxData,
  STANDARD_SCRIPT_VERIFY_FLAGS,
  ValidationError,
  checkTransaction,
  getTransactionSigOpCost,
  isFinalTx,
  moneyRange,
  scriptErrorString,
  verifyInput,
  type ChainParams,
  type OutPoint,
  type Transaction,
  type TxOut,
} from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Coin } from '../chain/coins.ts';
import { sequenceLocks, sequenceLocksSatisfied } from '../chain/sequence-locks.ts';
import { feeForSize, type FeeRate } from '../policy/feerate.ts';
import { MAX_STANDARD_TX_SIGOPS_COST, MIN_STANDARD_TX_NONWITNESS_SIZE, virtualSize, type PolicyOptions } from '../policy/policy.ts';
import { entriesForConflicts, hasNoNewUnconfirmed, isReplaceable, paysForRbf, paysMoreThanConflicts } from '../policy/rbf.ts';
import { areInputsStandard, isWitnessStandard, standardTxViolation } from '../policy/standard.ts';
import { MEMPOOL_HEIGHT, MempoolCoinView, type CoinSource } from './coin-view.ts';
import type { MempoolEntry } from './entry.ts';
import { ancestorsWithinLimits, type PackageLimits } from './limits.ts';
import type { TxPool } from './pool.ts';
import { rejected, type AcceptFailure } from './results.ts';

/** What validation reads of the chain: the tip the next block builds on, and its UTXO set. */
export interface ChainView extends CoinSource {
  readonly tip: BlockIndexEntry;
  readonly params: ChainParams;
}

export interface AcceptContext {
  readonly chain: ChainView;
  readonly pool: TxPool;
  readonly policy: PolicyOptions;
  readonly limits: PackageLimits;
  readonly fullRbf: boolean;
  /** The rolling mempool minimum fee rate (read only when needed: reading it decays it). */
  readonly mempoolMinFee: () => FeeRate;
  /** The prioritisetransaction delta of a txid (0 when none). */
  readonly feeDelta: (txid: string) => bigint;
  /** OPoI rules for the next block and clashes with unconfirmed OPoI actions (mempool/opoi-rules.ts). */
  readonly opoi: {
    check(tx: Transaction, spent: readonly TxOut[], replacing: ReadonlySet<string>): AcceptFailure | null;
  };
}

export interface AcceptArgs {
  /** Skip the fee floors (transactions of disconnected blocks, which were paid for once). */
  readonly bypassLimits: boolean;
  /** Refuse a fee above this rate times the virtual size (sigops counted); null for no cap. */
  readonly maxFeeRate: FeeRate | null;
  /** Refuse a fee above this amount; checked besides maxFeeRate. */
  readonly maxFee: bigint | null;
}

/** A transaction that passed every check, with what adding it involves. */
export interface AcceptPlan {
  readonly tx: Transaction;
  readonly fee: bigint;
  readonly modifiedFee: bigint;
  readonly vsize: number;
  readonly sigOpCost: number;
  readonly ancestors: Set<MempoolEntry>;
  /** Direct conflicts and their descendants, evicted when the plan is carried out. */
  readonly replaced: Set<MempoolEntry>;
  /** The outputs the inputs spend, in input order. */
  readonly spent: readonly TxOut[];
}

export type Validation = { readonly ok: true; readonly plan: AcceptPlan } | { readonly ok: false; readonly failure: AcceptFailure };

const fail = (failure: AcceptFailure): Validation => ({ ok: false, failure });

/**
 * Core's MemPoolAccept for one transaction: PreChecks, ReplacementChecks and PolicyScriptChecks
 * in Core's order (cheap checks first, signatures last), against a block on the current tip.
 * Changes nothing: the Mempool carries out the returned plan.
 */
export function validateForMempool(ctx: AcceptContext, tx: Transaction, args: AcceptArgs): Validation {
  const { chain, pool, policy } = ctx;
  const tip = chain.tip;

  const early = preliminaryChecks(ctx, tx);
  if (early !== null) return fail(early);
  const conflicts = findConflicts(ctx, tx);
  if (!(conflicts instanceof Set)) return fail(conflicts);
  const coins = fetchCoins(ctx, tx);
  if (!Array.isArray(coins)) return fail(coins);

  // Unconfirmed parents are assumed to confirm in the next block (Core's CalculatePrevHeights).
  const prevHeights = coins.map((c) => (c.height === MEMPOOL_HEIGHT ? tip.height + 1 : c.height));
  if (!sequenceLocksSatisfied(sequenceLocks(tx, prevHeights, tip), tip)) return fail(rejected('premature-spend', 'non-BIP68-final'));

  const inputs = checkTxInputs(ctx, tx, coins);
  if (!('fee' in inputs)) return fail(inputs);
  const { fee } = inputs;

  const spent: TxOut[] = coins.map((c) => ({ value: c.value, scriptPubKey: c.scriptPubKey }));
  if (policy.requireStandard) {
    if (!areInputsStandard(tx, spent)) return fail(rejected('inputs-not-standard', 'bad-txns-nonstandard-inputs'));
    if (tx.hasWitness && !isWitnessStandard(tx, spent)) return fail(rejected('witness-mutated', 'bad-witness-nonstandard'));
  }

  const sigOpCost = getTransactionSigOpCost(
    tx,
    spent.map((o) => o.scriptPubKey),
    STANDARD_SCRIPT_VERIFY_FLAGS,
  );
  const vsize = virtualSize(tx.weight, sigOpCost, policy.bytesPerSigop);
  if (sigOpCost > MAX_STANDARD_TX_SIGOPS_COST) return fail(rejected('not-standard', 'bad-txns-too-many-sigops', String(sigOpCost)));

  const modifiedFee = fee + ctx.feeDelta(tx.txidHex);
  if (!args.bypassLimits) {
    const floor = checkFeeRate(ctx, vsize, modifiedFee);
    if (floor !== null) return fail(floor);
  }

  const limited = ancestorsWithinLimits(pool.parentsOf(tx.inputs), vsize, ctx.limits, conflicts);
  if (!limited.ok) return fail(rejected('mempool-policy', 'too-long-mempool-chain', limited.error));
  const { ancestors } = limited;
  for (const a of ancestors) {
    // Spending an output of a transaction it replaces: the input would vanish with it.
    if (conflicts.has(a)) {
      return fail(rejected('consensus', 'bad-txns-spends-conflicting-tx', `${tx.txidHex} spends conflicting transaction ${a.txid}`));
    }
  }

  let replaced = new Set<MempoolEntry>();
  if (conflicts.size > 0) {
    const rbf = replacementChecks(ctx, tx, conflicts, modifiedFee, vsize);
    if (!rbf.ok) return rbf;
    replaced = rbf.replaced;
  }

  const opoiFailure = ctx.opoi.check(tx, spent, new Set([...replaced].map((e) => e.txid)));
  if (opoiFailure !== null) return fail(opoiFailure);

  const scriptFailure = checkScripts(tx, spent);
  if (scriptFailure !== null) return fail(scriptFailure);

  if (args.maxFeeRate !== null && args.maxFeeRate > 0n) {
    const maxFee = feeForSize(args.maxFeeRate, vsize);
    if (fee > maxFee) return fail({ kind: 'max-fee-exceeded', reason: 'max-fee-exceeded', fee, maxFee });
  }
  if (args.maxFee !== null && fee > args.maxFee) return fail({ kind: 'max-fee-exceeded', reason: 'max-fee-exceeded', fee, maxFee: args.maxFee });

  return { ok: true, plan: { tx, fee, modifiedFee, vsize, sigOpCost, ancestors, replaced, spent } };
}

/** The checks that need neither coins nor the graph: consensus basics, standardness, finality, duplicates. */
function preliminaryChecks(ctx: AcceptContext, tx: Transaction): AcceptFailure | null {
  try {
    checkTransaction(tx);
  } catch (e) {
    if (e instanceof ValidationError) return rejected('consensus', e.reason, e.debug);
    throw e;
  }
  // A coinbase is only valid as the first transaction of a block.
  if (tx.isCoinbase()) return rejected('consensus', 'coinbase');
  if (ctx.policy.requireStandard) {
    const reason = standardTxViolation(tx, ctx.policy, spendsEscrowCandidate(tx) ? PAYOUT_OUTPUTS : 0);
    if (reason !== null) return rejected('not-standard', reason);
  }
  if (tx.baseSize < MIN_STANDARD_TX_NONWITNESS_SIZE) return rejected('not-standard', 'tx-size-small');
  // Only what the next block could include: locktime against its height and the tip's MTP (BIP113).
  const tip = ctx.chain.tip;
  if (!isFinalTx(tx, tip.height + 1, tip.medianTimePast())) return rejected('premature-spend', 'non-final');
  if (ctx.pool.getByWtxid(tx.wtxidHex)) return rejected('conflict', 'txn-already-in-mempool');
  if (ctx.pool.get(tx.txidHex)) return rejected('conflict', 'txn-same-nonwitness-data-in-mempool');
  return null;
}

/**
 * The leading outputs of an OPoI payout or release, whose amounts consensus fixes: exempt from the
 * dust rule, or a tiny refund would leave an escrow no standard transaction can pay out. The
 * largest payout has 37 (winner, 16 + 17 auditors, requester, burn, challenger).
 */
const PAYOUT_OUTPUTS = 40;

/**
 * Whether an input has neither scriptSig nor witness: only a held coin (escrow, bond, collateral)
 * is standard to spend so (any other such input fails areInputsStandard), so such a transaction
 * may be a payout or a release.
 */
function spendsEscrowCandidate(tx: Transaction): boolean {
  return tx.inputs.some((i) => i.scriptSig.length === 0 && i.witness.length === 0);
}

/** The mempool transactions spending the same outpoints; without full RBF each must be replaceable. */
function findConflicts(ctx: AcceptContext, tx: Transaction): Set<MempoolEntry> | AcceptFailure {
  const conflicts = new Set<MempoolEntry>();
  for (const input of tx.inputs) {
    const conflict = ctx.pool.spender(input.prevout);
    if (!conflict || conflicts.has(conflict)) continue;
    if (!ctx.fullRbf && !isReplaceable(conflict, ctx.pool)) return rejected('mempool-policy', 'txn-mempool-conflict');
    conflicts.add(conflict);
  }
  return conflicts;
}

/** The coins the inputs spend, from the chain or the mempool (Core's view of PreChecks). */
function fetchCoins(ctx: AcceptContext, tx: Transaction): Coin[] | AcceptFailure {
  const { chain } = ctx;
  const view = new MempoolCoinView(chain, ctx.pool);
  const coins: Coin[] = [];
  const missing: OutPoint[] = [];
  for (const input of tx.inputs) {
    const coin = view.getCoin(input.prevout);
    if (coin) coins.push(coin);
    else missing.push(input.prevout);
  }
  if (missing.length > 0) {
    // Inputs gone because this very transaction spent them in a block: its outputs exist.
    const confirmed = tx.outputs.some((_, vout) => chain.getCoin({ txid: tx.txid, vout }) !== undefined);
    if (confirmed) return { kind: 'already-in-chain', reason: 'txn-already-known' };
    return { kind: 'missing-inputs', reason: 'bad-txns-inputs-missingorspent', missing };
  }
  return coins;
}

/** Core's CheckTxInputs for the next block: coinbase maturity, amounts, the fee. */
function checkTxInputs(ctx: AcceptContext, tx: Transaction, coins: readonly Coin[]): { readonly fee: bigint } | AcceptFailure {
  const { chain } = ctx;
  const nextHeight = chain.tip.height + 1;
  let valueIn = 0n;
  for (const coin of coins) {
    if (coin.coinbase && nextHeight - coin.height < chain.params.coinbaseMaturity) {
      return rejected('premature-spend', 'bad-txns-premature-spend-of-coinbase', `tried to spend coinbase at depth ${nextHeight - coin.height}`);
    }
    valueIn += coin.value;
    if (!moneyRange(coin.value) || !moneyRange(valueIn)) return rejected('consensus', 'bad-txns-inputvalues-outofrange');
  }
  const valueOut = tx.outputs.reduce((sum, o) => sum + o.value, 0n);
  if (valueIn < valueOut) return rejected('consensus', 'bad-txns-in-belowout', `value in (${valueIn}) < value out (${valueOut})`);
  const fee = valueIn - valueOut;
  if (!moneyRange(fee)) return rejected('consensus', 'bad-txns-fee-outofrange');
  return { fee };
}

/**
 * Core 28's fee floors for one transaction: the static relay minimum first (a policy failure: it
 * is not a matter of the moment, and a paying package is no help), then the rolling mempool
 * minimum (reconsiderable), as its PreChecks and CheckFeeRate do.
 */
function checkFeeRate(ctx: AcceptContext, vsize: number, modifiedFee: bigint): AcceptFailure | null {
  const relayFloor = feeForSize(ctx.policy.minRelayFee, vsize);
  if (modifiedFee < relayFloor) return rejected('mempool-policy', 'min relay fee not met', `${modifiedFee} < ${relayFloor}`);
  const mempoolFloor = feeForSize(ctx.mempoolMinFee(), vsize);
  if (mempoolFloor > 0n && modifiedFee < mempoolFloor) {
    return rejected('reconsiderable', 'mempool min fee not met', `${modifiedFee} < ${mempoolFloor}`);
  }
  return null;
}

/** Core's ReplacementChecks, in its order: fee rate, eviction count, new inputs, absolute fee. */
function replacementChecks(
  ctx: AcceptContext,
  tx: Transaction,
  direct: ReadonlySet<MempoolEntry>,
  modifiedFee: bigint,
  vsize: number,
): { readonly ok: true; readonly replaced: Set<MempoolEntry> } | { readonly ok: false; readonly failure: AcceptFailure } {
  const txid = tx.txidHex;
  const lowRate = paysMoreThanConflicts(direct, modifiedFee, vsize, txid);
  if (lowRate !== null) return { ok: false, failure: rejected('mempool-policy', 'insufficient fee', lowRate) };
  const all = entriesForConflicts(ctx.pool, direct, txid);
  if (!all.ok) return { ok: false, failure: rejected('mempool-policy', 'too many potential replacements', all.error) };
  const newInput = hasNoNewUnconfirmed(tx, ctx.pool, direct);
  if (newInput !== null) return { ok: false, failure: rejected('mempool-policy', 'replacement-adds-unconfirmed', newInput) };
  let originalFees = 0n;
  for (const e of all.all) originalFees += e.modifiedFee;
  const underpaid = paysForRbf(originalFees, modifiedFee, vsize, ctx.policy.incrementalRelayFee, txid);
  if (underpaid !== null) return { ok: false, failure: rejected('reconsiderable', 'insufficient fee', underpaid) };
  return { ok: true, replaced: all.all };
}

/**
 * Core's PolicyScriptChecks: every input under the standard flags. On a failure, the input is
 * checked again under the consensus flags alone: passing there makes the transaction merely
 * non-standard (a peer relaying it is not misbehaving); failing makes it invalid. Both report the
 * error of the standard check in the reason and nothing else, as Core does.
 */
function checkScripts(tx: Transaction, spent: readonly TxOut[]): AcceptFailure | null {
  const txdata = new PrecomputedTxData(tx);
  for (let i = 0; i < tx.inputs.length; i++) {
    const r = verifyInput(tx, i, spent[i], STANDARD_SCRIPT_VERIFY_FLAGS, txdata);
    if (r.ok) continue;
    const text = scriptErrorString(r.error);
    if (verifyInput(tx, i, spent[i], MANDATORY_SCRIPT_VERIFY_FLAGS, txdata).ok) {
      return rejected('not-standard', `non-mandatory-script-verify-flag (${text})`);
    }
    return rejected('consensus', `mandatory-script-verify-flag-failed (${text})`);
  }
  return null;
}
