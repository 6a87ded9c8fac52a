/**
 * The OPoI consensus rules: how each transaction of a block changes the OPoI state, and how the
 * requests whose deadline a block reaches are resolved at its end. Pure: the state is read and
 * written through OpoiState, which csd backs with its database (and the mempool with a throwaway
 * overlay), so that blocks, the mempool and tests run exactly the same rules.
 *
 * Rule failures are ValidationErrors with `bad-opoi-*` reasons; docs/protocol.md lists each.
 */
import { toHex, bytesEqual } from '../encoding/hex.ts';
import { DecodeError } from '../encoding/errors.ts';
import type { OpoiParams } from '../params/networks.ts';
import type { Block } from '../primitives/block.ts';
import type { Transaction, TxIn, TxOut } from '../primitives/tx.ts';
import { ScriptReader } from '../script/script.ts';
import { SIGHASH_ALL } from '../script/sighash.ts';
import { ValidationError } from '../validation/errors.ts';
import { moneyRange } from '../validation/limits.ts';
import { actorKey, actorScript, paysActor } from './actor.ts';
import { commitmentHex, drawWinner, escrowAmount, minimumPaymentFloor, winnerAmount } from './commitment.ts';
import { escrowRequestId, escrowScript } from './escrow.ts';
import {
  type Actor,
  ActorType,
  type CommitPayload,
  DECODING_GREEDY,
  MANIFEST_BOS_MASK,
  MANIFEST_KNOWN_FLAGS,
  type ManifestPayload,
  OpoiKind,
  type OpoiPayload,
  type RequestPayload,
  type RevealPayload,
  type StakeActionPayload,
  type StakePayload,
  TASK_OPEN,
  decodeOpoiPayload,
  isValidModelName,
  opoiPayloadBytes,
  opoiPayloadIndex,
} from './payload.ts';
import {
  type CommitRecord,
  type ManifestRecord,
  type RequestRecord,
  type StakeRecord,
  commitWindowClose,
  expiryHeight,
  revealDeadline,
  stakeStatus,
} from './records.ts';

/** Reads and writes of the OPoI state, as of the point in the chain being validated. */
export interface OpoiState {
  request(id: string): RequestRecord | undefined;
  putRequest(r: RequestRecord): void;
  commit(requestId: string, miner: string): CommitRecord | undefined;
  /** Every commit of a request. */
  commitsOf(requestId: string): CommitRecord[];
  putCommit(c: CommitRecord): void;
  stake(miner: string): StakeRecord | undefined;
  /** Stores a stake; the state indexes its collateral outpoint for collateralOwner. */
  putStake(s: StakeRecord): void;
  deleteStake(miner: string): void;
  /** The miner whose stake holds this outpoint as collateral (called for every input: keep it cheap). */
  collateralOwner(txid: Uint8Array, vout: number): string | undefined;
  manifest(modelId: string): ManifestRecord | undefined;
  putManifest(m: ManifestRecord): void;
  /** Requests to resolve at the end of the block at `height`. */
  due(height: number): string[];
  addDue(height: number, requestId: string): void;
  removeDue(height: number, requestId: string): void;
}

export type OpoiEventType =
  | 'request'
  | 'commit'
  | 'reveal'
  | 'resolved'
  | 'expired'
  | 'paid'
  | 'stake'
  | 'renew'
  | 'unstake'
  | 'released'
  | 'manifest';

/** One lifecycle step, as the chain made it (WebSocket `opoi`, ZeroMQ `opoi`). */
export interface OpoiEvent {
  readonly type: OpoiEventType;
  readonly height: number;
  /** Request id (32 hex digits) for request steps, null for stake and manifest steps. */
  readonly requestId: string | null;
  /** Actor key of the miner or staker, where one acts (the winner for `resolved`, the registrant for `manifest`). */
  readonly miner: string | null;
  /** The transaction that made the step; null for steps a block's end makes (resolved, expired). */
  readonly txid: string | null;
  /** The registered model id, on `manifest` steps only. */
  readonly modelId?: string;
}

function bad(reason: string, debug = ''): ValidationError {
  return new ValidationError(reason, debug);
}

/** Whether an input spending an actor's coin carries a SIGHASH_ALL signature (so it covers every output). */
function signsAll(input: TxIn, type: ActorType): boolean {
  let sig: Uint8Array;
  if (type === ActorType.P2WPKH) {
    if (input.witness.length !== 2) return false;
    sig = input.witness[0];
  } else {
    const r = new ScriptReader(input.scriptSig);
    if (!r.next()) return false;
    sig = r.data();
  }
  return sig.length > 0 && sig[sig.length - 1] === SIGHASH_ALL;
}

/** The acting address must sign one of the inputs, spending its own coin, with SIGHASH_ALL. */
function requireSignedBy(tx: Transaction, spent: readonly TxOut[], actor: Actor): void {
  for (let i = 0; i < tx.inputs.length; i++) {
    if (paysActor(spent[i].scriptPubKey, actor) && signsAll(tx.inputs[i], actor.type)) return;
  }
  throw bad('bad-opoi-unsigned', `no input of ${actorKey(actor)} signed with SIGHASH_ALL`);
}

/** The transaction's payload, decoded; null without one. */
export function transactionPayload(tx: Transaction): OpoiPayload | null {
  const index = opoiPayloadIndex(tx);
  if (index === -1) return null;
  if (index === -2) throw bad('bad-opoi-payload-multiple', 'more than one OPoI payload output');
  try {
    return decodeOpoiPayload(opoiPayloadBytes(tx.outputs[index].scriptPubKey)!);
  } catch (e) {
    if (e instanceof DecodeError) throw bad('bad-opoi-payload', e.message);
    throw e;
  }
}

/** The transaction's payload, or null without one or with a malformed one (for display and wallets). */
export function payloadOrNull(tx: Transaction): OpoiPayload | null {
  try {
    return transactionPayload(tx);
  } catch (e) {
    if (e instanceof ValidationError) return null;
    throw e;
  }
}

/**
 * Applies one non-coinbase transaction at `height`: collateral and escrow spends, escrow outputs,
 * then its payload. `spent` holds the outputs its inputs spend, in input order.
 */
export function applyOpoiTransaction(
  state: OpoiState,
  tx: Transaction,
  spent: readonly TxOut[],
  height: number,
  p: OpoiParams,
  events: OpoiEvent[],
): void {
  const payload = transactionPayload(tx);
  for (let i = 0; i < tx.outputs.length; i++) {
    if (escrowRequestId(tx.outputs[i].scriptPubKey) !== null && !(i === 0 && payload?.kind === OpoiKind.REQUEST)) {
      throw bad('bad-opoi-escrow-output', `output ${i} has the escrow form outside a REQUEST's output 0`);
    }
  }
  let escrowId: Uint8Array | null = null;
  for (let i = 0; i < tx.inputs.length; i++) {
    const id = escrowRequestId(spent[i].scriptPubKey);
    if (id !== null) {
      if (escrowId !== null) throw bad('bad-opoi-payout-multiple', 'a payout spends one escrow');
      escrowId = id;
    }
    const { txid, vout } = tx.inputs[i].prevout;
    const owner = state.collateralOwner(txid, vout);
    if (owner === undefined) continue;
    const stake = state.stake(owner)!;
    const status = stakeStatus(stake, height, p);
    if (status !== 'UNSTAKED') throw bad('bad-opoi-collateral-locked', `input ${i} spends the collateral of ${owner} (${status})`);
    state.deleteStake(owner);
    events.push({ type: 'released', height, requestId: null, miner: owner, txid: tx.txidHex });
  }
  if (escrowId !== null) {
    if (payload !== null) throw bad('bad-opoi-payout-payload', 'a payout carries no OPoI payload');
    applyPayout(state, tx, toHex(escrowId), height, events);
  }
  if (payload === null) return;
  switch (payload.kind) {
    case OpoiKind.REQUEST:
      return applyRequest(state, tx, spent, payload, height, p, events);
    case OpoiKind.COMMIT:
      return applyCommit(state, tx, spent, payload, height, p, events);
    case OpoiKind.REVEAL:
      return applyReveal(state, tx, spent, payload, height, p, events);
    case OpoiKind.STAKE:
      return applyStake(state, tx, spent, payload, height, p, events);
    case OpoiKind.RENEW:
    case OpoiKind.UNSTAKE:
      return applyStakeAction(state, tx, spent, payload, height, events);
    case OpoiKind.MANIFEST:
      return applyManifest(state, tx, spent, payload, height, p, events);
  }
}

function applyRequest(
  state: OpoiState,
  tx: Transaction,
  spent: readonly TxOut[],
  q: RequestPayload,
  height: number,
  p: OpoiParams,
  events: OpoiEvent[],
): void {
  requireSignedBy(tx, spent, q.requester);
  const id = toHex(q.requestId);
  if (state.request(id)) throw bad('bad-opoi-request-duplicate', `request ${id} exists`);
  if (!isValidModelName(q.model)) throw bad('bad-opoi-model', `model name '${q.model}'`);
  if (q.taskType !== TASK_OPEN) throw bad('bad-opoi-task-type', 'only OPEN tasks (no registered model manifests)');
  if (q.maxTokens < 1 || q.maxTokens > p.maxTokens) throw bad('bad-opoi-max-tokens', `max_tokens ${q.maxTokens} not in 1..${p.maxTokens}`);
  const floor = minimumPaymentFloor(p.feeBase, p.feePerPromptToken, q.promptTokenCount);
  if (q.payment <= floor) throw bad('bad-opoi-payment-too-low', `payment ${q.payment} <= ${floor}`);
  const escrow = escrowAmount(q.payment, q.feePerToken, q.maxTokens);
  const out = tx.outputs[0];
  if (!moneyRange(escrow) || !bytesEqual(out.scriptPubKey, escrowScript(q.requestId)) || out.value !== escrow) {
    throw bad('bad-opoi-escrow', `output 0 must lock ${escrow} in the request's escrow`);
  }
  const r: RequestRecord = {
    id,
    txid: tx.txidHex,
    height,
    requester: actorKey(q.requester),
    executor: q.executor ? actorKey(q.executor) : null,
    model: q.model,
    promptHash: toHex(q.promptHash),
    maxTokens: q.maxTokens,
    payment: q.payment,
    feePerToken: q.feePerToken,
    promptTokenCount: q.promptTokenCount,
    taskType: q.taskType,
    taskClass: q.taskClass,
    escrowValue: escrow,
    status: 'PENDING',
    firstCommitHeight: null,
    commits: 0,
    reveals: 0,
    winner: null,
    winnerTokens: null,
    resolvedHeight: null,
    payoutTxid: null,
    payoutHeight: null,
  };
  state.putRequest(r);
  state.addDue(expiryHeight(r, p), id);
  events.push({ type: 'request', height, requestId: id, miner: null, txid: tx.txidHex });
}

function pendingRequest(state: OpoiState, requestId: Uint8Array): RequestRecord {
  const id = toHex(requestId);
  const r = state.request(id);
  if (!r) throw bad('bad-opoi-request-unknown', `no request ${id}`);
  if (r.status !== 'PENDING') throw bad('bad-opoi-request-closed', `request ${id} is ${r.status}`);
  return r;
}

function requireActiveStake(state: OpoiState, miner: string, height: number, p: OpoiParams): void {
  const stake = state.stake(miner);
  const status = stake ? stakeStatus(stake, height, p) : 'none';
  if (status !== 'ACTIVE') throw bad('bad-opoi-stake-inactive', `stake of ${miner} is ${status}`);
}

function applyCommit(
  state: OpoiState,
  tx: Transaction,
  spent: readonly TxOut[],
  c: CommitPayload,
  height: number,
  p: OpoiParams,
  events: OpoiEvent[],
): void {
  requireSignedBy(tx, spent, c.miner);
  const r = pendingRequest(state, c.requestId);
  const miner = actorKey(c.miner);
  if (r.executor !== null && miner !== r.executor) throw bad('bad-opoi-not-executor', `request ${r.id} is bound to ${r.executor}, not ${miner}`);
  const close = commitWindowClose(r, p);
  if (height <= r.height || (close !== null && height > close)) {
    throw bad('bad-opoi-commit-window', `height ${height} outside the commit window (${r.height + 1}..${close ?? 'first commit + window'})`);
  }
  requireActiveStake(state, miner, height, p);
  if (state.commit(r.id, miner)) throw bad('bad-opoi-commit-duplicate', `${miner} already committed`);
  if (r.commits >= p.maxCommits) throw bad('bad-opoi-commits-full', `request has ${r.commits} commits`);
  state.putCommit({ requestId: r.id, miner, commitment: toHex(c.commitment), txid: tx.txidHex, height, reveal: null });
  const opened = r.firstCommitHeight === null ? { ...r, firstCommitHeight: height } : r;
  if (r.firstCommitHeight === null) {
    state.removeDue(expiryHeight(r, p), r.id);
    state.addDue(revealDeadline(opened, p)!, r.id);
  }
  state.putRequest({ ...opened, commits: r.commits + 1 });
  events.push({ type: 'commit', height, requestId: r.id, miner, txid: tx.txidHex });
}

function applyReveal(
  state: OpoiState,
  tx: Transaction,
  spent: readonly TxOut[],
  v: RevealPayload,
  height: number,
  p: OpoiParams,
  events: OpoiEvent[],
): void {
  requireSignedBy(tx, spent, v.miner);
  const r = pendingRequest(state, v.requestId);
  const close = commitWindowClose(r, p);
  if (close === null || height <= close) throw bad('bad-opoi-reveal-early', `the commit window is open until height ${close ?? '(no commit yet)'}`);
  const miner = actorKey(v.miner);
  const c = state.commit(r.id, miner);
  if (!c) throw bad('bad-opoi-reveal-no-commit', `${miner} did not commit`);
  if (c.reveal) throw bad('bad-opoi-reveal-duplicate', `${miner} already revealed`);
  if (v.tokenCount > r.maxTokens) throw bad('bad-opoi-token-count', `token_count ${v.tokenCount} > max_tokens ${r.maxTokens}`);
  if (commitmentHex(v.requestId, v.miner, v.responseHash, v.tokenCount, v.salt) !== c.commitment) {
    throw bad('bad-opoi-reveal-mismatch', 'response hash, token count, salt and miner do not hash to the commitment');
  }
  requireActiveStake(state, miner, height, p);
  const reveal = { responseHash: toHex(v.responseHash), tokenCount: v.tokenCount, salt: toHex(v.salt), txid: tx.txidHex, height };
  state.putCommit({ ...c, reveal });
  state.putRequest({ ...r, reveals: r.reveals + 1 });
  events.push({ type: 'reveal', height, requestId: r.id, miner, txid: tx.txidHex });
}

function applyStake(
  state: OpoiState,
  tx: Transaction,
  spent: readonly TxOut[],
  s: StakePayload,
  height: number,
  p: OpoiParams,
  events: OpoiEvent[],
): void {
  requireSignedBy(tx, spent, s.miner);
  const miner = actorKey(s.miner);
  if (state.stake(miner)) throw bad('bad-opoi-stake-exists', `${miner} has a stake; spend its collateral after UNSTAKE first`);
  const out = tx.outputs[0];
  if (!paysActor(out.scriptPubKey, s.miner) || out.value < p.minStake) {
    throw bad('bad-opoi-stake-collateral', `output 0 must pay at least ${p.minStake} to the staker`);
  }
  const serves = s.serves ?? [];
  serves.forEach((id, i) => {
    if (serves.indexOf(id) !== i) throw bad('bad-opoi-stake-manifest', `manifest '${id}' is listed twice`);
    if (!state.manifest(id)) throw bad('bad-opoi-stake-manifest', `no registered manifest '${id}'`);
  });
  state.putStake({
    miner,
    collateralTxid: tx.txidHex,
    collateralVout: 0,
    amount: out.value,
    modelId: s.modelId,
    endpoint: s.endpoint,
    serves: [...serves],
    txid: tx.txidHex,
    height,
    renewedHeight: height,
    unstakeHeight: null,
  });
  events.push({ type: 'stake', height, requestId: null, miner, txid: tx.txidHex });
}

function applyStakeAction(
  state: OpoiState,
  tx: Transaction,
  spent: readonly TxOut[],
  a: StakeActionPayload,
  height: number,
  events: OpoiEvent[],
): void {
  requireSignedBy(tx, spent, a.miner);
  const miner = actorKey(a.miner);
  const s = state.stake(miner);
  if (!s) throw bad('bad-opoi-stake-missing', `${miner} has no stake`);
  if (s.unstakeHeight !== null) throw bad('bad-opoi-stake-unstaking', `${miner} unstaked at height ${s.unstakeHeight}`);
  const renew = a.kind === OpoiKind.RENEW;
  state.putStake(renew ? { ...s, renewedHeight: height } : { ...s, unstakeHeight: height });
  events.push({ type: renew ? 'renew' : 'unstake', height, requestId: null, miner, txid: tx.txidHex });
}

function applyManifest(
  state: OpoiState,
  tx: Transaction,
  spent: readonly TxOut[],
  m: ManifestPayload,
  height: number,
  p: OpoiParams,
  events: OpoiEvent[],
): void {
  requireSignedBy(tx, spent, m.registrant);
  if (!isValidModelName(m.modelId)) throw bad('bad-opoi-model', `model id '${m.modelId}'`);
  if (state.manifest(m.modelId)) throw bad('bad-opoi-manifest-exists', `manifest '${m.modelId}' is registered (manifests are immutable)`);
  if (m.ggufSize === 0n) throw bad('bad-opoi-manifest-file', 'a GGUF file is not empty');
  if (m.decoding !== DECODING_GREEDY || (m.flags & ~MANIFEST_KNOWN_FLAGS) !== 0 || (m.flags & MANIFEST_BOS_MASK) === MANIFEST_BOS_MASK) {
    throw bad('bad-opoi-manifest-rule', `unknown decoding ${m.decoding} or flags 0x${m.flags.toString(16)}`);
  }
  // The fee is burned: an OP_RETURN output's value can never be spent, and unlike a miner fee a
  // miner cannot pay it back to itself by registering in its own block.
  const fee = tx.outputs[opoiPayloadIndex(tx)].value;
  if (fee < p.manifestFee) throw bad('bad-opoi-manifest-fee', `the payload output burns ${fee}, less than ${p.manifestFee}`);
  const registrant = actorKey(m.registrant);
  state.putManifest({
    modelId: m.modelId,
    registrant,
    ggufSha256: toHex(m.ggufSha256),
    ggufSize: m.ggufSize,
    decoding: m.decoding,
    flags: m.flags,
    templateHash: m.templateHash ? toHex(m.templateHash) : null,
    tolerance: m.tolerance,
    fee,
    txid: tx.txidHex,
    height,
  });
  events.push({ type: 'manifest', height, requestId: null, miner: registrant, txid: tx.txidHex, modelId: m.modelId });
}

function applyPayout(state: OpoiState, tx: Transaction, id: string, height: number, events: OpoiEvent[]): void {
  const r = state.request(id);
  if (!r || r.status === 'PENDING') throw bad('bad-opoi-payout-unresolved', `request ${id} is not resolved`);
  const expected = payoutOutputs(r);
  expected.forEach((want, i) => {
    const out = tx.outputs[i];
    if (!out || out.value !== want.value || toHex(out.scriptPubKey) !== want.script) {
      throw bad('bad-opoi-payout-outputs', `output ${i} must pay ${want.value} to ${want.script}`);
    }
  });
  state.putRequest({ ...r, payoutTxid: tx.txidHex, payoutHeight: height });
  events.push({ type: 'paid', height, requestId: id, miner: r.winner, txid: tx.txidHex });
}

/** An actor key's output script, hex. */
export function actorKeyScript(key: string): string {
  const type = key.startsWith('00') ? ActorType.P2WPKH : ActorType.P2PKH;
  return toHex(actorScript({ type, hash: Buffer.from(key.slice(2), 'hex') }));
}

/**
 * The leading outputs a resolved request's payout must have, in order: the winner's pay then the
 * requester's change (when any is left), or the whole escrow back to the requester on expiry.
 */
export function payoutOutputs(r: RequestRecord): { readonly script: string; readonly value: bigint }[] {
  if (r.status === 'EXPIRED') return [{ script: actorKeyScript(r.requester), value: r.escrowValue }];
  const pay = winnerAmount(r.payment, r.feePerToken, r.winnerTokens!);
  const outs = [{ script: actorKeyScript(r.winner!), value: pay }];
  if (r.escrowValue > pay) outs.push({ script: actorKeyScript(r.requester), value: r.escrowValue - pay });
  return outs;
}

/** Resolves the requests due at the end of the block at `height` (hash `blockHash`, internal byte order). */
export function resolveOpoiBlock(state: OpoiState, height: number, blockHash: Uint8Array, events: OpoiEvent[]): void {
  for (const id of state.due(height)) {
    state.removeDue(height, id);
    const r = state.request(id)!;
    const revealed = state.commitsOf(id).filter((c) => c.reveal !== null);
    if (revealed.length === 0) {
      state.putRequest({ ...r, status: 'EXPIRED', resolvedHeight: height });
      events.push({ type: 'expired', height, requestId: id, miner: null, txid: null });
      continue;
    }
    const winner = drawWinner(
      blockHash,
      Buffer.from(id, 'hex'),
      revealed.map((c) => c.miner),
    );
    const tokens = revealed.find((c) => c.miner === winner)!.reveal!.tokenCount;
    state.putRequest({ ...r, status: 'FULFILLED', winner, winnerTokens: tokens, resolvedHeight: height });
    events.push({ type: 'resolved', height, requestId: id, miner: winner, txid: null });
  }
}

/**
 * Applies a whole block: the coinbase carries no OPoI outputs, every other transaction in order
 * (`spent[t - 1]` = the outputs transaction t spends), then the requests due at its height.
 */
export function applyOpoiBlock(
  state: OpoiState,
  block: Block,
  spent: readonly (readonly TxOut[])[],
  height: number,
  blockHash: Uint8Array,
  p: OpoiParams,
): OpoiEvent[] {
  const events: OpoiEvent[] = [];
  const coinbase = block.txs[0];
  if (coinbase.outputs.some((o) => opoiPayloadBytes(o.scriptPubKey) !== null || escrowRequestId(o.scriptPubKey) !== null)) {
    throw bad('bad-opoi-coinbase', 'the coinbase carries no OPoI payload or escrow');
  }
  for (let t = 1; t < block.txs.length; t++) applyOpoiTransaction(state, block.txs[t], spent[t - 1], height, p, events);
  resolveOpoiBlock(state, height, blockHash, events);
  return events;
}
