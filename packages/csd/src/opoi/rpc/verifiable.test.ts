// The VERIFIABLE RPCs on one in-process node (test/opoi-harness.ts): a request whose answer is
// published and found valid, then one challenged and found invalid (the winner's collateral
// forfeited), with each method's argument errors, the request and audit JSON, REST, the opoi
// events, payouts spending every held coin, and collateral released. The multi-node lifecycle
// is test/daemon-verifiable.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { type OpoiEvent, sha256Hex, toHex, verifiableResponseHash } from '@cs/consensus';
import { type OpoiTestNode, withOpoiNode } from '../../../test/opoi-harness.ts';
import { startRestServer } from '../../../test/rest-harness.ts';
import { eventToJson } from '../json.ts';

type Json = Record<string, unknown>;
const MANIFEST = 'tiny-v';
const PROMPT = 'What is the capital of France?';
const TOKENS = [40, 3681, 13];
const TEXT = 'Paris.';
const RESPONSE_HASH = toHex(verifiableResponseHash(TOKENS, Buffer.from(TEXT)));

async function rpcError(o: OpoiTestNode, code: number, message: RegExp, method: string, ...params: unknown[]): Promise<void> {
  const e = await o.node.callError(method, ...(params as never[]));
  assert.equal(e.code, code, `${method}: ${e.message}`);
  assert.match(e.message, message, method);
}

test('VERIFIABLE requests over RPC: publish, audit, verdicts, a challenge, outcomes, payouts, forfeit and release', async () => {
  const after: (() => Promise<void>)[] = [];
  await withOpoiNode(async (o) => {
    try {
      await run(o, after);
    } finally {
      for (const f of after) await f();
    }
  });
});

async function run(o: OpoiTestNode, after: (() => Promise<void>)[]): Promise<void> {
  {
    const { chain, params } = o.node.ctx;
    const p = params.opoi;
    const call = <T = Json>(method: string, ...args: unknown[]) => o.node.call<T>(method, ...(args as never[]));
    const rest = await startRestServer(o.node, { indexes: 'none' });
    after.push(() => rest.close());
    const events: OpoiEvent[] = [];
    chain.events.on('connect', ({ opoi }) => events.push(...opoi));
    const tip = () => chain.height;
    const requester = o.requester.address;
    const staker = o.staker.address;
    const auditor = await call<string>('getnewaddress');
    /** Sends from the wallet's other coins: the parties' own stay locked meanwhile (steps nobody signs pay from any coin). */
    const fund = async (to: string, amount: number) => {
      const own = (await call<Json[]>('listunspent', 0, 9999999, [requester, staker, auditor])).map((c) => ({ txid: c.txid, vout: c.vout }));
      await call('lockunspent', false, own);
      await call('sendtoaddress', to, amount);
      await call('lockunspent', true);
    };
    await o.mine(10);
    await fund(requester, 3);
    await fund(auditor, 3);
    await o.mine();

    // ---- a manifest and two stakes serving it ----
    await call('registermodelmanifest', MANIFEST, 'ab'.repeat(32), 1000, 0, requester);
    await o.mine();
    for (const who of [staker, auditor]) {
      const [coin] = await call<Json[]>('listunspent', 1, 9999999, [who]);
      const sent = await call('stakeopoi', who, coin.txid, coin.vout, MANIFEST, '', [MANIFEST]);
      // The collateral is no coin of the address any more: it left the wallet's coins and balance.
      const left = await call<Json[]>('listunspent', 0, 9999999, [who]);
      assert.ok(!left.some((c) => c.txid === sent.txid && c.vout === 0), 'the collateral is not listed');
      assert.ok(left.every((c) => !('opoi_collateral' in c)));
    }
    await o.mine();
    const stakeJson = await call('getopoistake', staker);
    assert.deepEqual([stakeJson.status, stakeJson.locks, stakeJson.forfeited_by], ['ACTIVE', 0, null]);

    // ---- submitopoirequest VERIFIABLE: argument errors ----
    const ask = (id: string, model: string, ...rest: unknown[]) =>
      call('submitopoirequest', id, model, sha256Hex(Buffer.from(PROMPT)), 10, 0.01, requester, 0.0001, ...rest);
    const askError = (message: RegExp, ...args: unknown[]) =>
      rpcError(o, -8, message, 'submitopoirequest', randomUUID(), args[0], sha256Hex(Buffer.from(PROMPT)), ...args.slice(1));
    await askError(/task_type must be OPEN or VERIFIABLE/, MANIFEST, 10, 0.01, requester, 0, 'CHECKED');
    await askError(/model 'tiny' is not a registered manifest id/, 'tiny', 10, 0.01, requester, 0, 'VERIFIABLE', 0, '', null, 1);
    await askError(/max_tokens must be between 1 and 4096/, MANIFEST, 4097, 0.01, requester, 0, 'VERIFIABLE', 0, '', null, 1);
    await askError(/audit_quorum is required/, MANIFEST, 10, 0.01, requester, 0, 'VERIFIABLE');
    await askError(/audit_quorum must be between 1 and 16/, MANIFEST, 10, 0.01, requester, 0, 'VERIFIABLE', 0, '', null, 17);
    await askError(/audit_fee must be at least 0.0001/, MANIFEST, 10, 0.01, requester, 0, 'VERIFIABLE', 0, '', null, 1, 0.00001);
    await askError(/audit_quorum and audit_fee are for VERIFIABLE requests only/, 'tiny', 10, 0.01, requester, 0, 'OPEN', 0, '', null, 1);
    await askError(
      /2 ACTIVE stakers besides the requester and executor serve 'tiny-v', fewer than audit_quorum 3/,
      MANIFEST,
      10,
      0.01,
      requester,
      0,
      'VERIFIABLE',
      0,
      '',
      null,
      3,
    );
    await askError(/1 ACTIVE stakers besides the requester and executor serve/, MANIFEST, 10, 0.01, requester, 0, 'VERIFIABLE', 0, '', staker, 2);

    // ---- request A: answered, published, audited valid ----
    const a = randomUUID();
    const sentA = await ask(a, MANIFEST, 'VERIFIABLE', 0, '', null, 1, 0.001);
    assert.equal(sentA.escrow_amount, 0.012, 'payment + max_tokens × fee_per_token + quorum × audit_fee');
    await o.mine();
    let r = await call('getopoirequest', a);
    assert.deepEqual(
      [r.task_type, r.audit_quorum, r.audit_fee, r.publish, r.audit, r.payout_outputs, r.publish_deadline_height],
      ['VERIFIABLE', 1, 0.001, null, null, [], null],
    );
    await rpcError(o, -5, /No audit for this request: it is PENDING/, 'getopoiaudit', a);

    const answer = async (id: string) => {
      const commit = await call('submitopoiresponsecommit', id, RESPONSE_HASH, staker, null, TOKENS.length);
      const [commitBlock] = await o.mine();
      await o.mineTo(commitBlock.height + p.commitWindow - 1);
      await call('submitopoiresponse', id, RESPONSE_HASH, staker, commit.commitment, TOKENS.length, commit.nonce_hex);
      await o.mineTo(commitBlock.height + p.commitWindow + p.revealWindow - 1);
    };
    await answer(a);
    r = await call('getopoirequest', a);
    assert.deepEqual([r.status, r.winner, r.payout_status, r.refund_amount], ['PUBLISHING', staker, 'none', null]);
    assert.equal(r.publish_deadline_height, tip() + p.publishWindow);
    assert.equal((await call('getopoistake', staker)).locks, 1, 'the win locks the collateral until its audit ends');
    await rpcError(o, -8, /request is still PUBLISHING: it pays out once it is settled/, 'claimopoipayout', a);

    // publishopoianswer: what the node can tell before anything is sent.
    await rpcError(o, -8, /prompt does not hash to the request's prompt_hash/, 'publishopoianswer', a, 'What is the capital of Italy?', TEXT, TOKENS);
    await rpcError(o, -8, /token_ids is required for a VERIFIABLE request/, 'publishopoianswer', a, PROMPT, TEXT);
    await rpcError(o, -8, /token_ids has 2 ids; the winner revealed 3 tokens/, 'publishopoianswer', a, PROMPT, TEXT, [40, 3681]);
    await rpcError(o, -8, /token_ids\[1\] must be an integer from 0 to 4294967295/, 'publishopoianswer', a, PROMPT, TEXT, [1, -2, 3]);
    await rpcError(o, -8, /token_ids\[0\] must be an integer/, 'publishopoianswer', a, PROMPT, TEXT, ['40', 3681, 13]);
    await rpcError(o, -8, /output and token_ids do not hash to the winner's revealed response hash/, 'publishopoianswer', a, PROMPT, 'Lyon.', TOKENS);
    await rpcError(o, -8, /output and token_ids do not hash/, 'publishopoianswer', a, PROMPT, TEXT, [40, 3681, 14]);
    await rpcError(o, -5, /not found on-chain/, 'publishopoianswer', randomUUID(), PROMPT, TEXT, TOKENS);
    const published = await call('publishopoianswer', a, PROMPT, TEXT, TOKENS);
    assert.equal(published.audit_draw_height, tip() + 2);
    assert.equal(published.publish_deadline_height, r.publish_deadline_height);
    const [publishBlock] = await o.mine();
    await rpcError(o, -8, /the answer was published in/, 'publishopoianswer', a, PROMPT, TEXT, TOKENS);
    r = await call('getopoirequest', a);
    assert.equal(r.status, 'AUDITING');
    assert.deepEqual(r.publish, { txid: published.txid, height: publishBlock.height });
    const drawHeight = publishBlock.height + 1;
    const commitClose = drawHeight + p.auditCommitWindow;
    const revealDeadline = commitClose + p.auditRevealWindow;
    assert.deepEqual(r.audit, {
      draw_height: drawHeight,
      commit_close: commitClose,
      reveal_deadline: revealDeadline,
      auditors: [],
      challenge: null,
      outcome: null,
      forfeited: 0,
    });
    // The on-chain answer is the request's content: VERIFIABLE content is never stored off chain.
    assert.deepEqual(await call('getopoicontent', a), {
      request_id: a,
      kind: 'RESPONSE',
      response_hash: RESPONSE_HASH,
      miner: staker,
      final: true,
      source: 'publish',
      publish_txid: published.txid,
      token_ids: TOKENS,
      content_hex: Buffer.from(TEXT).toString('hex'),
    });

    // The draw: the auditor is the only candidate (the winner and the requester are left out).
    await o.mine();
    const audit = await call('getopoiaudit', a);
    assert.deepEqual(audit, {
      request_id: a,
      status: 'AUDITING',
      model: MANIFEST,
      winner: staker,
      publish: { txid: published.txid, height: publishBlock.height },
      ...(r.audit as Json),
      auditors: [{ address: auditor, round: 0, committed: false, verdict: null, commit_txid: null, reveal_txid: null }],
    });
    assert.deepEqual((await call('getopoirequest', a)).audit, (({ request_id, status, model, winner, publish, ...rest }) => rest)(audit));
    const step = { next_step: 'commit', from_height: drawHeight + 1, until_height: commitClose };
    const listed = await call<Json[]>('listopoiaudits');
    assert.deepEqual(
      listed.map((x) => [x.request_id, (x.auditors as Json[]).map((y) => [y.address, y.next_step, y.from_height, y.until_height])]),
      [[a, [[auditor, 'commit', drawHeight + 1, commitClose]]]],
    );
    assert.equal('next_step' in listed[0], false, 'no top-level step without auditor_address');
    const mine = await call<Json[]>('listopoiaudits', auditor);
    assert.deepEqual([mine.length, mine[0].next_step, mine[0].from_height, mine[0].until_height], [1, ...Object.values(step)]);
    assert.deepEqual(await call('listopoiaudits', staker), []);
    await rpcError(o, -5, /Invalid cs address/, 'listopoiaudits', 'nonsense');

    // REST: the same objects (the server closes with the test: closing it stops the registry's mining).
    const get = async (path: string, status = 200) => {
      const res = await rest.get(path);
      assert.equal(res.status, status, `${path}: ${res.text}`);
      return res.json as Json;
    };
    assert.deepEqual(await get(`/rest/opoi/audit/${a}.json`), audit);
    assert.deepEqual(await get(`/rest/opoi/request/${a}.json`), await call('getopoirequest', a));
    assert.deepEqual(await get(`/rest/opoi/manifest/${MANIFEST}.json`), await call('getmodelmanifest', MANIFEST));
    assert.deepEqual(await get('/rest/opoi/manifests.json'), await call('listmodelmanifests'));
    assert.deepEqual(await get(`/rest/opoi/requests.json?status=AUDITING`), {
      total: 1,
      from: 0,
      count: 1,
      requests: [await call('getopoirequest', a)],
    });
    assert.deepEqual(await get(`/rest/opoi/audit/${randomUUID()}.json`, 404), { error: 'OPoI request not found' });
    assert.deepEqual(await get('/rest/opoi/manifest/org%2Fmissing-7b.Q4.json', 404), { error: 'Model manifest not found' });
    assert.deepEqual(await get('/rest/opoi/manifest/two%20words.json', 400), {
      error: 'Invalid model_id: two words (at most 64 characters: letters, digits and ._:/+-)',
    });
    assert.deepEqual(await get(`/rest/opoi/manifest/${MANIFEST}.bin`, 404), { error: 'output format not found (available: .json)' });

    // ---- verdicts ----
    await rpcError(o, -8, /verdict must be valid or invalid/, 'submitopoiverdictcommit', a, auditor, 'maybe');
    await rpcError(o, -8, /auditor_address was not drawn to audit this request/, 'submitopoiverdictcommit', a, staker, 'valid');
    await rpcError(o, -8, /salt must be 64 lower-case hex digits/, 'submitopoiverdictcommit', a, auditor, 'valid', 'abcd');
    await rpcError(o, -8, /auditor_address has no confirmed verdict commit/, 'submitopoiverdict', a, auditor, 'valid', 'ab'.repeat(32));
    const vc = await call('submitopoiverdictcommit', a, auditor, 'valid');
    assert.deepEqual([vc.verdict, vc.reveal_from_height], ['valid', commitClose + 1]);
    assert.match(vc.salt_hex as string, /^[0-9a-f]{64}$/);
    await o.mine();
    await rpcError(o, -8, /auditor_address already committed a verdict/, 'submitopoiverdictcommit', a, auditor, 'valid');
    await rpcError(o, -8, /verdict and salt do not match the verdict commitment on-chain/, 'submitopoiverdict', a, auditor, 'invalid', vc.salt_hex);
    await rpcError(o, -26, /bad-opoi-verdict-early/, 'submitopoiverdict', a, auditor, 'valid', vc.salt_hex);
    assert.equal((await call<Json[]>('listopoiaudits', auditor))[0].next_step, 'reveal');
    await o.mineTo(commitClose);
    await call('submitopoiverdict', a, auditor, 'valid', vc.salt_hex);
    await o.mine();
    assert.equal((await call<Json[]>('listopoiaudits', auditor))[0].next_step, 'done');
    await o.mineTo(revealDeadline);
    assert.deepEqual(await call('listopoiaudits'), [], 'a decided audit is not listed');
    r = await call('getopoirequest', a);
    assert.deepEqual(
      [r.status, (r.audit as Json).outcome, r.payout_status, r.winner_amount, r.refund_amount],
      ['FULFILLED', 'valid', 'claimable', 0.0103, 0.0007],
    );
    assert.deepEqual(
      (r.payout_outputs as Json[]).map((x) => [x.address, x.amount]),
      [
        [staker, 0.0103],
        [auditor, 0.001],
        [requester, 0.0007],
      ],
      "the winner's pay, the auditor's fee, the requester's change",
    );
    assert.equal((await call('getopoistake', staker)).locks, 0, 'the audit ended: the lock is gone');
    const claimA = await call('claimopoipayout', a);
    assert.deepEqual([claimA.kind, claimA.existing, claimA.winner_amount, claimA.refund_amount], ['winner', false, 0.0103, 0.0007]);
    await o.mine();
    assert.equal((await call('getopoirequest', a)).payout_status, 'confirmed');

    // ---- request B: challenged, audited invalid, the winner's collateral forfeited ----
    await fund(requester, 2);
    await o.mine();
    const b = randomUUID();
    await ask(b, MANIFEST, 'VERIFIABLE', 0, '', null, 1, 0.001);
    await o.mine();
    await answer(b);
    await rpcError(
      o,
      -8,
      /request is PUBLISHING: an answer is challenged only while its published answer is AUDITING/,
      'submitopoichallenge',
      b,
      requester,
    );
    await call('publishopoianswer', b, PROMPT, TEXT, TOKENS);
    const [bPublish] = await o.mine();
    await o.mine(); // the draw
    await rpcError(o, -8, /bond must be at least 0.5/, 'submitopoichallenge', b, requester, 0.4);
    await rpcError(o, -5, /challenger_address must be a P2WPKH or P2PKH address|Invalid cs address/, 'submitopoichallenge', b, 'nonsense');
    const challenge = await call('submitopoichallenge', b, requester);
    assert.deepEqual([challenge.bond, challenge.challenger, challenge.draw_height], [0.5, requester, tip() + 2]);
    const [challengeBlock] = await o.mine();
    await rpcError(o, -8, /the answer was already challenged in/, 'submitopoichallenge', b, requester);
    const vcB = await call('submitopoiverdictcommit', b, auditor, 'invalid');
    await o.mine();
    const auditB = await call('getopoiaudit', b);
    const closeB = Math.max(bPublish.height + 1 + p.auditCommitWindow, challengeBlock.height + 1 + p.auditCommitWindow);
    assert.deepEqual(auditB.challenge, { challenger: requester, bond: 0.5, txid: challenge.txid, height: challengeBlock.height });
    assert.deepEqual([auditB.commit_close, auditB.reveal_deadline], [closeB, closeB + p.auditRevealWindow]);
    await o.mineTo(closeB);
    await call('submitopoiverdict', b, auditor, 'invalid', vcB.salt_hex);
    await o.mineTo(closeB + p.auditRevealWindow);
    r = await call('getopoirequest', b);
    assert.deepEqual(
      [r.status, (r.audit as Json).outcome, (r.audit as Json).forfeited, r.winner_amount, r.refund_amount],
      ['REJECTED', 'invalid', 1, null, 0.262],
    );
    // The requester's escrow and a quarter of the collateral, half to the auditor that said invalid, the rest burned, the bond back.
    assert.deepEqual(
      (r.payout_outputs as Json[]).map((x) => [x.address, x.amount]),
      [
        [requester, 0.262],
        [auditor, 0.5],
        [null, 0.25],
        [requester, 0.5],
      ],
    );
    assert.equal((r.payout_outputs as Json[])[2].script_pubkey, '6a');
    const forfeited = await call('getopoistake', staker);
    assert.deepEqual([forfeited.status, forfeited.forfeited_by], ['FORFEITED', b]);
    assert.deepEqual(
      (await call<Json[]>('listopoistakes', 'FORFEITED')).map((s) => s.miner_address),
      [staker],
    );
    await rpcError(o, -8, /the collateral was forfeited by request/, 'releaseopoistake', staker);
    await rpcError(o, -8, /the collateral of miner_address was forfeited by request/, 'unstakeopoi', staker);
    const stats = await call('getopoistats');
    assert.deepEqual(
      [
        (stats.requests as Json).fulfilled,
        (stats.requests as Json).rejected,
        (stats.stakes as Json).forfeited,
        (stats.params as Json).challenge_bond,
      ],
      [1, 1, 1, 0.5],
    );
    // The payout spends the escrow, the bond and the forfeited collateral in one transaction.
    const claimB = await call('claimopoipayout', b);
    assert.deepEqual([claimB.kind, claimB.refund_amount], ['rejected', 0.262]);
    const raw = await call('getrawtransaction', claimB.txid, true);
    const held = (raw.vin as Json[]).filter((i) => (i.scriptSig as Json).hex === '' && !i.txinwitness).map((i) => `${i.txid}:${i.vout}`);
    assert.deepEqual(held.sort(), [`${r.tx_hash}:0`, `${challenge.txid}:0`, `${forfeited.collateral_txid}:0`].sort());
    await o.mine();
    await rpcError(o, -5, /miner_address has no stake/, 'getopoistake', staker);

    // ---- release: the auditor unstakes, waits the cooldown, and gets all its collateral back ----
    await rpcError(o, -8, /the stake is ACTIVE: its collateral is released once UNSTAKED \(unstakeopoi first\)/, 'releaseopoistake', auditor);
    await call('unstakeopoi', auditor);
    const [unstakeBlock] = await o.mine();
    await rpcError(o, -8, /the stake is UNSTAKING: .*cooldown ends at height/, 'releaseopoistake', auditor);
    await o.mineTo(unstakeBlock.height + p.unstakeCooldown - 1);
    const release = await call('releaseopoistake', auditor);
    assert.deepEqual([release.amount, release.existing], [1, false]);
    assert.deepEqual([(await call('releaseopoistake', auditor)).txid, true], [release.txid, true]);
    await o.mine();
    await rpcError(o, -5, /miner_address has no stake/, 'getopoistake', auditor);
    const back = await call<Json[]>('listunspent', 1, 9999999, [auditor]);
    assert.ok(
      back.some((c) => c.txid === release.txid && c.vout === 0 && c.amount === 1),
      'output 0 pays the whole collateral back',
    );

    // ---- the opoi events, with outcome on audited ----
    const shown = events.map((e) => eventToJson(e, null, false, params));
    const ofB = shown.filter((e) => e.request_id === b).map((e) => [e.event, e.miner, e.outcome]);
    assert.deepEqual(ofB, [
      ['request', null, undefined],
      ['commit', staker, undefined],
      ['reveal', staker, undefined],
      ['resolved', staker, undefined],
      ['publish', null, undefined],
      ['auditor', auditor, undefined],
      ['challenge', requester, undefined],
      ['verdict-commit', auditor, undefined],
      ['verdict-reveal', auditor, undefined],
      ['forfeit', staker, undefined],
      ['audited', staker, 'invalid'],
      ['paid', staker, undefined],
    ]);
    assert.deepEqual(
      shown.filter((e) => e.request_id === a && e.event === 'audited').map((e) => e.outcome),
      ['valid'],
    );
    assert.deepEqual(
      shown.filter((e) => e.event === 'released').map((e) => e.miner),
      [auditor],
    );
  }
}
