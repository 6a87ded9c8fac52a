/**
 * VERIFIABLE requests, continued (the history of verifiable.test.ts): challenges that fail and
 * succeed, held-coin output forms, forfeits across requests.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  type Chain,
  type Coin,
  P,
  type Pay,
  actingTxOf,
  challengeTx,
  challenger,
  challenger2,
  change,
  coinOf,
  commitTx,
  expectedDraw,
  feeCoin,
  key,
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
  uuid,
  verdictCommitTx,
  verdictRevealTx,
} from '../../test/opoi-verifiable.ts';
import { actorScript } from './actor.ts';
import { collateralScript, escrowScript } from './escrow.ts';
import { type Actor, OpoiKind, VERDICT_INVALID, VERDICT_VALID } from './payload.ts';

const pay = (coins: Coin[], pays: readonly Pay[]) => spendTx([...coins, feeCoin()], [...outs(pays), change()]);

/** Commits then (after the commit window) reveals each auditor's verdict. */
function verdicts(c: Chain, id: Uint8Array, list: readonly (readonly [Actor, number])[], revealAt: number): void {
  for (const [a, v] of list) c.ok(verdictCommitTx(id, a, v));
  c.to(revealAt);
  for (const [a, v] of list) c.ok(verdictRevealTx(id, a, v));
}

test('a challenge that fails (a tie): the windows extend, quorum + 1 more auditors, the bond half to the auditors that said valid, the rest to the winner', () => {
  const c = setup();
  const id = uuid(0x50);
  const W = stakers[2];
  const q = requestPayload(id, { auditQuorum: 2, auditFee: 30_000n });
  const { request } = toPublishing(c, q, W);
  const hp = c.height;
  c.ok(publishTx(id));
  c.next();
  c.no(challengeTx(id, challenger), 'bad-opoi-challenge-window');
  c.next();
  const round0 = c.audit(id).auditors.map((x) => x.auditor);
  const others = stakers.filter((s) => s !== W);
  assert.deepEqual(round0, expectedDraw(hp + 1, id, 0, others, 2));
  const [a1, a2] = round0.map((k) => others.find((s) => key(s) === k)!);
  c.ok(verdictCommitTx(id, a1, VERDICT_VALID));

  c.no(challengeTx(id, challenger, P.challengeBond - 1n), 'bad-opoi-challenge-bond');
  c.no(challengeTx(id, challenger, P.challengeBond, actorScript(challenger)), 'bad-opoi-challenge-bond');
  c.no(challengeTx(id, challenger, P.challengeBond, escrowScript(uuid(0x51))), 'bad-opoi-escrow-output');
  // The bond form anywhere but a CHALLENGE's (or REQUEST's) output 0 is refused, whatever carries it.
  const challenge = { kind: OpoiKind.CHALLENGE, requestId: id, challenger } as const;
  c.no(
    actingTxOf(challenger, [
      { value: 1_000n, scriptPubKey: actorScript(challenger) },
      { value: P.challengeBond, scriptPubKey: escrowScript(id) },
      challenge,
    ]),
    'bad-opoi-escrow-output',
  );
  c.no(actingTxOf(challenger, [{ value: P.challengeBond, scriptPubKey: escrowScript(id) }]), 'bad-opoi-escrow-output');
  c.no(actingTxOf(challenger2, [{ value: P.challengeBond, scriptPubKey: escrowScript(id) }, challenge]), 'bad-opoi-unsigned');

  const bond = P.challengeBond + 1n;
  const ch = c.ok(challengeTx(id, challenger, bond));
  const a = c.audit(id);
  assert.deepEqual(
    [a.challenger, a.bond, a.challengeTxid, a.challengeHeight, a.commitClose, a.revealDeadline],
    [key(challenger), bond, ch.txidHex, hp + 2, hp + 2 + 1 + P.auditCommitWindow, hp + 2 + 1 + P.auditCommitWindow + P.auditRevealWindow],
  );
  c.next();
  c.no(challengeTx(id, challenger2), 'bad-opoi-challenge-duplicate');
  c.next();
  // Round 1: quorum + 1 among the servers but the winner, the requester, the challenger and round 0.
  const round1 = c.audit(id).auditors.filter((x) => x.round === 1);
  const rest = others.filter((s) => s !== a1 && s !== a2);
  assert.deepEqual(
    round1.map((x) => x.auditor),
    expectedDraw(hp + 3, id, 1, rest, 3),
  );
  const [b1, b2, b3] = round1.map((x) => rest.find((s) => key(s) === x.auditor)!);
  c.ok(verdictCommitTx(id, b1, VERDICT_VALID));
  c.ok(verdictCommitTx(id, b2, VERDICT_INVALID));
  c.to(hp + 6);
  // The challenge reopened the window for round 0 too: past the first close (hp + 5).
  c.ok(verdictCommitTx(id, a2, VERDICT_INVALID));
  c.to(hp + 7);
  c.no(verdictRevealTx(id, a1, VERDICT_VALID), 'bad-opoi-verdict-early');
  c.next();
  c.no(challengeTx(id, challenger2), 'bad-opoi-challenge-window');
  c.no(verdictCommitTx(id, b3, VERDICT_VALID), 'bad-opoi-verdict-window');
  for (const [x, v] of [
    [a1, VERDICT_VALID],
    [a2, VERDICT_INVALID],
    [b1, VERDICT_VALID],
    [b2, VERDICT_INVALID],
  ] as const)
    c.ok(verdictRevealTx(id, x, v));
  c.to(hp + 11);
  c.next();
  // Two valid, two invalid: a tie is a valid outcome (valid >= invalid, at least one valid).
  assert.deepEqual([c.request(id).status, c.audit(id).outcome], ['FULFILLED', 'valid']);

  // Bond 50,000,001: half (25,000,000) shared by the 2 valid auditors → 12,500,000 each; the winner 50,000,001 − 25,000,000.
  const share = 12_500_000n;
  const expected: Pay[] = [
    [W, 500_000n + 5n * 1_000n + 25_000_001n],
    [a1, 30_000n + share],
    [b1, share],
    [requester, 660_000n - 505_000n - 30_000n],
  ];
  const bondCoin = coinOf(ch);
  c.no(pay([coinOf(request)], expected), 'bad-opoi-payout-inputs');
  c.no(pay([bondCoin], expected), 'bad-opoi-payout-inputs');
  c.no(
    pay(
      [coinOf(request), bondCoin],
      [
        [W, 505_000n],
        [a1, 30_000n],
        [requester, 125_000n],
      ],
    ),
    'bad-opoi-payout-outputs',
  );
  c.no(pay([coinOf(request), bondCoin], [...expected.slice(0, 2), [a2, 30_000n], expected[2], [requester, 95_000n]]), 'bad-opoi-payout-outputs');
  c.no(pay([coinOf(request), bondCoin], [expected[0], expected[1], [b1, share + 30_000n], [requester, 95_000n]]), 'bad-opoi-payout-outputs');
  c.ok(pay([bondCoin, coinOf(request)], expected));
  assert.equal(c.stakeOf(W)!.locks, 0);
  assert.deepEqual(
    c.eventsOf(id).filter((e) => e === 'challenge' || e === 'auditor' || e.startsWith('audited')),
    ['auditor', 'auditor', 'challenge', 'auditor', 'auditor', 'auditor', 'audited:valid'],
  );
});

test('a challenge that succeeds: the bond back, the forfeit shared among the invalid auditors of both rounds', () => {
  const c = setup();
  const id = uuid(0x60);
  const W = stakers[3];
  const { request } = toPublishing(c, requestPayload(id), W);
  const { hp, auditors } = publishAndDraw(c, id);
  const [a1, a2] = auditors;
  c.to(hp + 5);
  c.ok(verdictCommitTx(id, a1, VERDICT_INVALID));
  c.ok(verdictCommitTx(id, a2, VERDICT_VALID));
  // Challenged in the last block of the commit window, by a server: round 1 gets a whole window after its draw.
  const accuser = stakers.find((s) => s !== W && !auditors.includes(s))!;
  const ch = c.ok(challengeTx(id, accuser));
  assert.deepEqual([c.audit(id).commitClose, c.audit(id).revealDeadline], [hp + 10, hp + 14]);
  c.next(2);
  const round1 = c.audit(id).auditors.filter((x) => x.round === 1);
  const candidates = stakers.filter((s) => s !== W && s !== accuser && !auditors.includes(s));
  assert.deepEqual(
    round1.map((x) => x.auditor),
    expectedDraw(hp + 6, id, 1, candidates, 3),
    'the challenger is no auditor of its own challenge',
  );
  const [b1, b2, b3] = round1.map((x) => stakers.find((s) => key(s) === x.auditor)!);
  verdicts(
    c,
    id,
    [
      [b1, VERDICT_INVALID],
      [b2, VERDICT_INVALID],
      [b3, VERDICT_VALID],
    ],
    hp + 11,
  );
  c.ok(verdictRevealTx(id, a1, VERDICT_INVALID));
  c.ok(verdictRevealTx(id, a2, VERDICT_VALID));
  c.to(hp + 14);
  c.next();
  assert.deepEqual([c.request(id).status, c.audit(id).outcome, c.stakeOf(W)!.forfeitedBy], ['REJECTED', 'invalid', c.request(id).id]);

  // C = 101,000,024: half 50,500,012 / 3 = 16,833,337 each; a quarter 25,250,006; burned C − 50,500,011 − 25,250,006.
  const C = stakeAmount(3);
  assert.equal(C, 101_000_024n);
  const share = 16_833_337n;
  const expected: Pay[] = [
    [requester, 650_000n + 25_250_006n],
    [a1, share],
    [b1, share],
    [b2, share],
    ['6a', 25_250_007n],
    [accuser, P.challengeBond],
  ];
  const coins = [coinOf(request), coinOf(ch), coinOf(c.stakeTxs.get(key(W))!)];
  c.no(pay([coins[0], coins[2]], expected), 'bad-opoi-payout-inputs');
  c.no(pay([coins[0], coins[1]], expected), 'bad-opoi-payout-inputs');
  c.no(pay(coins, expected.slice(0, 5)), 'bad-opoi-payout-outputs');
  c.no(pay(coins, [[requester, 650_000n + 25_250_006n + P.challengeBond], ...expected.slice(1, 5)]), 'bad-opoi-payout-outputs');
  c.ok(pay(coins, expected));
  assert.equal(c.stakeOf(W), undefined);
});

test("held-coin forms: the collateral form only at a STAKE's output 0, the escrow form only at a REQUEST's or CHALLENGE's", () => {
  const c = setup();
  const held = (a = stakers[0]) => ({ value: P.minStake, scriptPubKey: collateralScript(a) });
  c.no(actingTxOf(requester, [held()]), 'bad-opoi-collateral-output');
  c.no(actingTxOf(requester, [held(requester)]), 'bad-opoi-collateral-output');
  const stake = { kind: OpoiKind.STAKE, miner: requester, modelId: 'm', endpoint: '' } as const;
  c.no(actingTxOf(requester, [held(requester), stake, held(requester)]), 'bad-opoi-collateral-output');
  const q = requestPayload(uuid(0x70));
  const escrow = { value: 650_000n, scriptPubKey: escrowScript(q.requestId) };
  c.no(actingTxOf(requester, [escrow, q, held()]), 'bad-opoi-collateral-output');
  c.no(actingTxOf(requester, [escrow, q, { value: 1n, scriptPubKey: escrowScript(q.requestId) }]), 'bad-opoi-escrow-output');
  c.no(actingTxOf(requester, [{ value: 650_000n, scriptPubKey: escrowScript(uuid(0x71)) }, q]), 'bad-opoi-escrow-output');
  c.no(actingTxOf(stakers[0], [held(), { kind: OpoiKind.RENEW, miner: stakers[0] }]), 'bad-opoi-collateral-output');
  c.ok(stakeTx(requester, P.minStake));
  c.ok(requestTx(q));
});

test("a forfeited collateral is spent by its own request's payout only, never by another request's", () => {
  const c = setup();
  const [X, Y] = [uuid(0x80), uuid(0x81)];
  const [W1, W2] = [stakers[0], stakers[1]];
  const h = c.height;
  const rx = c.ok(requestTx(requestPayload(X, { auditQuorum: 1 })));
  const ry = c.ok(requestTx(requestPayload(Y, { auditQuorum: 1 })));
  c.next();
  c.ok(commitTx(X, W1));
  c.ok(commitTx(Y, W2));
  c.to(h + 5);
  c.ok(revealTx(X, W1));
  c.ok(revealTx(Y, W2));
  c.to(h + 9);
  c.ok(publishTx(X));
  c.ok(publishTx(Y));
  c.next(2);
  const [ax] = c.audit(X).auditors.map((x) => stakers.find((s) => key(s) === x.auditor)!);
  const [ay] = c.audit(Y).auditors.map((x) => stakers.find((s) => key(s) === x.auditor)!);
  c.ok(verdictCommitTx(X, ax, VERDICT_INVALID));
  c.ok(verdictCommitTx(Y, ay, VERDICT_INVALID));
  c.to(h + 15);
  c.ok(verdictRevealTx(X, ax, VERDICT_INVALID));
  c.ok(verdictRevealTx(Y, ay, VERDICT_INVALID));
  c.to(h + 19);
  assert.deepEqual([c.stakeOf(W1)!.forfeitedBy, c.stakeOf(W2)!.forfeitedBy], [c.request(X).id, c.request(Y).id]);
  const [c1, c2] = [coinOf(c.stakeTxs.get(key(W1))!), coinOf(c.stakeTxs.get(key(W2))!)];
  const shares = (C: bigint, auditor: (typeof stakers)[number]): Pay[] => [
    [requester, 625_000n + C / 4n],
    [auditor, C / 2n],
    ['6a', C - C / 2n - C / 4n],
  ];
  // X's exact payout, with Y's forfeited collateral slipped in (first, then last): refused both ways.
  c.no(pay([c2, coinOf(rx), c1], shares(stakeAmount(0), ax)), 'bad-opoi-collateral-locked');
  c.no(pay([coinOf(rx), c1, c2], shares(stakeAmount(0), ax)), 'bad-opoi-collateral-locked');
  c.ok(pay([coinOf(rx), c1], shares(stakeAmount(0), ax)));
  c.ok(pay([coinOf(ry), c2], shares(stakeAmount(1), ay)));
  assert.deepEqual([c.stakeOf(W1), c.stakeOf(W2)], [undefined, undefined]);
});

test('a revealer whose stake was forfeited and paid out before its VERIFIABLE request resolves is left out of the draw: alone, the request expires and is refunded', () => {
  const c = setup();
  const [X, Y] = [uuid(0x90), uuid(0x91)];
  const W = stakers[0];
  const { request: rx } = toPublishing(c, requestPayload(X, { auditQuorum: 1 }), W);
  const { hp, auditors } = publishAndDraw(c, X);
  c.ok(verdictCommitTx(X, auditors[0], VERDICT_INVALID));
  // Y: requested at hp + 4, W commits at hp + 5 and reveals at hp + 9, while its stake is still ACTIVE.
  c.to(hp + 4);
  const ry = c.ok(requestTx(requestPayload(Y, { auditQuorum: 1, executor: W })));
  c.next();
  c.ok(commitTx(Y, W));
  c.next();
  c.ok(verdictRevealTx(X, auditors[0], VERDICT_INVALID));
  c.to(hp + 9);
  c.ok(revealTx(Y, W));
  c.next();
  // X rejected at the end of hp + 9; its payout at hp + 10 takes W's stake, before Y resolves (end of hp + 12).
  const C = stakeAmount(0);
  c.ok(
    pay(
      [coinOf(rx), coinOf(c.stakeTxs.get(key(W))!)],
      [
        [requester, 650_000n - 25_000n + C / 4n],
        [auditors[0], C / 2n],
        ['6a', C - C / 2n - C / 4n],
      ],
    ),
  );
  assert.equal(c.stakeOf(W), undefined);
  c.to(hp + 13);
  assert.deepEqual([c.request(Y).status, c.request(Y).winner], ['EXPIRED', null]);
  assert.ok(
    [...c.st.stakes].every(([k, s]) => typeof k === 'string' && k === s.miner && Number.isInteger(s.locks)),
    'no stake record made up for the missing stake',
  );
  c.ok(pay([coinOf(ry)], [[requester, 625_000n]]));
});
