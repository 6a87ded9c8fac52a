/**
 * VERIFIABLE requests, lifecycle (fullblocktests habit): every new rule broken once in a generated
 * history and refused with its exact reason; the accepted paths paid to the base unit, with the
 * amounts computed here from the documented scheme (docs/protocol.md, verifiable requests).
 * Challenges, held-coin forms and forfeits across requests: verifiable-challenge.test.ts; the
 * encodings: verifiable-encoding.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ANSWER,
  MODEL,
  P,
  PROMPT,
  actionTx,
  actorOf,
  challengeTx,
  challenger,
  change,
  coinOf,
  commitTx,
  escrowOf,
  expectedDraw,
  feeCoin,
  key,
  outsider,
  outs,
  publishAndDraw,
  publishTx,
  requestPayload,
  requestTx,
  requester,
  revealTx,
  setup,
  spendTx,
  stakeAmount,
  stakeTx,
  stakers,
  toPublishing,
  utf8,
  uuid,
  verdictCommitTx,
  verdictRevealTx,
  verdictSalt,
} from '../../test/opoi-verifiable.ts';
import { actorScript } from './actor.ts';
import { collateralScript } from './escrow.ts';
import { MAX_VERIFIABLE_TOKENS, OpoiKind, TASK_OPEN, VERDICT_INVALID, VERDICT_VALID } from './payload.ts';
import { payoutOutputs } from './payout.ts';

test('VERIFIABLE REQUEST: a registered manifest, a quorum, a fee, enough ACTIVE servers, bounded tokens, and the audit fees in escrow', () => {
  const c = setup();
  const q = (n: number, over: Parameters<typeof requestPayload>[1] = {}) => requestTx(requestPayload(uuid(n), over));
  c.no(q(1, { model: 'unregistered-model' }), 'bad-opoi-manifest-unknown');
  c.no(q(1, { auditQuorum: 0 }), 'bad-opoi-audit-quorum');
  c.no(q(1, { auditQuorum: P.maxAuditQuorum + 1 }), 'bad-opoi-audit-quorum');
  c.no(q(1, { auditFee: P.minAuditFee - 1n }), 'bad-opoi-audit-fee');
  // Eight stakers serve MODEL: a quorum of 8 is enough, unless the executor is one of them.
  c.no(q(1, { auditQuorum: 9 }), 'bad-opoi-audit-servers');
  c.no(q(1, { auditQuorum: 8, executor: stakers[0] }), 'bad-opoi-audit-servers');
  c.no(q(1, { maxTokens: MAX_VERIFIABLE_TOKENS + 1 }), 'bad-opoi-max-tokens');
  // The escrow holds the audit fees too: the payment and token fees alone are short.
  const short = requestPayload(uuid(1), { auditQuorum: 3 });
  c.no(requestTx(short, short.payment + short.feePerToken * BigInt(short.maxTokens)), 'bad-opoi-escrow');
  c.ok(q(1, { auditQuorum: 8, auditFee: P.minAuditFee, maxTokens: MAX_VERIFIABLE_TOKENS }));
  assert.equal(c.request(uuid(1)).escrowValue, 500_000n + 1_000n * 4096n + 8n * P.minAuditFee);
  assert.equal(c.request(uuid(1)).auditQuorum, 8);
  // The token bound is VERIFIABLE's (every id is published): an OPEN request may ask for more.
  c.ok(q(2, { taskType: TASK_OPEN, maxTokens: MAX_VERIFIABLE_TOKENS + 1, auditQuorum: undefined, auditFee: undefined }));
  // A server that is no longer ACTIVE does not count: with one UNSTAKING, seven remain.
  c.ok(actionTx(OpoiKind.UNSTAKE, stakers[7]));
  c.next();
  c.no(q(3, { auditQuorum: 8 }), 'bad-opoi-audit-servers');
  c.ok(q(3, { auditQuorum: 7 }));
  // Nor does the requester serving the manifest itself: eight servers, seven of them others.
  c.stake(requester, P.minStake, [MODEL]);
  c.next();
  assert.equal(c.st.servers(MODEL).length, 9);
  c.no(q(4, { auditQuorum: 8 }), 'bad-opoi-audit-servers');
  // A COMMIT comes from a stake serving the manifest.
  c.no(commitTx(uuid(1), outsider), 'bad-opoi-stake-manifest');
  c.ok(commitTx(uuid(1), stakers[0]));
});

test('an honest answer audited valid: the winner, the auditors that said valid and the requester paid to the base unit', () => {
  const c = setup();
  const id = uuid(0x10);
  const W = stakers[0];
  const q = requestPayload(id, { auditQuorum: 3, auditFee: 25_000n });
  const h = c.height;
  const request = c.ok(requestTx(q));
  c.next();
  c.ok(commitTx(id, W));
  c.to(h + 5);
  c.no(publishTx(id), 'bad-opoi-publish-window');
  c.ok(revealTx(id, W));
  c.next();
  // The winner leaves after its reveal: its collateral stays locked until the audit ends.
  c.ok(actionTx(OpoiKind.UNSTAKE, W));
  c.to(h + 9);
  const r = c.request(id);
  assert.deepEqual([r.status, r.winner, r.winnerTokens, r.resolvedHeight], ['PUBLISHING', key(W), 5, h + 8]);
  assert.equal(c.stakeOf(W)!.locks, 1);

  c.no(challengeTx(id, challenger), 'bad-opoi-challenge-window');
  c.no(verdictCommitTx(id, stakers[1], VERDICT_VALID), 'bad-opoi-audit-closed');
  c.no(verdictCommitTx(uuid(0x11), stakers[1], VERDICT_VALID), 'bad-opoi-request-unknown');
  c.no(publishTx(id, utf8('Say hello in one line!')), 'bad-opoi-publish-prompt');
  c.no(publishTx(id, PROMPT, { ...ANSWER, tokens: ANSWER.tokens.slice(1) }), 'bad-opoi-publish-output');
  c.no(publishTx(id, PROMPT, { ...ANSWER, tokens: [...ANSWER.tokens.slice(0, 4), 1] }), 'bad-opoi-publish-output');
  c.no(publishTx(id, PROMPT, { ...ANSWER, text: utf8('Hello, world! ✗') }), 'bad-opoi-publish-output');
  const hp = c.height;
  c.ok(publishTx(id));
  c.no(publishTx(id), 'bad-opoi-publish-duplicate');
  assert.equal(c.request(id).status, 'AUDITING');
  assert.deepEqual([c.request(id).publishHeight, c.request(id).publishTxid !== null], [hp, true]);
  const a0 = c.audit(id);
  assert.deepEqual([a0.drawHeight, a0.commitClose, a0.revealDeadline], [hp + 1, hp + 5, hp + 9]);
  c.next();
  // Nobody is drawn before the end of the block after the publish.
  c.no(verdictCommitTx(id, stakers[1], VERDICT_VALID), 'bad-opoi-not-auditor');
  c.next();

  // The quorum: three of the servers other than the winner and the requester, by the documented rank.
  const drawn = c.audit(id).auditors;
  assert.deepEqual(
    drawn.map((x) => x.auditor),
    expectedDraw(hp + 1, id, 0, stakers.slice(1), 3),
  );
  assert.ok(drawn.every((x) => x.round === 0 && x.commitment === null && x.verdict === 0));
  const [a1, a2, a3] = drawn.map((x) => actorOf(x.auditor));
  const idle = stakers.find((s) => s !== W && !drawn.some((x) => x.auditor === key(s)))!;
  c.no(verdictCommitTx(id, idle, VERDICT_VALID), 'bad-opoi-not-auditor');
  c.no(verdictCommitTx(id, W, VERDICT_VALID), 'bad-opoi-not-auditor');
  c.ok(verdictCommitTx(id, a1, VERDICT_VALID));
  c.no(verdictCommitTx(id, a1, VERDICT_INVALID), 'bad-opoi-verdict-duplicate');
  c.no(verdictRevealTx(id, a1, VERDICT_VALID), 'bad-opoi-verdict-early');
  c.to(hp + 5);
  c.ok(verdictCommitTx(id, a2, VERDICT_VALID));
  c.next();
  c.no(verdictCommitTx(id, a3, VERDICT_VALID), 'bad-opoi-verdict-window');
  c.no(verdictRevealTx(id, a3, VERDICT_VALID), 'bad-opoi-verdict-no-commit');
  c.no(verdictRevealTx(id, a1, 3), 'bad-opoi-verdict');
  c.no(verdictRevealTx(id, a1, 0), 'bad-opoi-verdict');
  c.no(verdictRevealTx(id, a1, VERDICT_INVALID), 'bad-opoi-verdict-mismatch');
  c.no(verdictRevealTx(id, a1, VERDICT_VALID, verdictSalt(a2)), 'bad-opoi-verdict-mismatch');
  c.ok(verdictRevealTx(id, a1, VERDICT_VALID));
  c.no(verdictRevealTx(id, a1, VERDICT_VALID), 'bad-opoi-verdict-duplicate');
  c.ok(verdictRevealTx(id, a2, VERDICT_VALID));

  // The winner's cooldown is over (UNSTAKE at h + 6), but the audit is not: still locked.
  c.to(h + 6 + P.unstakeCooldown);
  const collateral = coinOf(c.stakeTxs.get(key(W))!);
  const release = () => spendTx([collateral, feeCoin()], outs([[W, stakeAmount(0)]]));
  c.no(release(), 'bad-opoi-collateral-locked');
  const pay = (pays: Parameters<typeof outs>[0]) => spendTx([coinOf(request), feeCoin()], [...outs(pays), change()]);
  c.to(hp + 9);
  c.no(pay([[requester, escrowOf(q)]]), 'bad-opoi-payout-unresolved');
  c.next();
  assert.equal(c.request(id).status, 'FULFILLED');
  assert.equal(c.audit(id).outcome, 'valid');
  assert.equal(c.stakeOf(W)!.locks, 0);
  c.no(verdictRevealTx(id, a2, VERDICT_VALID), 'bad-opoi-audit-closed');
  c.no(challengeTx(id, challenger), 'bad-opoi-challenge-window');

  // Winner: payment + fee per token × 5; a1 and a2: one audit fee each; a3 (no verdict) nothing: its fee goes back.
  const expected = [
    [W, 500_000n + 1_000n * 5n],
    [a1, 25_000n],
    [a2, 25_000n],
    [requester, 500_000n + 100_000n + 75_000n - 505_000n - 50_000n],
  ] as const;
  assert.equal(expected[3][1], 120_000n);
  c.no(pay([expected[0], expected[1], expected[2], [a3, 25_000n], [requester, 95_000n]]), 'bad-opoi-payout-outputs');
  c.no(pay([expected[0], expected[1], expected[2], [requester, 120_001n]]), 'bad-opoi-payout-outputs');
  c.no(pay([expected[0], expected[2], expected[1], expected[3]]), 'bad-opoi-payout-outputs');
  c.no(pay(expected.slice(0, 3)), 'bad-opoi-payout-outputs');
  assert.deepEqual(
    payoutOutputs(c.request(id), c.audit(id)),
    outs(expected).map((o) => ({ script: Buffer.from(o.scriptPubKey).toString('hex'), value: o.value })),
  );
  c.ok(pay(expected));
  assert.equal(c.request(id).payoutHeight, c.height);
  // Unlocked, the UNSTAKED collateral is released whole.
  c.ok(release());
  assert.equal(c.stakeOf(W), undefined);
  assert.deepEqual(c.eventsOf(id), [
    'request',
    'commit',
    'reveal',
    'resolved',
    'publish',
    'auditor',
    'auditor',
    'auditor',
    'verdict-commit',
    'verdict-commit',
    'verdict-reveal',
    'verdict-reveal',
    'audited:valid',
    'paid',
  ]);
  assert.deepEqual(
    c.events.filter((e) => e.type === 'auditor').map((e) => [e.height, e.miner]),
    drawn.map((x) => [hp + 1, x.auditor]),
  );
});

test("an answer audited invalid: the winner's collateral forfeited, half to the auditors that said so, a quarter to the requester, the rest burned", () => {
  const c = setup();
  const id = uuid(0x20);
  const W = stakers[1];
  const q = requestPayload(id, { auditQuorum: 3, auditFee: 40_000n });
  const { request } = toPublishing(c, q, W);
  const { hp, auditors } = publishAndDraw(c, id);
  const [a1, a2, a3] = auditors;
  c.ok(verdictCommitTx(id, a1, VERDICT_INVALID));
  c.ok(verdictCommitTx(id, a2, VERDICT_VALID));
  c.ok(verdictCommitTx(id, a3, VERDICT_INVALID));
  c.to(hp + 6);
  for (const [a, v] of [
    [a1, VERDICT_INVALID],
    [a2, VERDICT_VALID],
    [a3, VERDICT_INVALID],
  ] as const)
    c.ok(verdictRevealTx(id, a, v));
  c.to(hp + 9);
  c.next();
  const stakeTxW = c.stakeTxs.get(key(W))!;
  assert.equal(c.request(id).status, 'REJECTED');
  const audit = c.audit(id);
  assert.deepEqual([audit.outcome, audit.forfeited, audit.forfeitTxid, audit.forfeitVout], ['invalid', stakeAmount(1), stakeTxW.txidHex, 0]);
  assert.equal(c.stakeOf(W)!.forfeitedBy, audit.requestId);
  assert.deepEqual(c.eventsOf(id).slice(-2), ['forfeit', 'audited:invalid']);

  // A forfeited stake neither renews nor unstakes, nor stakes again, nor commits; its coin is the payout's.
  c.no(actionTx(OpoiKind.RENEW, W), 'bad-opoi-stake-forfeited');
  c.no(actionTx(OpoiKind.UNSTAKE, W), 'bad-opoi-stake-forfeited');
  c.no(stakeTx(W, P.minStake, []), 'bad-opoi-stake-exists');
  const collateral = coinOf(stakeTxW);
  c.no(spendTx([collateral, feeCoin()], outs([[W, stakeAmount(1)]])), 'bad-opoi-collateral-locked');

  // C = 101,000,010: half (50,500,005) shared by 2 → 25,250,002 each; a quarter 25,250,002; burned 101,000,010 − 50,500,004 − 25,250,002.
  const C = P.minStake + 1_000_003n + 7n;
  assert.equal(C, stakeAmount(1));
  const share = 25_250_002n;
  const expected = [
    [requester, 500_000n + 100_000n + 120_000n + 25_250_002n],
    [a1, share],
    [a3, share],
    ['6a', C - 2n * share - 25_250_002n],
  ] as const;
  assert.equal(expected[3][1], 25_250_004n);
  const pay = (coins: ReturnType<typeof coinOf>[], pays: Parameters<typeof outs>[0]) => spendTx([...coins, feeCoin()], [...outs(pays), change()]);
  c.no(pay([coinOf(request)], expected), 'bad-opoi-payout-inputs');
  c.no(pay([coinOf(request), collateral], [expected[0], expected[1], expected[2], [requester, expected[3][1]]]), 'bad-opoi-payout-outputs');
  c.no(pay([coinOf(request), collateral], [[requester, escrowOf(q)], expected[1], expected[2], expected[3]]), 'bad-opoi-payout-outputs');
  c.no(pay([coinOf(request), collateral], [expected[0], expected[1], expected[2], ['6a00', expected[3][1]]]), 'bad-opoi-payout-outputs');
  c.ok(pay([collateral, coinOf(request)], expected));
  assert.equal(c.stakeOf(W), undefined, 'the payout took the forfeited stake');

  // W may stake again, with its collateral in the collateral form only.
  c.next();
  c.no(stakeTx(W, P.minStake, [], actorScript(W)), 'bad-opoi-stake-collateral');
  c.no(stakeTx(W, P.minStake, [], collateralScript(stakers[2])), 'bad-opoi-stake-collateral');
  c.no(stakeTx(W, P.minStake - 1n, []), 'bad-opoi-stake-collateral');
  c.stake(W, P.minStake, []);
  assert.deepEqual([c.stakeOf(W)!.locks, c.stakeOf(W)!.forfeitedBy], [0, null]);
});

test("no verdict revealed: EXPIRED, the whole escrow back (and a challenger's bond), the winner unlocked", () => {
  const c = setup();
  const [id, twin] = [uuid(0x30), uuid(0x31)];
  const W = stakers[4];
  const q = requestPayload(id, { auditQuorum: 1, auditFee: P.minAuditFee });
  const h = c.height;
  const request = c.ok(requestTx(q));
  const other = c.ok(requestTx(requestPayload(twin, { auditQuorum: 1, auditFee: P.minAuditFee, executor: W })));
  c.next();
  c.ok(commitTx(id, W));
  c.ok(commitTx(twin, W));
  c.to(h + 5);
  c.ok(revealTx(id, W));
  c.ok(revealTx(twin, W));
  c.to(h + 9);
  assert.equal(c.stakeOf(W)!.locks, 2, 'one lock per pending win');
  c.ok(publishTx(twin));
  const { hp, auditors } = publishAndDraw(c, id);
  assert.equal(auditors.length, 1);
  c.ok(verdictCommitTx(id, auditors[0], VERDICT_VALID));
  const bond = c.ok(challengeTx(twin, challenger));
  c.to(hp + 9);
  c.next();
  assert.deepEqual([c.request(id).status, c.audit(id).outcome, c.stakeOf(W)!.locks], ['EXPIRED', 'unaudited', 1]);
  const refund = [[requester, 500_000n + 100_000n + P.minAuditFee]] as const;
  c.no(
    spendTx(
      [coinOf(request), feeCoin()],
      outs([
        [requester, 600_000n],
        [auditors[0], P.minAuditFee],
      ]),
    ),
    'bad-opoi-payout-outputs',
  );
  c.ok(spendTx([coinOf(request), feeCoin()], [...outs(refund), change()]));
  assert.deepEqual(c.eventsOf(id).slice(-3), ['verdict-commit', 'audited:unaudited', 'paid']);
  // The challenged twin: its windows end later (challenged at hp + 2: reveals close at hp + 2 + 1 + 4 + 4).
  c.to(hp + 11);
  c.next();
  assert.deepEqual([c.request(twin).status, c.audit(twin).outcome, c.stakeOf(W)!.locks], ['EXPIRED', 'unaudited', 0]);
  c.no(spendTx([coinOf(other), feeCoin()], [...outs(refund), change()]), 'bad-opoi-payout-inputs');
  c.no(spendTx([coinOf(other), coinOf(bond), feeCoin()], [...outs(refund), change()]), 'bad-opoi-payout-outputs');
  c.ok(spendTx([coinOf(other), coinOf(bond), feeCoin()], [...outs([...refund, [challenger, P.challengeBond]]), change()]));
});

test('an answer never published: EXPIRED at the publish deadline, refunded, the lock released; the winner then unstakes and is released', () => {
  const c = setup();
  const id = uuid(0x40);
  const W = stakers[5];
  const other = stakers[6];
  const { request, h } = toPublishing(c, requestPayload(id), W);
  assert.equal(c.stakeOf(W)!.locks, 1);
  c.ok(actionTx(OpoiKind.UNSTAKE, W));
  c.ok(actionTx(OpoiKind.UNSTAKE, other));
  c.to(h + 8 + P.publishWindow);
  assert.equal(c.request(id).status, 'PUBLISHING', 'publishable through the last block of the window');
  c.next();
  assert.deepEqual([c.request(id).status, c.stakeOf(W)!.locks], ['EXPIRED', 0]);
  assert.deepEqual(c.eventsOf(id).slice(-2), ['resolved', 'expired']);
  assert.equal(c.audit(id), undefined);
  c.no(publishTx(id), 'bad-opoi-publish-window');
  c.no(
    spendTx(
      [coinOf(request), feeCoin()],
      outs([
        [W, 505_000n],
        [requester, 145_000n],
      ]),
    ),
    'bad-opoi-payout-outputs',
  );
  c.ok(spendTx([coinOf(request), feeCoin()], [...outs([[requester, 650_000n]]), change()]));

  const mine = coinOf(c.stakeTxs.get(key(W))!);
  const theirs = coinOf(c.stakeTxs.get(key(other))!);
  c.to(h + 9 + P.unstakeCooldown - 1);
  c.no(spendTx([mine, feeCoin()], outs([[W, stakeAmount(5)]])), 'bad-opoi-collateral-locked');
  c.next();
  c.no(spendTx([mine, feeCoin()], outs([[W, stakeAmount(5) - 1n]])), 'bad-opoi-release-outputs');
  c.no(spendTx([mine, feeCoin()], outs([[other, stakeAmount(5)]])), 'bad-opoi-release-outputs');
  c.no(spendTx([mine, feeCoin()], [change(), ...outs([[W, stakeAmount(5)]])]), 'bad-opoi-release-outputs');
  c.no(
    spendTx(
      [mine, theirs, feeCoin()],
      outs([
        [W, stakeAmount(5)],
        [other, stakeAmount(6)],
      ]),
    ),
    'bad-opoi-release-multiple',
  );
  c.ok(spendTx([mine, feeCoin()], [...outs([[W, stakeAmount(5)]]), change()]));
  c.ok(spendTx([theirs], outs([[other, stakeAmount(6)]])));
  assert.deepEqual([c.stakeOf(W), c.stakeOf(other)], [undefined, undefined]);
  assert.deepEqual(
    c.events.filter((e) => e.type === 'released').map((e) => e.miner),
    [key(W), key(other)],
  );
});
