/**
 * What a settled request's held coins pay, and what releases a stake's collateral. Every payout is
 * one transaction spending all of the request's held coins (its escrow, a challenge's bond, a
 * forfeited collateral) whose leading outputs are exactly payoutOutputs, in order; its fee comes
 * from other inputs. Anyone may send it: the outputs, not a signature, make it right.
 */
import { hashToHex, toHex } from '../encoding/hex.ts';
import type { Transaction } from '../primitives/tx.ts';
import { actorScript } from './actor.ts';
import { bondShares, forfeitShares, winnerAmount } from './commitment.ts';
import { ActorType, TASK_VERIFIABLE, VERDICT_INVALID, VERDICT_VALID } from './payload.ts';
import type { AuditRecord, RequestRecord, StakeRecord } from './records.ts';
import { type OpoiEvent, type OpoiState, bad } from './state.ts';

export interface PayoutOutput {
  readonly script: string;
  readonly value: bigint;
}

/** An actor key's output script, hex. */
export function actorKeyScript(key: string): string {
  const type = key.startsWith('00') ? ActorType.P2WPKH : ActorType.P2PKH;
  return toHex(actorScript({ type, hash: Buffer.from(key.slice(2), 'hex') }));
}

/** The output that burns a forfeit's unpaid part: a bare OP_RETURN, which no one can spend. */
export const BURN_SCRIPT = '6a';

/**
 * The leading outputs a settled request's payout must have, in order (outputs of 0 left out):
 * - FULFILLED: the winner's pay (and its share of a challenge's bond), each auditor that said
 *   valid (its audit fee if of the quorum, its share of the bond), the requester's change;
 * - REJECTED: the requester's whole escrow and its forfeit share, each auditor that said invalid
 *   (its forfeit share), the burned rest, the challenger's bond back;
 * - EXPIRED: the whole escrow back to the requester, then a challenger's bond back.
 * `audit` is the request's audit record (VERIFIABLE requests that were published).
 */
export function payoutOutputs(r: RequestRecord, audit?: AuditRecord): PayoutOutput[] {
  const out: PayoutOutput[] = [];
  const pay = (key: string, value: bigint) => {
    if (value > 0n) out.push({ script: actorKeyScript(key), value });
  };
  const bondBack = () => {
    if (audit && audit.challenger !== null) pay(audit.challenger, audit.bond);
  };
  if (r.status === 'EXPIRED') {
    pay(r.requester, r.escrowValue);
    bondBack();
    return out;
  }
  if (r.status === 'REJECTED') {
    const sayInvalid = audit!.auditors.filter((x) => x.verdict === VERDICT_INVALID);
    const shares = forfeitShares(audit!.forfeited, sayInvalid.length);
    pay(r.requester, r.escrowValue + shares.requester);
    for (const x of sayInvalid) pay(x.auditor, shares.perAuditor);
    if (shares.burned > 0n) out.push({ script: BURN_SCRIPT, value: shares.burned });
    bondBack();
    return out;
  }
  const winner = winnerAmount(r.payment, r.feePerToken, r.winnerTokens!);
  if (r.taskType !== TASK_VERIFIABLE) {
    pay(r.winner!, winner);
    pay(r.requester, r.escrowValue - winner);
    return out;
  }
  const sayValid = audit!.auditors.filter((x) => x.verdict === VERDICT_VALID);
  const bond = bondShares(audit!.bond, sayValid.length);
  pay(r.winner!, winner + bond.winner);
  let fees = 0n;
  for (const x of sayValid) {
    const fee = x.round === 0 ? r.auditFee : 0n;
    fees += fee;
    pay(x.auditor, fee + bond.perAuditor);
  }
  pay(r.requester, r.escrowValue - winner - fees);
  return out;
}

export interface Outpoint {
  readonly txid: string;
  readonly vout: number;
}

/** The coins a settled request's payout spends, all in one transaction: escrow, bond, forfeited collateral. */
export function heldCoins(r: RequestRecord, audit?: AuditRecord): Outpoint[] {
  const coins = [{ txid: r.txid, vout: 0 }];
  if (audit?.challengeTxid) coins.push({ txid: audit.challengeTxid, vout: 0 });
  if (audit && audit.forfeited > 0n) coins.push({ txid: audit.forfeitTxid!, vout: audit.forfeitVout });
  return coins;
}

const SETTLED = new Set(['FULFILLED', 'EXPIRED', 'REJECTED']);

/** A payout of request `id`: settled, spending every held coin, with exactly the payout's leading outputs. */
export function applyPayout(state: OpoiState, tx: Transaction, id: string, height: number, events: OpoiEvent[]): void {
  const r = state.request(id);
  if (!r || !SETTLED.has(r.status)) throw bad('bad-opoi-payout-unresolved', `request ${id} is not settled`);
  const audit = state.audit(id);
  const spends = new Set(tx.inputs.map((i) => `${hashToHex(i.prevout.txid)}:${i.prevout.vout}`));
  for (const c of heldCoins(r, audit)) {
    if (!spends.has(`${c.txid}:${c.vout}`)) throw bad('bad-opoi-payout-inputs', `the payout must also spend ${c.txid}:${c.vout}`);
  }
  payoutOutputs(r, audit).forEach((want, i) => {
    const out = tx.outputs[i];
    if (!out || out.value !== want.value || toHex(out.scriptPubKey) !== want.script) {
      throw bad('bad-opoi-payout-outputs', `output ${i} must pay ${want.value} to ${want.script}`);
    }
  });
  if (audit && audit.forfeited > 0n) state.deleteStake(r.winner!);
  state.putRequest({ ...r, payoutTxid: tx.txidHex, payoutHeight: height });
  events.push({ type: 'paid', height, requestId: id, miner: r.winner, txid: tx.txidHex });
}

/** The release of an UNSTAKED collateral: output 0 pays the staker the whole collateral. */
export function releaseOutput(s: StakeRecord): PayoutOutput {
  return { script: actorKeyScript(s.miner), value: s.amount };
}
