import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DecodeError } from '../encoding/errors.ts';
import { toHex } from '../encoding/hex.ts';
import { REGTEST } from '../params/networks.ts';
import { Transaction, type TxOut } from '../primitives/tx.ts';
import { actorKey, actorScript, paysActor } from './actor.ts';
import { commitmentHash, commitmentHex, drawWinner, escrowAmount, requestIdFromUuid, requestIdHexFromUuid, requestIdToUuid } from './commitment.ts';
import { collateralScript, escrowRequestId, escrowScript } from './escrow.ts';
import {
  ActorType,
  BosRule,
  MANIFEST_PARSE_SPECIAL,
  MANIFEST_TEMPLATE,
  MAX_OPOI_PAYLOAD,
  OpoiKind,
  type OpoiPayload,
  decodeOpoiPayload,
  encodeOpoiPayload,
  opoiPayloadBytes,
  opoiPayloadScript,
} from './payload.ts';
import type { CommitRecord, ManifestRecord, RequestRecord, StakeRecord } from './records.ts';
import { decodeRecord, encodeRecord } from './records.ts';
import { payoutOutputs } from './payout.ts';
import { applyOpoiTransaction, resolveOpoiBlock } from './rules.ts';
import type { OpoiEvent } from './state.ts';
import { MemoryState, actingTx, expectReject, payloadOut } from '../../test/opoi-state.ts';

const P = REGTEST.opoi;
const ID = requestIdFromUuid('0b4f6a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b');
const requester = { type: ActorType.P2WPKH, hash: new Uint8Array(20).fill(1) };
const minerA = { type: ActorType.P2WPKH, hash: new Uint8Array(20).fill(2) };
const minerB = { type: ActorType.P2PKH, hash: new Uint8Array(20).fill(3) };

test('payloads round-trip for every kind and reject malformed bytes with DecodeError', () => {
  const request: OpoiPayload = {
    kind: OpoiKind.REQUEST,
    requestId: ID,
    requester,
    promptHash: new Uint8Array(32).fill(9),
    maxTokens: 256,
    payment: 150_000n,
    feePerToken: 10n,
    promptTokenCount: 3,
    taskType: 0,
    model: 'llama3.2:1b',
    taskClass: 'chat',
  };
  const samples: OpoiPayload[] = [
    request,
    // The largest REQUEST: both texts at their bound, and an executor.
    { ...request, model: 'm'.repeat(64), taskClass: 'c'.repeat(32), executor: minerB },
    { kind: OpoiKind.COMMIT, requestId: ID, miner: minerA, commitment: new Uint8Array(32).fill(7) },
    {
      kind: OpoiKind.REVEAL,
      requestId: ID,
      miner: minerB,
      responseHash: new Uint8Array(32).fill(5),
      tokenCount: 12,
      salt: new Uint8Array(32).fill(4),
    },
    { kind: OpoiKind.STAKE, miner: minerA, modelId: 'tiny', endpoint: 'stratum+tcp://127.0.0.1:3532' },
    { kind: OpoiKind.RENEW, miner: minerA },
    { kind: OpoiKind.UNSTAKE, miner: minerB },
    {
      kind: OpoiKind.STAKE,
      miner: minerB,
      modelId: 'x'.repeat(128),
      endpoint: 'y'.repeat(128),
      serves: Array.from({ length: 8 }, (_, i) => `${i}`.repeat(64)),
    },
    {
      kind: OpoiKind.MANIFEST,
      registrant: minerA,
      modelId: 'qwen2.5-0.5b-instruct-q4_k_m',
      ggufSha256: new Uint8Array(32).fill(0x11),
      ggufSize: 491_400_032n,
      decoding: 0,
      flags: BosRule.METADATA,
      tolerance: 65536,
    },
    {
      kind: OpoiKind.MANIFEST,
      registrant: minerB,
      modelId: 'm'.repeat(64),
      ggufSha256: new Uint8Array(32).fill(0x22),
      ggufSize: 2n ** 64n - 1n,
      decoding: 0,
      flags: BosRule.ALWAYS | MANIFEST_PARSE_SPECIAL | MANIFEST_TEMPLATE,
      templateHash: new Uint8Array(32).fill(0x33),
      tolerance: 0xffffffff,
    },
  ];
  for (const p of samples) {
    const bytes = encodeOpoiPayload(p);
    assert.deepEqual(decodeOpoiPayload(bytes), p);
    assert.deepEqual(opoiPayloadBytes(opoiPayloadScript(p)), bytes);
    // Every truncation and one trailing byte are malformed, never anything else; but a bound
    // REQUEST without its trailing executor is the same request unbound (the signature covers it).
    const unbound =
      p.kind === OpoiKind.REQUEST && p.executor
        ? bytes.length - 21
        : p.kind === OpoiKind.STAKE && p.serves
          ? bytes.length - 1 - p.serves.reduce((n, id) => n + 1 + id.length, 0)
          : -1;
    for (let n = 0; n < bytes.length; n++) {
      if (n !== unbound) assert.throws(() => decodeOpoiPayload(bytes.subarray(0, n)), DecodeError);
    }
    if (p.kind === OpoiKind.REQUEST && p.executor) {
      const { executor, ...rest } = p;
      assert.deepEqual(decodeOpoiPayload(bytes.subarray(0, unbound)), rest);
    }
    if (p.kind === OpoiKind.STAKE && p.serves) {
      const { serves, ...rest } = p;
      assert.deepEqual(decodeOpoiPayload(bytes.subarray(0, unbound)), rest, 'a STAKE without its list serves nothing, as before the field');
    }
    assert.throws(() => decodeOpoiPayload(Uint8Array.of(...bytes, 0)), DecodeError);
  }
  assert.equal(encodeOpoiPayload(samples[1]).length, 219, 'the largest REQUEST (longest model and class, an executor) fits the limit');
  assert.equal(encodeOpoiPayload(samples[7]).length, 806, 'the largest STAKE (longest texts, 8 longest served ids) fits the limit');
  assert.ok(806 <= MAX_OPOI_PAYLOAD);
  assert.equal(encodeOpoiPayload(samples[9]).length, 6 + 21 + 65 + 32 + 8 + 1 + 1 + 32 + 4, 'the largest MANIFEST takes 170 bytes');
  // A served list of 0 or 9 ids, and a template flag without its hash, are malformed.
  const stake = encodeOpoiPayload(samples[4]);
  assert.throws(() => decodeOpoiPayload(Uint8Array.of(...stake, 0)), DecodeError);
  assert.throws(() => decodeOpoiPayload(Uint8Array.of(...stake, 9, ...Array.from({ length: 9 }, () => [1, 0x61]).flat())), DecodeError);
  assert.deepEqual((decodeOpoiPayload(Uint8Array.of(...stake, 1, 1, 0x61)) as OpoiPayload & { kind: OpoiKind.STAKE }).serves, ['a']);
  const plain = encodeOpoiPayload(samples[8]);
  const flagged = Uint8Array.from(plain);
  flagged[plain.length - 5] = MANIFEST_TEMPLATE;
  assert.throws(() => decodeOpoiPayload(flagged), DecodeError, 'the template flag reads 32 more bytes than there are');
  assert.throws(() => encodeOpoiPayload({ ...(samples[8] as OpoiPayload & { kind: OpoiKind.MANIFEST }), flags: MANIFEST_TEMPLATE }), RangeError);
  // Seeded random mutations: decoding either succeeds or throws DecodeError.
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  for (let i = 0; i < 5000; i++) {
    const bytes = Uint8Array.from(encodeOpoiPayload(samples[i % samples.length]));
    bytes[rand() % bytes.length] = rand() % 256;
    try {
      decodeOpoiPayload(bytes);
    } catch (e) {
      assert.ok(e instanceof DecodeError, String(e));
    }
  }
  assert.equal(opoiPayloadBytes(Uint8Array.of(0x6a, 4, 1, 2, 3, 4)), null);
});

test('opoiPayloadBytes reads the one push after OP_RETURN in each push encoding, and nothing else', () => {
  const payload = encodeOpoiPayload({ kind: OpoiKind.RENEW, miner: minerA });
  const n = payload.length;
  const forms = [
    Uint8Array.of(0x6a, n, ...payload),
    Uint8Array.of(0x6a, 0x4c, n, ...payload),
    Uint8Array.of(0x6a, 0x4d, n, 0, ...payload),
    Uint8Array.of(0x6a, 0x4e, n, 0, 0, 0, ...payload),
  ];
  for (const script of forms) {
    assert.deepEqual(opoiPayloadBytes(script), payload);
    assert.equal(opoiPayloadBytes(script.subarray(0, script.length - 1)), null, 'a push running past the script');
    assert.equal(opoiPayloadBytes(Uint8Array.of(...script, 0x51)), null, 'anything after the push');
    const wrongMagic = Uint8Array.from(script);
    wrongMagic[script.length - n] ^= 1;
    assert.equal(opoiPayloadBytes(wrongMagic), null, 'not "OPOI"');
  }
  assert.equal(opoiPayloadBytes(Uint8Array.of(0x6a, 0x4d, n, 1, ...payload)), null, 'a PUSHDATA2 length of 256 + n');
  assert.equal(opoiPayloadBytes(Uint8Array.of(0x6a, 0x4f, ...payload)), null, 'OP_1NEGATE is no push of data');
  assert.equal(opoiPayloadBytes(Uint8Array.of(0x6b, n, ...payload)), null, 'no OP_RETURN');
});

test('request ids, escrow scripts, commitments and the winner draw', () => {
  assert.equal(requestIdToUuid(ID), '0b4f6a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b');
  assert.throws(() => requestIdFromUuid('not-a-uuid'), DecodeError);
  assert.equal(requestIdHexFromUuid('0B4F6A3E-1C2D-4E5F-8A9B-0C1D2E3F4A5B'), '0b4f6a3e1c2d4e5f8a9b0c1d2e3f4a5b');
  const good = '0b4f6a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
  const bad = [
    '',
    good.slice(1),
    `${good}0`,
    good.replace('-', '0'),
    `0b4f6a3e1-c2d-4e5f-8a9b-0c1d2e3f4a5b`,
    good.replace('b', 'g'),
    good.replace('b', 'B').replace('0', ':'),
    good.replace('e', '@'),
    good.replace('e', '`'),
    `{${good.slice(1)}`,
    good.replaceAll('-', ''),
  ];
  for (const text of bad) assert.throws(() => requestIdHexFromUuid(text), DecodeError, `'${text}' is not a UUID`);
  assert.deepEqual(escrowRequestId(escrowScript(ID)), ID);
  assert.equal(escrowRequestId(actorScript(requester)), null);
  const c1 = commitmentHash(ID, minerA, new Uint8Array(32), 10, new Uint8Array(32));
  assert.notDeepEqual(c1, commitmentHash(ID, minerB, new Uint8Array(32), 10, new Uint8Array(32)));
  assert.notDeepEqual(c1, commitmentHash(ID, minerA, new Uint8Array(32), 11, new Uint8Array(32)));
  for (const [miner, tokens] of [
    [minerA, 0],
    [minerB, 7],
    [minerA, 0xffffffff],
  ] as const) {
    const response = new Uint8Array(32).fill(tokens & 0xff);
    const salt = new Uint8Array(32).fill(0x5a);
    assert.equal(commitmentHex(ID, miner, response, tokens, salt), toHex(commitmentHash(ID, miner, response, tokens, salt)));
  }
  const keys = [actorKey(minerA), actorKey(minerB)];
  const hash = new Uint8Array(32).fill(0xab);
  assert.equal(drawWinner(hash, ID, keys), drawWinner(hash, ID, [...keys].reverse()));
  // Over many block hashes both candidates win sometimes.
  const wins = new Set<string>();
  for (let i = 0; i < 32; i++) wins.add(drawWinner(Uint8Array.of(i, ...new Uint8Array(31)), ID, keys));
  assert.equal(wins.size, 2);
});

test('records encode deterministically, bigints included, and decode to equal values', () => {
  const s: StakeRecord = {
    miner: actorKey(minerA),
    collateralTxid: 'aa'.repeat(32),
    collateralVout: 0,
    amount: 123456789012345678n,
    modelId: '12n',
    endpoint: '',
    serves: [],
    txid: 'aa'.repeat(32),
    height: 5,
    renewedHeight: 5,
    unstakeHeight: null,
    locks: 0,
    forfeitedBy: null,
  };
  assert.deepEqual(decodeRecord<StakeRecord>(encodeRecord(s)), s);
  assert.deepEqual(encodeRecord(decodeRecord(encodeRecord(s))), encodeRecord(s));
  const r: RequestRecord = {
    id: 'ab'.repeat(16),
    txid: 'cd'.repeat(32),
    height: 7,
    requester: actorKey(minerB),
    executor: null,
    model: 'a "quoted" model\\ ünïcode',
    promptHash: 'ef'.repeat(32),
    maxTokens: 100,
    payment: 200_000n,
    feePerToken: 1_000n,
    promptTokenCount: 3,
    taskType: 0,
    taskClass: 'text\n',
    auditQuorum: 0,
    auditFee: 0n,
    escrowValue: 300_000n,
    status: 'FULFILLED',
    firstCommitHeight: 8,
    commits: 2,
    reveals: 1,
    winner: actorKey(minerA),
    winnerTokens: 9,
    resolvedHeight: 12,
    payoutTxid: null,
    payoutHeight: null,
    publishTxid: null,
    publishHeight: null,
  };
  const c: CommitRecord = {
    requestId: r.id,
    miner: actorKey(minerA),
    commitment: '01'.repeat(32),
    txid: '02'.repeat(32),
    height: 8,
    reveal: { responseHash: '03'.repeat(32), tokenCount: 9, salt: '04'.repeat(32), txid: '05'.repeat(32), height: 11 },
  };
  const pending: RequestRecord = { ...r, status: 'PENDING', firstCommitHeight: null, winner: null, winnerTokens: null, resolvedHeight: null };
  const paid: RequestRecord = { ...r, status: 'EXPIRED', payoutTxid: '06'.repeat(32), payoutHeight: 0 };
  const bound: RequestRecord = { ...pending, executor: actorKey(minerA) };
  const m: ManifestRecord = {
    modelId: 'qwen2.5-0.5b',
    registrant: actorKey(minerB),
    ggufSha256: '07'.repeat(32),
    ggufSize: 2n ** 64n - 1n,
    decoding: 0,
    flags: 6,
    templateHash: null,
    tolerance: 0xffffffff,
    fee: 10_000_000n,
    txid: '08'.repeat(32),
    height: 3,
  };
  const serving: StakeRecord = { ...s, serves: ['qwen2.5-0.5b', 'x'.repeat(64)] };
  for (const x of [
    s,
    r,
    pending,
    paid,
    bound,
    c,
    { ...c, reveal: null },
    { ...s, unstakeHeight: 0, modelId: '', endpoint: 'é'.repeat(300) },
    serving,
    m,
    { ...m, templateHash: '09'.repeat(32) },
  ]) {
    const bytes = encodeRecord(x);
    assert.deepEqual(decodeRecord(bytes), x, 'a record decodes to itself');
    assert.deepEqual(encodeRecord(decodeRecord(bytes)), bytes, 'and encodes to the same bytes');
    assert.throws(() => decodeRecord(bytes.subarray(0, bytes.length - 1)), { name: 'DecodeError' }, 'a truncated record is refused');
    assert.throws(() => decodeRecord(Buffer.concat([bytes, Buffer.of(0)])), { name: 'DecodeError' }, 'trailing bytes are refused');
  }
  // The layout (docs/protocol.md §11.10): tag, then each field in order; nullable numbers as value + 1.
  assert.equal(
    encodeRecord({ ...c, reveal: null }).toString('hex'),
    `02${'ab'.repeat(16)}${actorKey(minerA)}${'01'.repeat(32)}${'02'.repeat(32)}0800000000`,
  );
  const text = (t: string) => 2 + Buffer.byteLength(t);
  assert.equal(
    encodeRecord(pending).length,
    1 + 16 + 32 + 4 + 21 + 1 + text(r.model) + 32 + 4 + 8 + 8 + 4 + 4 + text(r.taskClass) + 1 + 8 + 8 + 1 + 4 + 4 + 4 + 1 + 4 + 4 + 1 + 4 + 1 + 4,
  );
  assert.equal(encodeRecord(bound).length, encodeRecord(pending).length + 21, 'the executor: flag byte 1 then its actor key');
  assert.equal(
    encodeRecord(bound)
      .subarray(1 + 16 + 32 + 4 + 21, 1 + 16 + 32 + 4 + 21 + 22)
      .toString('hex'),
    `01${actorKey(minerA)}`,
  );
  assert.equal(
    encodeRecord(serving).length,
    encodeRecord(s).length + text('qwen2.5-0.5b') + text('x'.repeat(64)),
    'served ids: a count byte then texts',
  );
  assert.equal(
    encodeRecord(m).toString('hex'),
    `040c00${Buffer.from('qwen2.5-0.5b').toString('hex')}${actorKey(minerB)}${'07'.repeat(32)}${'ff'.repeat(8)}000600ffffffff8096980000000000${'08'.repeat(32)}03000000`,
  );
  assert.throws(() => decodeRecord(Buffer.of(9)), { name: 'DecodeError' }, 'an unknown tag is refused');
  assert.throws(() => encodeRecord({ ...c, txid: 'zz'.repeat(32) }), RangeError, 'a field that is not hex of its size is refused');
  assert.throws(() => encodeRecord({ ...c, txid: 'ab' }), RangeError);
});

test('a whole lifecycle by the rules: stake, request, commits, reveals, resolution, payout', () => {
  const st = new MemoryState();
  const events: OpoiEvent[] = [];
  // Stakes of two miners at height 10.
  for (const m of [minerA, minerB]) {
    const { tx, spent } = actingTx(m, [
      { value: P.minStake, scriptPubKey: collateralScript(m) },
      payloadOut({ kind: OpoiKind.STAKE, miner: m, modelId: 'tiny', endpoint: '' }),
    ]);
    applyOpoiTransaction(st, tx, spent, 10, P, events);
  }
  // A stake below the minimum and a second stake are refused.
  const small = actingTx(requester, [
    { value: P.minStake - 1n, scriptPubKey: collateralScript(requester) },
    payloadOut({ kind: OpoiKind.STAKE, miner: requester, modelId: '', endpoint: '' }),
  ]);
  expectReject(() => applyOpoiTransaction(st, small.tx, small.spent, 10, P, []), 'bad-opoi-stake-collateral');
  const again = actingTx(minerA, [
    { value: P.minStake, scriptPubKey: collateralScript(minerA) },
    payloadOut({ kind: OpoiKind.STAKE, miner: minerA, modelId: '', endpoint: '' }),
  ]);
  expectReject(() => applyOpoiTransaction(st, again.tx, again.spent, 11, P, []), 'bad-opoi-stake-exists');

  const payment = 500_000n;
  const request: OpoiPayload = {
    kind: OpoiKind.REQUEST,
    requestId: ID,
    requester,
    promptHash: new Uint8Array(32),
    maxTokens: 100,
    payment,
    feePerToken: 1000n,
    promptTokenCount: 0,
    taskType: 0,
    model: 'tiny',
    taskClass: '',
  };
  const escrow = escrowAmount(payment, 1000n, 100);
  const wrongEscrow = actingTx(requester, [{ value: escrow - 1n, scriptPubKey: escrowScript(ID) }, payloadOut(request)]);
  expectReject(() => applyOpoiTransaction(st, wrongEscrow.tx, wrongEscrow.spent, 20, P, []), 'bad-opoi-escrow');
  const unsigned = actingTx(minerA, [{ value: escrow, scriptPubKey: escrowScript(ID) }, payloadOut(request)]);
  expectReject(() => applyOpoiTransaction(st, unsigned.tx, unsigned.spent, 20, P, []), 'bad-opoi-unsigned');
  const none = actingTx(requester, [{ value: escrow, scriptPubKey: escrowScript(ID) }, payloadOut(request)], 2);
  expectReject(() => applyOpoiTransaction(st, none.tx, none.spent, 20, P, []), 'bad-opoi-unsigned');
  const req = actingTx(requester, [{ value: escrow, scriptPubKey: escrowScript(ID) }, payloadOut(request)]);
  applyOpoiTransaction(st, req.tx, req.spent, 20, P, events);
  expectReject(() => applyOpoiTransaction(st, req.tx, req.spent, 21, P, []), 'bad-opoi-request-duplicate');

  const id = toHex(ID);
  const answers = new Map([
    [actorKey(minerA), { hash: new Uint8Array(32).fill(0xa), tokens: 40, salt: new Uint8Array(32).fill(1) }],
    [actorKey(minerB), { hash: new Uint8Array(32).fill(0xb), tokens: 60, salt: new Uint8Array(32).fill(2) }],
    [actorKey(requester), { hash: new Uint8Array(32).fill(0xc), tokens: 1, salt: new Uint8Array(32).fill(3) }],
  ]);
  const commitTx = (m: typeof minerA) => {
    const a = answers.get(actorKey(m))!;
    return actingTx(m, [payloadOut({ kind: OpoiKind.COMMIT, requestId: ID, miner: m, commitment: commitmentHash(ID, m, a.hash, a.tokens, a.salt) })]);
  };
  const sameBlock = commitTx(minerA);
  expectReject(() => applyOpoiTransaction(st, sameBlock.tx, sameBlock.spent, 20, P, []), 'bad-opoi-commit-window');
  const ca = commitTx(minerA);
  applyOpoiTransaction(st, ca.tx, ca.spent, 22, P, events);
  expectReject(() => applyOpoiTransaction(st, ca.tx, ca.spent, 22, P, []), 'bad-opoi-commit-duplicate');
  const cb = commitTx(minerB);
  applyOpoiTransaction(st, cb.tx, cb.spent, 22 + P.commitWindow - 1, P, events);
  const late = commitTx(requester);
  expectReject(() => applyOpoiTransaction(st, late.tx, late.spent, 22 + P.commitWindow, P, []), 'bad-opoi-commit-window');

  const revealTx = (m: typeof minerA, tokens?: number) => {
    const a = answers.get(actorKey(m))!;
    return actingTx(m, [
      payloadOut({ kind: OpoiKind.REVEAL, requestId: ID, miner: m, responseHash: a.hash, tokenCount: tokens ?? a.tokens, salt: a.salt }),
    ]);
  };
  const early = revealTx(minerA);
  expectReject(() => applyOpoiTransaction(st, early.tx, early.spent, 22 + P.commitWindow - 1, P, []), 'bad-opoi-reveal-early');
  const lie = revealTx(minerA, 41);
  expectReject(() => applyOpoiTransaction(st, lie.tx, lie.spent, 22 + P.commitWindow, P, []), 'bad-opoi-reveal-mismatch');
  for (const m of [minerA, minerB]) {
    const r = revealTx(m);
    applyOpoiTransaction(st, r.tx, r.spent, 22 + P.commitWindow, P, events);
  }
  const deadline = 22 + P.commitWindow + P.revealWindow - 1;
  assert.deepEqual(st.due(deadline), [id]);
  resolveOpoiBlock(st, deadline, new Uint8Array(32).fill(3), P, events);
  const resolved = st.request(id)!;
  assert.equal(resolved.status, 'FULFILLED');
  const winner = resolved.winner!;
  assert.ok(answers.has(winner));
  const pay = payment + 1000n * BigInt(answers.get(winner)!.tokens);
  assert.deepEqual(
    payoutOutputs(resolved).map((o) => o.value),
    [pay, escrow - pay],
  );

  // The payout: exact outputs or nothing.
  const escrowIn = { value: escrow, scriptPubKey: escrowScript(ID) };
  const payout = (outs: TxOut[]) =>
    new Transaction({
      version: 2,
      inputs: [{ prevout: { txid: req.tx.txid, vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] }],
      outputs: outs,
      locktime: 0,
    });
  const [w, change] = payoutOutputs(resolved);
  const toOut = (o: { script: string; value: bigint }, delta = 0n): TxOut => ({ value: o.value + delta, scriptPubKey: Buffer.from(o.script, 'hex') });
  expectReject(
    () => applyOpoiTransaction(st, payout([toOut(w, 1n), toOut(change, -1n)]), [escrowIn], deadline + 1, P, []),
    'bad-opoi-payout-outputs',
  );
  expectReject(() => applyOpoiTransaction(st, payout([toOut(change), toOut(w)]), [escrowIn], deadline + 1, P, []), 'bad-opoi-payout-outputs');
  applyOpoiTransaction(st, payout([toOut(w), toOut(change)]), [escrowIn], deadline + 1, P, events);
  assert.equal(st.request(id)!.payoutHeight, deadline + 1);
  assert.deepEqual(
    events.map((e) => e.type),
    ['stake', 'stake', 'request', 'commit', 'commit', 'reveal', 'reveal', 'resolved', 'paid'],
  );
});

test('a request naming an executor takes a COMMIT from that staker only', () => {
  const st = new MemoryState();
  for (const m of [minerA, minerB]) {
    const { tx, spent } = actingTx(m, [
      { value: P.minStake, scriptPubKey: collateralScript(m) },
      payloadOut({ kind: OpoiKind.STAKE, miner: m, modelId: '', endpoint: '' }),
    ]);
    applyOpoiTransaction(st, tx, spent, 10, P, []);
  }
  const request = (requestId: Uint8Array, executor?: typeof minerA) => {
    const payment = 500_000n;
    const q: OpoiPayload = {
      kind: OpoiKind.REQUEST,
      requestId,
      requester,
      promptHash: new Uint8Array(32),
      maxTokens: 10,
      payment,
      feePerToken: 0n,
      promptTokenCount: 0,
      taskType: 0,
      model: 'tiny',
      taskClass: '',
      ...(executor ? { executor } : {}),
    };
    return actingTx(requester, [{ value: payment, scriptPubKey: escrowScript(requestId) }, payloadOut(q)]);
  };
  const commit = (requestId: Uint8Array, m: typeof minerA) =>
    actingTx(m, [payloadOut({ kind: OpoiKind.COMMIT, requestId, miner: m, commitment: new Uint8Array(32).fill(1) })]);

  const bound = request(ID, minerB);
  applyOpoiTransaction(st, bound.tx, bound.spent, 20, P, []);
  assert.equal(st.request(toHex(ID))!.executor, actorKey(minerB));
  const other = commit(ID, minerA);
  expectReject(() => applyOpoiTransaction(st, other.tx, other.spent, 21, P, []), 'bad-opoi-not-executor');
  // The binding is checked before the window: a stranger hears the same reason whenever it tries.
  expectReject(() => applyOpoiTransaction(st, other.tx, other.spent, 20, P, []), 'bad-opoi-not-executor');
  const own = commit(ID, minerB);
  applyOpoiTransaction(st, own.tx, own.spent, 21, P, []);
  assert.equal(st.request(toHex(ID))!.commits, 1);

  // Unbound, as before: any ACTIVE staker.
  const free = requestIdFromUuid('0b4f6a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5c');
  const open = request(free);
  applyOpoiTransaction(st, open.tx, open.spent, 20, P, []);
  assert.equal(st.request(toHex(free))!.executor, null);
  for (const m of [minerA, minerB]) {
    const c = commit(free, m);
    applyOpoiTransaction(st, c.tx, c.spent, 21, P, []);
  }

  // The executor needs no stake when the request confirms, only when it commits (ACTIVE, as any committer).
  const later = requestIdFromUuid('0b4f6a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5d');
  const unstaked = request(later, requester);
  applyOpoiTransaction(st, unstaked.tx, unstaked.spent, 20, P, []);
  const c = commit(later, requester);
  expectReject(() => applyOpoiTransaction(st, c.tx, c.spent, 21, P, []), 'bad-opoi-stake-inactive');
});

test('stakes: suspension, unstake, and collateral locked until the cooldown ends', () => {
  const st = new MemoryState();
  const { tx, spent } = actingTx(minerA, [
    { value: P.minStake, scriptPubKey: collateralScript(minerA) },
    payloadOut({ kind: OpoiKind.STAKE, miner: minerA, modelId: '', endpoint: '' }),
  ]);
  applyOpoiTransaction(st, tx, spent, 100, P, []);
  const key = actorKey(minerA);
  const spendCollateral = new Transaction({
    version: 2,
    inputs: [
      { prevout: { txid: tx.txid, vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [new Uint8Array(72), new Uint8Array(33)] },
    ],
    outputs: [{ value: P.minStake, scriptPubKey: actorScript(minerA) }],
    locktime: 0,
  });
  const collateral = [{ value: P.minStake, scriptPubKey: collateralScript(minerA) }];
  expectReject(() => applyOpoiTransaction(st, spendCollateral, collateral, 101, P, []), 'bad-opoi-collateral-locked');
  const unstake = actingTx(minerA, [payloadOut({ kind: OpoiKind.UNSTAKE, miner: minerA })]);
  applyOpoiTransaction(st, unstake.tx, unstake.spent, 150, P, []);
  expectReject(() => applyOpoiTransaction(st, unstake.tx, unstake.spent, 151, P, []), 'bad-opoi-stake-unstaking');
  expectReject(() => applyOpoiTransaction(st, spendCollateral, collateral, 150 + P.unstakeCooldown - 1, P, []), 'bad-opoi-collateral-locked');
  const events: OpoiEvent[] = [];
  applyOpoiTransaction(st, spendCollateral, collateral, 150 + P.unstakeCooldown, P, events);
  assert.equal(st.stake(key), undefined);
  assert.deepEqual(
    events.map((e) => e.type),
    ['released'],
  );
});

test('paysActor recognises exactly the actor’s own script', () => {
  const hash = new Uint8Array(20).fill(7);
  const other = new Uint8Array(20).fill(8);
  for (const type of [ActorType.P2WPKH, ActorType.P2PKH]) {
    const actor = { type, hash };
    const own = actorScript(actor);
    assert.equal(paysActor(own, actor), true, `its own ${type} script`);
    assert.equal(paysActor(actorScript({ type, hash: other }), actor), false, 'another key');
    const otherType = type === ActorType.P2WPKH ? ActorType.P2PKH : ActorType.P2WPKH;
    assert.equal(paysActor(actorScript({ type: otherType, hash }), actor), false, 'the same key, the other script type');
    for (let i = 0; i < own.length; i++) {
      const changed = Uint8Array.from(own);
      changed[i] ^= 1;
      assert.equal(paysActor(changed, actor), false, `byte ${i} changed`);
    }
    assert.equal(paysActor(own.subarray(0, own.length - 1), actor), false, 'truncated');
  }
});
