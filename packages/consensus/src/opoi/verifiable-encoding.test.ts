/**
 * VERIFIABLE requests, encodings: the new payload kinds and the REQUEST's audit fields, PUBLISH up
 * to its own bound, the records (AuditRecord, new request and stake fields) byte for byte, and the
 * hashes and held-coin script forms by their documented definitions.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ANSWER, MODEL, P, PROMPT, key, requestPayload, requester, stakeAmount, stakers, uuid } from '../../test/opoi-verifiable.ts';
import { sha256 } from '../crypto/hash.ts';
import { DecodeError } from '../encoding/errors.ts';
import { toHex } from '../encoding/hex.ts';
import { actorScript } from './actor.ts';
import { bondShares, forfeitShares, verdictCommitment, verifiableResponseHash } from './commitment.ts';
import { collateralActor, collateralScript, escrowRequestId, escrowScript, isHeldScript } from './escrow.ts';
import {
  MAX_OPOI_PAYLOAD,
  MAX_OPOI_PUBLISH,
  MAX_VERIFIABLE_TOKENS,
  OpoiKind,
  type OpoiPayload,
  TASK_OPEN,
  VERDICT_INVALID,
  VERDICT_VALID,
  decodeOpoiPayload,
  encodeOpoiPayload,
  opoiPayloadBytes,
  opoiPayloadScript,
} from './payload.ts';
import { type AuditRecord, type AuditorRecord, type RequestRecord, type StakeRecord, decodeRecord, encodeRecord } from './records.ts';
test('VERIFIABLE payloads round-trip: REQUEST with its audit fields, PUBLISH up to its bound, CHALLENGE, VERDICT_COMMIT and VERDICT_REVEAL', () => {
  const id = uuid(1);
  const [A, B] = [stakers[0], stakers[1]];
  const vreq = requestPayload(id, { auditQuorum: 16, auditFee: 2n ** 64n - 1n });
  // An OPEN request carries no audit fields, whatever the payload object holds.
  const open: OpoiPayload = { ...vreq, taskType: TASK_OPEN };
  // The audit fields follow the task class: quorum u8 then fee u64 LE, then the executor when there is one.
  const head = Uint8Array.from(encodeOpoiPayload(open));
  head[6 + 16 + 21 + 32 + 4 + 8 + 8 + 4] = 1; // the task type
  assert.equal(toHex(encodeOpoiPayload(vreq)), `${toHex(head)}10${'ff'.repeat(8)}`);
  assert.equal(toHex(encodeOpoiPayload({ ...vreq, executor: B })), `${toHex(encodeOpoiPayload(vreq))}01${toHex(B.hash)}`);
  const publish: OpoiPayload = { kind: OpoiKind.PUBLISH, requestId: id, prompt: PROMPT, tokens: ANSWER.tokens, output: ANSWER.text };
  const samples: OpoiPayload[] = [
    vreq,
    { ...vreq, auditQuorum: 1, auditFee: 0n, executor: B },
    publish,
    { kind: OpoiKind.PUBLISH, requestId: id, prompt: new Uint8Array(0), tokens: [], output: new Uint8Array(0) },
    { kind: OpoiKind.CHALLENGE, requestId: id, challenger: B },
    { kind: OpoiKind.VERDICT_COMMIT, requestId: id, auditor: A, commitment: new Uint8Array(32).fill(7) },
    { kind: OpoiKind.VERDICT_REVEAL, requestId: id, auditor: B, verdict: VERDICT_INVALID, salt: new Uint8Array(32).fill(4) },
  ];
  for (const p of samples) {
    const bytes = encodeOpoiPayload(p);
    assert.deepEqual(decodeOpoiPayload(bytes), p);
    assert.deepEqual(opoiPayloadBytes(opoiPayloadScript(p)), bytes);
    const unbound = p.kind === OpoiKind.REQUEST && p.executor ? bytes.length - 21 : -1;
    for (let n = 0; n < bytes.length; n++) if (n !== unbound) assert.throws(() => decodeOpoiPayload(bytes.subarray(0, n)), DecodeError, `${n} bytes`);
    assert.throws(() => decodeOpoiPayload(Uint8Array.of(...bytes, 0)), DecodeError);
  }
  assert.equal(encodeOpoiPayload(samples[2]).length, 6 + 16 + 1 + PROMPT.length + 1 + 4 * 5 + 1 + ANSWER.text.length);
  assert.deepEqual(
    samples.slice(4).map((p) => encodeOpoiPayload(p).length),
    [6 + 16 + 21, 6 + 16 + 21 + 32, 6 + 16 + 21 + 1 + 32],
  );

  // PUBLISH goes up to MAX_OPOI_PUBLISH (an OP_RETURN with PUSHDATA4); every other kind stays within MAX_OPOI_PAYLOAD.
  const big = (outputBytes: number): OpoiPayload => ({
    kind: OpoiKind.PUBLISH,
    requestId: id,
    prompt: new Uint8Array(1000).fill(0x61),
    tokens: Array.from({ length: MAX_VERIFIABLE_TOKENS }, (_, i) => i * 7919),
    output: new Uint8Array(outputBytes).fill(0x62),
  });
  const fixed = 6 + 16 + 3 + 1000 + 3 + 4 * MAX_VERIFIABLE_TOKENS + 3;
  const largest = big(MAX_OPOI_PUBLISH - fixed);
  const bytes = encodeOpoiPayload(largest);
  assert.equal(bytes.length, MAX_OPOI_PUBLISH);
  assert.deepEqual(decodeOpoiPayload(bytes), largest);
  const script = opoiPayloadScript(largest);
  assert.equal(script[1], 0x4e, 'PUSHDATA4');
  assert.deepEqual(opoiPayloadBytes(script), bytes);
  assert.throws(() => encodeOpoiPayload(big(MAX_OPOI_PUBLISH - fixed + 1)), RangeError);
  assert.throws(
    () => decodeOpoiPayload(Uint8Array.of(...bytes, 0x62)),
    (e: unknown) => e instanceof DecodeError && e.code === 'oversize',
  );
  const challenge = encodeOpoiPayload(samples[4]);
  const padded = Uint8Array.from({ length: MAX_OPOI_PAYLOAD + 1 }, (_, i) => challenge[i] ?? 0);
  assert.throws(
    () => decodeOpoiPayload(padded),
    (e: unknown) => e instanceof DecodeError && e.code === 'oversize',
  );
  assert.equal(decodeOpoiPayload(encodeOpoiPayload(big(0))).kind, OpoiKind.PUBLISH, 'a PUBLISH above MAX_OPOI_PAYLOAD decodes');
  // More token ids than a VERIFIABLE answer may have, and texts that are not UTF-8, are malformed:
  // the encoder refuses to make them, and the decoder refuses the bytes (patched in by hand).
  const tooMany: OpoiPayload = { ...publish, tokens: Array.from({ length: MAX_VERIFIABLE_TOKENS + 1 }, () => 1) };
  assert.throws(() => encodeOpoiPayload(tooMany), RangeError);
  assert.throws(() => encodeOpoiPayload({ ...publish, output: Uint8Array.of(0x61, 0xff) }), RangeError);
  assert.throws(() => encodeOpoiPayload({ ...publish, prompt: Uint8Array.of(0xc3) }), RangeError);
  // Header (6) and request id (16), then a 1-byte prompt at offset 23 and the token count (compactSize) after it.
  const one = { ...publish, prompt: Uint8Array.of(0x61), output: Uint8Array.of(0x61, 0x62) };
  const maxed = encodeOpoiPayload({ ...one, tokens: Array.from({ length: MAX_VERIFIABLE_TOKENS }, () => 1) });
  const count = Buffer.from(maxed.subarray(24, 27));
  assert.deepEqual([...count], [0xfd, MAX_VERIFIABLE_TOKENS & 0xff, MAX_VERIFIABLE_TOKENS >> 8]);
  count.writeUInt16LE(MAX_VERIFIABLE_TOKENS + 1, 1);
  const over = Uint8Array.of(...maxed.subarray(0, 24), ...count, 1, 0, 0, 0, ...maxed.subarray(27));
  assert.throws(() => decodeOpoiPayload(over), DecodeError);
  const badOutput = encodeOpoiPayload(one);
  badOutput[badOutput.length - 1] = 0xff;
  assert.throws(() => decodeOpoiPayload(badOutput), DecodeError);
  const badPrompt = encodeOpoiPayload(one);
  badPrompt[23] = 0xc3;
  assert.throws(() => decodeOpoiPayload(badPrompt), DecodeError);
});

test("records of VERIFIABLE requests round-trip: AuditRecord, the request's audit and publish fields, a stake's locks and forfeit", () => {
  const fresh: AuditRecord = {
    requestId: 'ab'.repeat(16),
    drawHeight: 10,
    commitClose: 14,
    revealDeadline: 18,
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
  // Tag 5, then every field in order: nullable heights as value + 1, nullable hex as a flag byte and the bytes.
  assert.equal(
    encodeRecord(fresh).toString('hex'),
    [
      `05${'ab'.repeat(16)}`,
      '0a000000', // draw height
      '0e000000', // commit close
      '12000000', // reveal deadline
      '00', // no challenger
      '00'.repeat(8), // bond
      '00', // no challenge txid
      '00000000', // no challenge height
      '00', // no auditors
      '00', // no outcome
      '00'.repeat(8), // forfeited
      '00', // no forfeit txid
      '00000000', // forfeit vout
    ].join(''),
  );
  const auditor = (k: string, round: number, verdict: number, done: boolean): AuditorRecord => ({
    auditor: k,
    round,
    commitment: done ? '01'.repeat(32) : null,
    commitTxid: done ? '02'.repeat(32) : null,
    verdict,
    revealTxid: verdict === 0 ? null : '03'.repeat(32),
  });
  const full: AuditRecord = {
    ...fresh,
    challenger: key(stakers[1]),
    bond: 50_000_001n,
    challengeTxid: '04'.repeat(32),
    challengeHeight: 0,
    auditors: [
      auditor(key(stakers[2]), 0, VERDICT_VALID, true),
      auditor(key(stakers[3]), 0, 0, true),
      auditor(key(stakers[4]), 0, 0, false),
      auditor(key(stakers[5]), 1, VERDICT_INVALID, true),
    ],
    outcome: 'invalid',
    forfeited: 2n ** 64n - 1n,
    forfeitTxid: '05'.repeat(32),
    forfeitVout: 7,
  };
  assert.equal(
    encodeRecord({ ...fresh, auditors: [full.auditors[0]] })
      .subarray(1 + 16 + 12 + 9 + 1 + 4, -14)
      .toString('hex'),
    `01${key(stakers[2])}0001${'01'.repeat(32)}01${'02'.repeat(32)}0101${'03'.repeat(32)}`,
    'an auditor: count, then key, round, commitment, commit txid, verdict, reveal txid',
  );
  const request: RequestRecord = {
    id: 'ab'.repeat(16),
    txid: 'cd'.repeat(32),
    height: 7,
    requester: key(requester),
    executor: key(stakers[0]),
    model: MODEL,
    promptHash: 'ef'.repeat(32),
    maxTokens: MAX_VERIFIABLE_TOKENS,
    payment: 500_000n,
    feePerToken: 1_000n,
    promptTokenCount: 3,
    taskType: 1,
    taskClass: 'chat',
    auditQuorum: P.maxAuditQuorum,
    auditFee: 2n ** 64n - 1n,
    escrowValue: 650_000n,
    status: 'AUDITING',
    firstCommitHeight: 8,
    commits: 1,
    reveals: 1,
    winner: key(stakers[0]),
    winnerTokens: 0,
    resolvedHeight: 15,
    payoutTxid: null,
    payoutHeight: null,
    publishTxid: '06'.repeat(32),
    publishHeight: 0,
  };
  const stake: StakeRecord = {
    miner: key(stakers[0]),
    collateralTxid: '07'.repeat(32),
    collateralVout: 0,
    amount: stakeAmount(0),
    modelId: MODEL,
    endpoint: '',
    serves: [MODEL],
    txid: '07'.repeat(32),
    height: 2,
    renewedHeight: 2,
    unstakeHeight: 9,
    locks: 3,
    forfeitedBy: 'ab'.repeat(16),
  };
  const records = [
    fresh,
    full,
    ...(['valid', 'unaudited'] as const).map((outcome) => ({ ...full, outcome })),
    request,
    ...(['PUBLISHING', 'REJECTED'] as const).map((status) => ({ ...request, status, publishTxid: null, publishHeight: null })),
    stake,
    { ...stake, locks: 0, forfeitedBy: null },
  ];
  for (const x of records) {
    const bytes = encodeRecord(x);
    assert.deepEqual(decodeRecord(bytes), x);
    assert.deepEqual(encodeRecord(decodeRecord(bytes)), bytes);
    assert.throws(() => decodeRecord(bytes.subarray(0, bytes.length - 1)), DecodeError);
    assert.throws(() => decodeRecord(Buffer.concat([bytes, Buffer.of(0)])), DecodeError);
  }
  const outcomeAt = (b: Buffer) => b.length - 1 - 8 - 1 - 4;
  const unknown = Buffer.from(encodeRecord(fresh));
  assert.equal(unknown[outcomeAt(unknown)], 0);
  unknown[outcomeAt(unknown)] = 4;
  assert.throws(() => decodeRecord(unknown), DecodeError, 'an unknown outcome');
  assert.equal(
    encodeRecord({ ...stake, locks: 0, forfeitedBy: null }).length,
    encodeRecord(stake).length - 16,
    'forfeitedBy: flag byte then 16 bytes',
  );
});

test('the VERIFIABLE hashes and held-coin forms, by their documented definitions', () => {
  const id = uuid(2);
  const A = stakers[1];
  const u32 = (n: number) => Buffer.from(Uint32Array.of(n).buffer);
  assert.deepEqual(
    verifiableResponseHash(ANSWER.tokens, ANSWER.text),
    sha256(Buffer.concat([Buffer.from('OPOI-V1'), u32(5), ...ANSWER.tokens.map(u32), ANSWER.text])),
  );
  assert.notDeepEqual(verifiableResponseHash([], ANSWER.text), sha256(ANSWER.text), 'unlike an OPEN answer, the token ids are hashed too');
  const salt = new Uint8Array(32).fill(9);
  assert.deepEqual(verdictCommitment(id, A, VERDICT_VALID, salt), sha256(Buffer.concat([id, Uint8Array.of(1), A.hash, Uint8Array.of(1), salt])));
  assert.equal(toHex(collateralScript(A)), `194f504f5301${toHex(A.hash)}7551`);
  assert.equal(toHex(escrowScript(id)), `144f504f49${toHex(id)}7551`);
  assert.deepEqual(collateralActor(collateralScript(A)), { type: A.type, hash: A.hash });
  assert.equal(collateralActor(escrowScript(id)), null);
  assert.equal(escrowRequestId(collateralScript(A)), null);
  const wrongType = Uint8Array.from(collateralScript(A));
  wrongType[5] = 2;
  assert.equal(collateralActor(wrongType), null);
  assert.ok(isHeldScript(collateralScript(A)) && isHeldScript(escrowScript(id)) && !isHeldScript(actorScript(A)));
  // With nobody to pay, a forfeit's auditor half is burned and a bond goes whole to the winner.
  assert.deepEqual(forfeitShares(101n, 0), { perAuditor: 0n, requester: 25n, burned: 76n });
  assert.deepEqual(bondShares(101n, 0), { perAuditor: 0n, winner: 101n });
});
