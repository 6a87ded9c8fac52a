/**
 * The VERIFIABLE steps after the winner draw: the publish of the prompt and answer, the auditor
 * draws, verdicts committed then revealed, a challenge, and the outcome that decides who the
 * request's held coins pay (payout.ts). docs/protocol.md (OPoI, verifiable requests) has the
 * windows and the reasons.
 */
import { sha256Hex } from '../crypto/hash.ts';
import { bytesEqual, toHex } from '../encoding/hex.ts';
import type { OpoiParams } from '../params/networks.ts';
import type { Transaction, TxOut } from '../primitives/tx.ts';
import { actorKey } from './actor.ts';
import { drawAuditors, verdictCommitment, verifiableResponseHash } from './commitment.ts';
import { escrowScript } from './escrow.ts';
import {
  type ChallengePayload,
  type PublishPayload,
  TASK_VERIFIABLE,
  VERDICT_INVALID,
  VERDICT_VALID,
  type VerdictCommitPayload,
  type VerdictRevealPayload,
} from './payload.ts';
import { type AuditRecord, type AuditorRecord, type RequestRecord, VERDICT_NONE, publishDeadline } from './records.ts';
import { type OpoiEvent, type OpoiState, activeServers, bad, knownRequest, requireSignedBy } from './state.ts';

export function applyPublish(state: OpoiState, tx: Transaction, u: PublishPayload, height: number, p: OpoiParams, events: OpoiEvent[]): void {
  const r = knownRequest(state, u.requestId);
  if (r.publishTxid !== null) throw bad('bad-opoi-publish-duplicate', `request ${r.id} was published in ${r.publishTxid}`);
  const verifiable = r.taskType === TASK_VERIFIABLE;
  if (r.status !== (verifiable ? 'PUBLISHING' : 'FULFILLED')) throw bad('bad-opoi-publish-window', `request ${r.id} is ${r.status}`);
  if (sha256Hex(u.prompt) !== r.promptHash) throw bad('bad-opoi-publish-prompt', 'the prompt does not hash to prompt_hash');
  const reveal = state.commit(r.id, r.winner!)!.reveal!;
  const responseHash = verifiable ? toHex(verifiableResponseHash(u.tokens, u.output)) : sha256Hex(u.output);
  if ((verifiable ? u.tokens.length !== reveal.tokenCount : u.tokens.length !== 0) || responseHash !== reveal.responseHash) {
    throw bad(
      'bad-opoi-publish-output',
      `the output does not hash to the winner's revealed response hash${verifiable ? ' with its token count' : ''}`,
    );
  }
  state.putRequest({ ...r, publishTxid: tx.txidHex, publishHeight: height, status: verifiable ? 'AUDITING' : r.status });
  events.push({ type: 'publish', height, requestId: r.id, miner: null, txid: tx.txidHex });
  if (!verifiable) return;
  state.removeDue(publishDeadline(r, p)!, r.id);
  const drawHeight = height + 1;
  const commitClose = drawHeight + p.auditCommitWindow;
  const audit: AuditRecord = {
    requestId: r.id,
    drawHeight,
    commitClose,
    revealDeadline: commitClose + p.auditRevealWindow,
    challenger: null,
    bond: 0n,
    challengeTxid: null,
    challengeHeight: null,
    auditors: [],
    outcome: null,
    forfeited: 0n,
    forfeitTxid: null,
    forfeitVout: 0,
  };
  state.putAudit(audit);
  state.addDue(drawHeight, r.id);
  state.addDue(audit.revealDeadline, r.id);
}

/** The audit of a request in its AUDITING status, or the reason refusing an audit step. */
function openAudit(state: OpoiState, requestId: Uint8Array, reason: string): AuditRecord {
  // An audit record exists from the publish on and has its outcome once the request is settled,
  // so it alone says whether the request is AUDITING: verdicts need not read the request.
  const a = state.audit(toHex(requestId));
  if (a && a.outcome === null) return a;
  const r = knownRequest(state, requestId);
  throw bad(reason, `request ${r.id} is ${r.status}`);
}

export function applyChallenge(
  state: OpoiState,
  tx: Transaction,
  spent: readonly TxOut[],
  c: ChallengePayload,
  height: number,
  p: OpoiParams,
  events: OpoiEvent[],
): void {
  requireSignedBy(tx, spent, c.challenger);
  const a = openAudit(state, c.requestId, 'bad-opoi-challenge-window');
  if (height <= a.drawHeight || height > a.commitClose) {
    throw bad('bad-opoi-challenge-window', `height ${height} outside ${a.drawHeight + 1}..${a.commitClose}`);
  }
  if (a.challenger !== null) throw bad('bad-opoi-challenge-duplicate', `request ${a.requestId} was challenged in ${a.challengeTxid}`);
  const out = tx.outputs[0];
  if (!bytesEqual(out.scriptPubKey, escrowScript(c.requestId)) || out.value < p.challengeBond) {
    throw bad('bad-opoi-challenge-bond', `output 0 must hold at least ${p.challengeBond} in the request's escrow`);
  }
  // The challenge's auditors need a whole commit window after their draw, which is the next block.
  const commitClose = Math.max(a.commitClose, height + 1 + p.auditCommitWindow);
  const revealDeadline = commitClose + p.auditRevealWindow;
  state.removeDue(a.revealDeadline, a.requestId);
  state.addDue(height + 1, a.requestId);
  state.addDue(revealDeadline, a.requestId);
  const challenger = actorKey(c.challenger);
  state.putAudit({ ...a, challenger, bond: out.value, challengeTxid: tx.txidHex, challengeHeight: height, commitClose, revealDeadline });
  events.push({ type: 'challenge', height, requestId: a.requestId, miner: challenger, txid: tx.txidHex });
}

/** What both verdict steps start with: the auditor's signature, an open audit, and the auditor's entry in it. */
function drawnAuditor(state: OpoiState, tx: Transaction, spent: readonly TxOut[], v: VerdictCommitPayload | VerdictRevealPayload) {
  requireSignedBy(tx, spent, v.auditor);
  const a = openAudit(state, v.requestId, 'bad-opoi-audit-closed');
  const auditor = actorKey(v.auditor);
  const i = a.auditors.findIndex((x) => x.auditor === auditor);
  if (i < 0) throw bad('bad-opoi-not-auditor', `${auditor} was not drawn to audit request ${a.requestId}`);
  return { a, auditor, i, x: a.auditors[i] };
}

function withAuditor(a: AuditRecord, i: number, x: AuditorRecord): AuditRecord {
  return { ...a, auditors: a.auditors.map((y, j) => (j === i ? x : y)) };
}

export function applyVerdictCommit(
  state: OpoiState,
  tx: Transaction,
  spent: readonly TxOut[],
  v: VerdictCommitPayload,
  height: number,
  events: OpoiEvent[],
): void {
  const { a, auditor, i, x } = drawnAuditor(state, tx, spent, v);
  // Being drawn already means the block after the draw or later: only the end of the window is checked.
  if (height > a.commitClose) throw bad('bad-opoi-verdict-window', `verdict commits closed at height ${a.commitClose}`);
  if (x.commitment !== null) throw bad('bad-opoi-verdict-duplicate', `${auditor} already committed a verdict`);
  state.putAudit(withAuditor(a, i, { ...x, commitment: toHex(v.commitment), commitTxid: tx.txidHex }));
  events.push({ type: 'verdict-commit', height, requestId: a.requestId, miner: auditor, txid: tx.txidHex });
}

export function applyVerdictReveal(
  state: OpoiState,
  tx: Transaction,
  spent: readonly TxOut[],
  v: VerdictRevealPayload,
  height: number,
  events: OpoiEvent[],
): void {
  const { a, auditor, i, x } = drawnAuditor(state, tx, spent, v);
  if (height <= a.commitClose) throw bad('bad-opoi-verdict-early', `verdict reveals open after height ${a.commitClose}`);
  if (x.commitment === null) throw bad('bad-opoi-verdict-no-commit', `${auditor} committed no verdict`);
  if (x.verdict !== VERDICT_NONE) throw bad('bad-opoi-verdict-duplicate', `${auditor} already revealed its verdict`);
  if (v.verdict !== VERDICT_VALID && v.verdict !== VERDICT_INVALID)
    throw bad('bad-opoi-verdict', `verdict ${v.verdict} is neither valid (1) nor invalid (2)`);
  if (toHex(verdictCommitment(v.requestId, v.auditor, v.verdict, v.salt)) !== x.commitment) {
    throw bad('bad-opoi-verdict-mismatch', 'verdict, salt and auditor do not hash to the verdict commitment');
  }
  state.putAudit(withAuditor(a, i, { ...x, verdict: v.verdict, revealTxid: tx.txidHex }));
  events.push({ type: 'verdict-reveal', height, requestId: a.requestId, miner: auditor, txid: tx.txidHex });
}

/** Releases the lock a VERIFIABLE win put on the winner's stake, when that stake is still the one locked. */
export function unlockWinner(state: OpoiState, r: RequestRecord): void {
  const s = state.stake(r.winner!);
  if (s && s.forfeitedBy === null && s.height <= r.resolvedHeight! && s.locks > 0) state.putStake({ ...s, locks: s.locks - 1 });
}

function draw(
  state: OpoiState,
  r: RequestRecord,
  a: AuditRecord,
  round: number,
  count: number,
  height: number,
  blockHash: Uint8Array,
  p: OpoiParams,
  events: OpoiEvent[],
): AuditRecord {
  const exclude = new Set([r.winner!, r.requester, ...a.auditors.map((x) => x.auditor)]);
  if (a.challenger !== null) exclude.add(a.challenger);
  const drawn = drawAuditors(blockHash, Buffer.from(r.id, 'hex'), round, activeServers(state, r.model, height, p, exclude), count);
  for (const auditor of drawn) events.push({ type: 'auditor', height, requestId: r.id, miner: auditor, txid: null });
  const added = drawn.map((auditor) => ({ auditor, round, commitment: null, commitTxid: null, verdict: VERDICT_NONE, revealTxid: null }));
  return { ...a, auditors: [...a.auditors, ...added] };
}

/** The end-of-block steps of an AUDITING request: its draws and, at the reveal deadline, its outcome. */
export function settleAudit(state: OpoiState, r: RequestRecord, height: number, blockHash: Uint8Array, p: OpoiParams, events: OpoiEvent[]): void {
  let a = state.audit(r.id)!;
  if (height === a.drawHeight) a = draw(state, r, a, 0, r.auditQuorum, height, blockHash, p, events);
  if (a.challengeHeight !== null && height === a.challengeHeight + 1) a = draw(state, r, a, 1, r.auditQuorum + 1, height, blockHash, p, events);
  if (height !== a.revealDeadline) {
    state.putAudit(a);
    return;
  }
  const valid = a.auditors.filter((x) => x.verdict === VERDICT_VALID).length;
  const invalid = a.auditors.filter((x) => x.verdict === VERDICT_INVALID).length;
  const outcome = invalid > valid ? 'invalid' : valid > 0 ? 'valid' : 'unaudited';
  if (outcome === 'invalid') {
    const s = state.stake(r.winner!);
    // A stake another invalid outcome took, or a new stake made after this win, is not this cheat's to lose.
    if (s && s.forfeitedBy === null && s.height <= r.resolvedHeight!) {
      state.putStake({ ...s, forfeitedBy: r.id });
      a = { ...a, forfeited: s.amount, forfeitTxid: s.collateralTxid, forfeitVout: s.collateralVout };
      events.push({ type: 'forfeit', height, requestId: r.id, miner: r.winner, txid: null });
    }
  } else {
    unlockWinner(state, r);
  }
  state.putAudit({ ...a, outcome });
  const status = outcome === 'invalid' ? 'REJECTED' : outcome === 'valid' ? 'FULFILLED' : 'EXPIRED';
  state.putRequest({ ...r, status });
  events.push({ type: 'audited', height, requestId: r.id, miner: r.winner, txid: null, outcome });
}
