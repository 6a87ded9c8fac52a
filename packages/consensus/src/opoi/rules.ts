/**
 * The OPoI consensus rules: how each transaction of a block changes the OPoI state, and how the
 * requests whose deadline a block reaches are resolved at its end. Pure: the state is read and
 * written through OpoiState, which csd backs with its database (and the mempool with a throwaway
 * overlay), so that blocks, the mempool and tests run exactly the same rules.
 *
 * Rule failures are ValidationErrors with `bad-opoi-*` reasons; docs/protocol.md lists each.
 */
import { toHex, bytesEqual } from '../encoding/hex.ts';
import type { OpoiParams } from '../params/networks.ts';
import type { Block } from '../primitives/block.ts';
import type { Transaction, TxOut } from '../primitives/tx.ts';
import { moneyRange } from '../validation/limits.ts';
import { actorKey } from './actor.ts';
import { applyChallenge, applyPublish, applyVerdictCommit, applyVerdictReveal, settleAudit, unlockWinner } from './audit.ts';
import { commitmentHex, drawWinner, escrowAmount, minimumPaymentFloor } from './commitment.ts';
import { collateralActor, collateralScript, escrowRequestId, escrowScript } from './escrow.ts';
import {
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
  MAX_VERIFIABLE_TOKENS,
  TASK_OPEN,
  TASK_VERIFIABLE,
  isValidModelName,
  opoiPayloadBytes,
  opoiPayloadIndex,
} from './payload.ts';
import { applyPayout, releaseOutput } from './payout.ts';
import { type RequestRecord, commitWindowClose, expiryHeight, publishDeadline, revealDeadline, stakeStatus } from './records.ts';
import {
  type OpoiEvent,
  type OpoiState,
  activeServers,
  bad,
  knownRequest,
  requireActiveStake,
  requireSignedBy,
  transactionPayload,
} from './state.ts';

/** Where an output may take a held-coin form: a REQUEST's escrow and a CHALLENGE's bond at output 0, a STAKE's collateral at output 0. */
function checkHeldOutputs(tx: Transaction, payload: OpoiPayload | null): void {
  for (let i = 0; i < tx.outputs.length; i++) {
    const script = tx.outputs[i].scriptPubKey;
    const escrow = escrowRequestId(script);
    if (escrow !== null) {
      const holds = i === 0 && (payload?.kind === OpoiKind.REQUEST || payload?.kind === OpoiKind.CHALLENGE) && bytesEqual(escrow, payload.requestId);
      if (!holds) throw bad('bad-opoi-escrow-output', `output ${i} has the escrow form outside a REQUEST's or CHALLENGE's output 0`);
    }
    if (collateralActor(script) !== null && !(i === 0 && payload?.kind === OpoiKind.STAKE)) {
      throw bad('bad-opoi-collateral-output', `output ${i} has the collateral form outside a STAKE's output 0`);
    }
  }
}

/**
 * Applies one non-coinbase transaction at `height`: held-coin outputs, spends of escrows and
 * collateral (payouts, releases), then its payload. `spent` holds the outputs its inputs spend, in
 * input order.
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
  checkHeldOutputs(tx, payload);
  let escrowId: string | null = null;
  let forfeitOf: string | null = null;
  let released: string | null = null;
  for (let i = 0; i < tx.inputs.length; i++) {
    const id = escrowRequestId(spent[i].scriptPubKey);
    if (id !== null) {
      const hex = toHex(id);
      if (escrowId !== null && escrowId !== hex) throw bad('bad-opoi-payout-multiple', 'a payout spends the held coins of one request');
      escrowId = hex;
    }
    const { txid, vout } = tx.inputs[i].prevout;
    const owner = state.collateralOwner(txid, vout);
    if (owner === undefined) continue;
    const stake = state.stake(owner)!;
    if (stake.forfeitedBy !== null) {
      // Each forfeited collateral is its own request's: two of different requests never share a payout.
      if (forfeitOf !== null && forfeitOf !== stake.forfeitedBy)
        throw bad('bad-opoi-collateral-locked', `a forfeited collateral is spent only by the payout of request ${stake.forfeitedBy}`);
      forfeitOf = stake.forfeitedBy;
      continue;
    }
    const status = stakeStatus(stake, height, p);
    if (status !== 'UNSTAKED' || stake.locks > 0) {
      const why = stake.locks > 0 ? `${stake.locks} audit(s) of its answers pending` : status;
      throw bad('bad-opoi-collateral-locked', `input ${i} spends the collateral of ${owner} (${why})`);
    }
    if (released !== null) throw bad('bad-opoi-release-multiple', 'a transaction releases one collateral');
    released = owner;
  }
  if (forfeitOf !== null && forfeitOf !== escrowId)
    throw bad('bad-opoi-collateral-locked', `a forfeited collateral is spent only by the payout of request ${forfeitOf}`);
  if (released !== null) {
    const want = releaseOutput(state.stake(released)!);
    const out = tx.outputs[0];
    if (escrowId !== null || toHex(out.scriptPubKey) !== want.script || out.value !== want.value) {
      throw bad('bad-opoi-release-outputs', `output 0 must pay the whole collateral, ${want.value}, to ${want.script}`);
    }
    state.deleteStake(released);
    events.push({ type: 'released', height, requestId: null, miner: released, txid: tx.txidHex });
  }
  if (escrowId !== null) {
    if (payload !== null) throw bad('bad-opoi-payout-payload', 'a payout carries no OPoI payload');
    applyPayout(state, tx, escrowId, height, events);
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
    case OpoiKind.PUBLISH:
      return applyPublish(state, tx, payload, height, p, events);
    case OpoiKind.CHALLENGE:
      return applyChallenge(state, tx, spent, payload, height, p, events);
    case OpoiKind.VERDICT_COMMIT:
      return applyVerdictCommit(state, tx, spent, payload, height, events);
    case OpoiKind.VERDICT_REVEAL:
      return applyVerdictReveal(state, tx, spent, payload, height, events);
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
  if (q.taskType !== TASK_OPEN && q.taskType !== TASK_VERIFIABLE) throw bad('bad-opoi-task-type', `task type ${q.taskType}`);
  const verifiable = q.taskType === TASK_VERIFIABLE;
  const maxTokens = verifiable ? Math.min(p.maxTokens, MAX_VERIFIABLE_TOKENS) : p.maxTokens;
  if (q.maxTokens < 1 || q.maxTokens > maxTokens) throw bad('bad-opoi-max-tokens', `max_tokens ${q.maxTokens} not in 1..${maxTokens}`);
  const floor = minimumPaymentFloor(p.feeBase, p.feePerPromptToken, q.promptTokenCount);
  if (q.payment <= floor) throw bad('bad-opoi-payment-too-low', `payment ${q.payment} <= ${floor}`);
  const quorum = q.auditQuorum ?? 0;
  const auditFee = q.auditFee ?? 0n;
  if (verifiable) checkVerifiable(state, q, height, p);
  const escrow = escrowAmount(q.payment, q.feePerToken, q.maxTokens) + BigInt(quorum) * auditFee;
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
    auditQuorum: quorum,
    auditFee,
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
    publishTxid: null,
    publishHeight: null,
  };
  state.putRequest(r);
  state.addDue(expiryHeight(r, p), id);
  events.push({ type: 'request', height, requestId: id, miner: null, txid: tx.txidHex });
}

/** A VERIFIABLE request names a registered manifest, a quorum, a fee, and enough auditors to draw from. */
function checkVerifiable(state: OpoiState, q: RequestPayload, height: number, p: OpoiParams): void {
  if (!state.manifest(q.model)) throw bad('bad-opoi-manifest-unknown', `no registered manifest '${q.model}'`);
  const quorum = q.auditQuorum!;
  if (quorum < 1 || quorum > p.maxAuditQuorum) throw bad('bad-opoi-audit-quorum', `audit quorum ${quorum} not in 1..${p.maxAuditQuorum}`);
  if (q.auditFee! < p.minAuditFee) throw bad('bad-opoi-audit-fee', `audit fee ${q.auditFee} < ${p.minAuditFee}`);
  const exclude = new Set([actorKey(q.requester)]);
  if (q.executor) exclude.add(actorKey(q.executor));
  const servers = activeServers(state, q.model, height, p, exclude, quorum).length;
  if (servers < quorum)
    throw bad(
      'bad-opoi-audit-servers',
      `${servers} ACTIVE stakers other than the requester and executor serve '${q.model}', fewer than the quorum ${quorum}`,
    );
}

function pendingRequest(state: OpoiState, requestId: Uint8Array): RequestRecord {
  const r = knownRequest(state, requestId);
  if (r.status !== 'PENDING') throw bad('bad-opoi-request-closed', `request ${r.id} is ${r.status}`);
  return r;
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
  const stake = requireActiveStake(state, miner, height, p);
  if (r.taskType === TASK_VERIFIABLE && !stake.serves.includes(r.model)) {
    throw bad('bad-opoi-stake-manifest', `the stake of ${miner} does not serve manifest '${r.model}'`);
  }
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
  if (!bytesEqual(out.scriptPubKey, collateralScript(s.miner)) || out.value < p.minStake) {
    throw bad('bad-opoi-stake-collateral', `output 0 must lock at least ${p.minStake} in the staker's collateral form`);
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
    locks: 0,
    forfeitedBy: null,
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
  if (s.forfeitedBy !== null) throw bad('bad-opoi-stake-forfeited', `the collateral of ${miner} was forfeited by request ${s.forfeitedBy}`);
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

/**
 * Settles the requests due at the end of the block at `height` (hash `blockHash`, internal byte
 * order): resolves the ones whose commit or reveal window ended, expires a VERIFIABLE answer left
 * unpublished, and takes audits through their draws and outcome.
 */
export function resolveOpoiBlock(state: OpoiState, height: number, blockHash: Uint8Array, p: OpoiParams, events: OpoiEvent[]): void {
  for (const id of state.due(height)) {
    state.removeDue(height, id);
    const r = state.request(id)!;
    if (r.status === 'AUDITING') {
      settleAudit(state, r, height, blockHash, p, events);
      continue;
    }
    if (r.status === 'PUBLISHING') {
      unlockWinner(state, r);
      state.putRequest({ ...r, status: 'EXPIRED' });
      events.push({ type: 'expired', height, requestId: id, miner: null, txid: null });
      continue;
    }
    // A VERIFIABLE answer is paid against collateral: a revealer whose stake another outcome took
    // since its reveal has none left to lose, and is left out of the draw.
    const staked = (miner: string) => r.taskType !== TASK_VERIFIABLE || state.stake(miner)?.forfeitedBy === null;
    const revealed = state.commitsOf(id).filter((c) => c.reveal !== null && staked(c.miner));
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
    const resolved: RequestRecord = { ...r, status: 'FULFILLED', winner, winnerTokens: tokens, resolvedHeight: height };
    if (r.taskType === TASK_VERIFIABLE) {
      // Paid only after its answer is published and audited; until then the winner's collateral stays.
      // A stake another outcome already took (forfeited, maybe paid out and gone) has nothing left to lock.
      const s = state.stake(winner);
      if (s && s.forfeitedBy === null) state.putStake({ ...s, locks: s.locks + 1 });
      state.putRequest({ ...resolved, status: 'PUBLISHING' });
      state.addDue(publishDeadline(resolved, p)!, id);
    } else {
      state.putRequest(resolved);
    }
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
  const held = (s: Uint8Array) => escrowRequestId(s) !== null || collateralActor(s) !== null;
  if (coinbase.outputs.some((o) => opoiPayloadBytes(o.scriptPubKey) !== null || held(o.scriptPubKey))) {
    throw bad('bad-opoi-coinbase', 'the coinbase carries no OPoI payload, escrow or collateral');
  }
  for (let t = 1; t < block.txs.length; t++) applyOpoiTransaction(state, block.txs[t], spent[t - 1], height, p, events);
  resolveOpoiBlock(state, height, blockHash, p, events);
  return events;
}
