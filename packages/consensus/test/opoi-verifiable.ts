/**
 * A generated OPoI history for the VERIFIABLE rules' tests, in the habit of btcd's fullblocktests:
 * a chain of blocks (heights) whose transactions the tests apply one by one, each refused step
 * checked for its exact reason and then undone, so that the history goes on as if it never came.
 */
import assert from 'node:assert/strict';
import { sha256, sha256d } from '../src/crypto/hash.ts';
import { concatBytes, toHex } from '../src/encoding/hex.ts';
import { actorKey, actorScript } from '../src/opoi/actor.ts';
import { commitmentHash, verdictCommitment, verifiableResponseHash } from '../src/opoi/commitment.ts';
import { collateralScript, escrowScript } from '../src/opoi/escrow.ts';
import { type Actor, ActorType, OpoiKind, type OpoiPayload, type RequestPayload, TASK_VERIFIABLE, opoiPayloadScript } from '../src/opoi/payload.ts';
import type { AuditRecord, RequestRecord, StakeRecord } from '../src/opoi/records.ts';
import { applyOpoiTransaction, resolveOpoiBlock } from '../src/opoi/rules.ts';
import type { OpoiEvent } from '../src/opoi/state.ts';
import { REGTEST } from '../src/params/networks.ts';
import { Transaction, type TxOut } from '../src/primitives/tx.ts';
import { MemoryState, actingTx, expectReject, payloadOut } from './opoi-state.ts';

export const P = REGTEST.opoi;
export const MODEL = 'qwen2.5-0.5b-instruct-q4_k_m';
export const utf8 = (text: string) => new TextEncoder().encode(text);
export const PROMPT = utf8('Say hello in one line.');
export interface Answer {
  readonly tokens: readonly number[];
  readonly text: Uint8Array;
}
/** The honest answer every winner reveals and publishes: 5 tokens, one of them the largest id. */
export const ANSWER: Answer = { tokens: [9707, 11, 1879, 0, 0xffffffff], text: utf8('Hello, world! ✓') };
export const ANSWER_SALT = new Uint8Array(32).fill(0x5a);

export type Act = { tx: Transaction; spent: TxOut[] };
const actor = (type: ActorType, fill: number): Actor => ({ type, hash: new Uint8Array(20).fill(fill) });
export const requester = actor(ActorType.P2WPKH, 0x01);
export const registrant = actor(ActorType.P2PKH, 0x02);
/** Eight stakers serving MODEL, both address types. */
export const stakers: readonly Actor[] = Array.from({ length: 8 }, (_, i) => actor(i % 2 ? ActorType.P2PKH : ActorType.P2WPKH, 0x10 + i));
/** A staker serving no manifest. */
export const outsider = actor(ActorType.P2WPKH, 0x30);
export const challenger = actor(ActorType.P2PKH, 0x40);
export const challenger2 = actor(ActorType.P2WPKH, 0x41);
/** Collateral of stakers[i]: odd amounts, so that halves and quarters round. */
export const stakeAmount = (i: number) => P.minStake + 1_000_003n + 7n * BigInt(i);
export const key = actorKey;
export const script = (a: Actor) => toHex(actorScript(a));
export const uuid = (n: number) => Uint8Array.of(0x0b, 0x4f, 0x6a, 0x3e, 0x1c, 0x2d, 0x4e, 0x5f, 0x8a, 0x9b, 0, 0, 0, 0, 0, n);
export const blockHash = (h: number) => sha256(utf8(`block ${h}`));

const everyone = [requester, registrant, ...stakers, outsider, challenger, challenger2];
/** The actor of a key (auditors are read from the audit record as keys). */
export function actorOf(k: string): Actor {
  const a = everyone.find((x) => key(x) === k);
  assert.ok(a, `no test actor ${k}`);
  return a;
}

/** The chain being built: `height` is the block whose transactions are applied now. */
export class Chain {
  readonly st = new MemoryState();
  readonly events: OpoiEvent[] = [];
  height = 1;
  /** The STAKE transaction of each staker key (its collateral is output 0). */
  readonly stakeTxs = new Map<string, Transaction>();

  ok(x: Act): Transaction {
    applyOpoiTransaction(this.st, x.tx, x.spent, this.height, P, this.events);
    return x.tx;
  }

  /** Refused with exactly `reason`; the state is put back as it was (the block is not part of the chain). */
  no(x: Act, reason: string): void {
    const restore = this.st.snapshot();
    const events = this.events.length;
    expectReject(() => applyOpoiTransaction(this.st, x.tx, x.spent, this.height, P, this.events), reason);
    restore();
    this.events.length = events;
  }

  /** Ends the current block (its due requests settle) and `n - 1` more, then builds the next one. */
  next(n = 1): void {
    for (let i = 0; i < n; i++) {
      resolveOpoiBlock(this.st, this.height, blockHash(this.height), P, this.events);
      this.height++;
    }
  }

  to(height: number): void {
    assert.ok(height >= this.height, `height ${height} is behind ${this.height}`);
    this.next(height - this.height);
  }

  stake(a: Actor, amount: bigint, serves?: string[]): Transaction {
    const tx = this.ok(stakeTx(a, amount, serves));
    this.stakeTxs.set(key(a), tx);
    return tx;
  }

  request(id: Uint8Array): RequestRecord {
    return this.st.request(toHex(id))!;
  }

  audit(id: Uint8Array): AuditRecord {
    return this.st.audit(toHex(id))!;
  }

  stakeOf(a: Actor): StakeRecord | undefined {
    return this.st.stake(key(a));
  }

  /** Event types of one request (or of one actor's stake steps with id null), in chain order. */
  eventsOf(id: Uint8Array): string[] {
    return this.events.filter((e) => e.requestId === toHex(id)).map((e) => (e.outcome ? `${e.type}:${e.outcome}` : e.type));
  }
}

/** Height 1 registers MODEL, height 2 stakes stakers[0..7] (serving it) and the outsider; returns at height 3. */
export function setup(): Chain {
  const c = new Chain();
  c.ok(
    actingTx(registrant, [
      {
        value: P.manifestFee,
        scriptPubKey: opoiPayloadScript({
          kind: OpoiKind.MANIFEST,
          registrant,
          modelId: MODEL,
          ggufSha256: new Uint8Array(32).fill(0x11),
          ggufSize: 491_400_032n,
          decoding: 0,
          flags: 0,
          tolerance: 4096,
        }),
      },
    ]),
  );
  c.next();
  stakers.forEach((s, i) => c.stake(s, stakeAmount(i), [MODEL]));
  c.stake(outsider, P.minStake);
  c.next();
  return c;
}

export function requestPayload(id: Uint8Array, over: Partial<RequestPayload> = {}): RequestPayload {
  return {
    kind: OpoiKind.REQUEST,
    requestId: id,
    requester,
    promptHash: sha256(PROMPT),
    maxTokens: 100,
    payment: 500_000n,
    feePerToken: 1_000n,
    promptTokenCount: 0,
    taskType: TASK_VERIFIABLE,
    model: MODEL,
    taskClass: 'chat',
    auditQuorum: 2,
    auditFee: 25_000n,
    ...over,
  };
}

/** What the documented scheme locks: payment + fee per token × max tokens + quorum × audit fee. */
export const escrowOf = (q: RequestPayload) => q.payment + q.feePerToken * BigInt(q.maxTokens) + BigInt(q.auditQuorum ?? 0) * (q.auditFee ?? 0n);

export const requestTx = (q: RequestPayload, escrow = escrowOf(q)): Act =>
  actingTx(q.requester, [{ value: escrow, scriptPubKey: escrowScript(q.requestId) }, payloadOut(q)]);

export const responseHash = (a: Answer) => verifiableResponseHash(a.tokens, a.text);

export const commitTx = (id: Uint8Array, miner: Actor, a: Answer = ANSWER): Act =>
  actingTx(miner, [
    payloadOut({ kind: OpoiKind.COMMIT, requestId: id, miner, commitment: commitmentHash(id, miner, responseHash(a), a.tokens.length, ANSWER_SALT) }),
  ]);

export const revealTx = (id: Uint8Array, miner: Actor, a: Answer = ANSWER): Act =>
  actingTx(miner, [
    payloadOut({ kind: OpoiKind.REVEAL, requestId: id, miner, responseHash: responseHash(a), tokenCount: a.tokens.length, salt: ANSWER_SALT }),
  ]);

/** A PUBLISH, sent by whoever: nobody's signature is asked for (here a coin of the outsider pays its fee). */
export const publishTx = (id: Uint8Array, prompt = PROMPT, a: Answer = ANSWER): Act =>
  actingTx(outsider, [payloadOut({ kind: OpoiKind.PUBLISH, requestId: id, prompt, tokens: a.tokens, output: a.text })]);

export const challengeTx = (id: Uint8Array, who: Actor, bond = P.challengeBond, held = escrowScript(id)): Act =>
  actingTx(who, [{ value: bond, scriptPubKey: held }, payloadOut({ kind: OpoiKind.CHALLENGE, requestId: id, challenger: who })]);

export const verdictSalt = (a: Actor) => sha256(a.hash);

export const verdictCommitTx = (id: Uint8Array, auditor: Actor, verdict: number, salt = verdictSalt(auditor)): Act =>
  actingTx(auditor, [
    payloadOut({ kind: OpoiKind.VERDICT_COMMIT, requestId: id, auditor, commitment: verdictCommitment(id, auditor, verdict, salt) }),
  ]);

export const verdictRevealTx = (id: Uint8Array, auditor: Actor, verdict: number, salt = verdictSalt(auditor)): Act =>
  actingTx(auditor, [payloadOut({ kind: OpoiKind.VERDICT_REVEAL, requestId: id, auditor, verdict, salt })]);

export const stakeTx = (a: Actor, amount: bigint, serves?: string[], held = collateralScript(a)): Act =>
  actingTx(a, [
    { value: amount, scriptPubKey: held },
    payloadOut({ kind: OpoiKind.STAKE, miner: a, modelId: MODEL, endpoint: 'stratum+tcp://127.0.0.1:3532', ...(serves ? { serves } : {}) }),
  ]);

/** A transaction of `a` with these outputs, payloads among them written as their OP_RETURN output. */
export const actingTxOf = (a: Actor, items: readonly (TxOut | OpoiPayload)[]): Act =>
  actingTx(
    a,
    items.map((x) => ('kind' in x ? payloadOut(x) : x)),
  );

export const actionTx = (kind: OpoiKind.RENEW | OpoiKind.UNSTAKE, a: Actor): Act => actingTx(a, [payloadOut({ kind, miner: a })]);

export interface Coin {
  readonly txid: Uint8Array;
  readonly vout: number;
  readonly out: TxOut;
}
export const coinOf = (tx: Transaction, vout = 0): Coin => ({ txid: tx.txid, vout, out: tx.outputs[vout] });
let feeSerial = 0;
/** An ordinary coin (OP_TRUE) that pays a payout's or release's fee. */
export function feeCoin(): Coin {
  const txid = new Uint8Array(32).fill(0xfe);
  txid[0] = ++feeSerial;
  return { txid, vout: 0, out: { value: 20_000n, scriptPubKey: Uint8Array.of(0x51) } };
}

/** A transaction spending `coins` (held coins take an empty scriptSig) into `outputs`. */
export function spendTx(coins: readonly Coin[], outputs: readonly TxOut[]): Act {
  const inputs = coins.map((c) => ({ prevout: { txid: c.txid, vout: c.vout }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }));
  return { tx: new Transaction({ version: 2, inputs, outputs: [...outputs], locktime: 0 }), spent: coins.map((c) => c.out) };
}

/** An expected payout output: hex script (or an actor) and value. */
export type Pay = readonly [Actor | string, bigint];
export const outs = (pays: readonly Pay[]): TxOut[] =>
  pays.map(([to, value]) => ({ value, scriptPubKey: Buffer.from(typeof to === 'string' ? to : script(to), 'hex') }));
/** The payout's change: whatever the fee coin leaves, after the leading outputs. */
export const change = (): TxOut => ({ value: 10_000n, scriptPubKey: Uint8Array.of(0x51) });

/**
 * The auditors the documented draw picks: candidates ranked by SHA-256(seed ‖ key), seed =
 * SHA256d(block hash ‖ request_id ‖ round), lowest first. Computed here, not by drawAuditors.
 */
export function expectedDraw(height: number, id: Uint8Array, round: number, candidates: readonly Actor[], count: number): string[] {
  const seed = sha256d(concatBytes(blockHash(height), id, Uint8Array.of(round)));
  return candidates
    .map((a) => ({ k: key(a), rank: toHex(sha256(concatBytes(seed, Uint8Array.of(a.type), a.hash))) }))
    .sort((x, y) => (x.rank < y.rank ? -1 : 1))
    .slice(0, count)
    .map((x) => x.k);
}

/**
 * The common start of a VERIFIABLE lifecycle from the current height h: REQUEST at h, the
 * winner's COMMIT at h + 1, its REVEAL at h + 5 (the commit window is 4 blocks), resolution at the
 * end of h + 8; returns at h + 9 (the first publish height) with the request PUBLISHING.
 */
export function toPublishing(c: Chain, q: RequestPayload, winner: Actor): { request: Transaction; h: number } {
  const h = c.height;
  const request = c.ok(requestTx(q));
  c.next();
  c.ok(commitTx(q.requestId, winner));
  c.to(h + 1 + P.commitWindow);
  c.ok(revealTx(q.requestId, winner));
  c.to(h + P.commitWindow + P.revealWindow);
  c.next();
  assert.equal(c.request(q.requestId).status, 'PUBLISHING');
  return { request, h };
}

/** Publishes at the current height hp and ends block hp + 1 (the quorum's draw); returns the drawn auditors, at hp + 2. */
export function publishAndDraw(c: Chain, id: Uint8Array): { hp: number; auditors: Actor[] } {
  const hp = c.height;
  c.ok(publishTx(id));
  c.next(2);
  return { hp, auditors: c.audit(id).auditors.map((x) => actorOf(x.auditor)) };
}
