// The OPoI lifecycle on real csd processes: a requester's wallet on node A, stakers' wallets on
// nodes B and A. Without P2P the nodes follow one chain by relaying each other's mempool
// transactions (sendrawtransaction) and blocks (submitblock), as peers would.
import assert from 'node:assert/strict';
import { createHash, randomUUID } from 'node:crypto';
import { test } from 'node:test';
import { Daemon } from './daemon.ts';
import { type Json, Net, restartKillReindex, rpcError } from './daemon-net.ts';

const ARGS = ['-fallbackfee=0.0002', '-rpcratelimit=0'];
const sats = (coins: number) => Math.round(coins * 1e8);
/** A coin amount rounded to the base unit, as RPC accepts it. */
const coins = (x: number) => Math.round(x * 1e8) / 1e8;
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

// Regtest's OPoI parameters (packages/consensus/src/params/networks.ts).
const COMMIT_WINDOW = 4;
const REVEAL_WINDOW = 4;
const REQUEST_EXPIRY = 40;
const MIN_STAKE = 1;

/** The sum of the unspent outputs paying `address` in `node`'s wallet, in base units. */
async function held(node: Daemon, address: string): Promise<number> {
  const coins = await node.call<Json[]>('listunspent', 0, 9999999, [address]);
  return coins.reduce((s, c) => s + sats(c.amount as number), 0);
}

/** The fee a wallet transaction paid, in base units (positive). */
async function feeOf(node: Daemon, txid: string): Promise<number> {
  const tx = await node.call<Json>('gettransaction', txid);
  return -sats(tx.fee as number);
}

test('OPoI lifecycle on real nodes: stake, request, competing commits, reveal, resolution, content, payout, expiry, reorgs, restarts', async () => {
  const a = new Daemon({ args: ARGS });
  const b = new Daemon({ args: ARGS });
  // The requester's wallet spends nothing else, so its coins can be counted exactly.
  const c = new Daemon({ args: ARGS });
  try {
    await Promise.all([a.start(), b.start(), c.start()]);
    const miner = await a.call<string>('getnewaddress');
    const net = new Net([a, b, c], miner);
    await a.call('generatetoaddress', 110, miner);
    await net.syncBlocks();

    // Exact starting amounts for the requester (C), staker 1 (B) and staker 2 (A).
    const requester = await c.call<string>('getnewaddress');
    const staker1 = await b.call<string>('getnewaddress');
    const staker2 = await a.call<string>('getnewaddress');
    await a.call('sendtoaddress', requester, 1);
    await a.call('sendtoaddress', staker1, 10);
    await a.call('sendtoaddress', staker2, 5);
    await net.mine();

    // ---- stakes ----
    const coinOf = async (node: Daemon, address: string) => (await node.call<Json[]>('listunspent', 1, 9999999, [address]))[0];
    const c1 = await coinOf(b, staker1);
    await rpcError(b.call('stakeopoi', staker1, c1.txid, 7), -8, /collateral/);
    await rpcError(b.call('stakeopoi', requester, c1.txid, c1.vout), -5, /not an address of this wallet/);
    const stake1 = await b.call<Json>('stakeopoi', staker1, c1.txid, c1.vout, 'tiny', 'stratum+tcp://127.0.0.1:3532');
    const c2 = await coinOf(a, staker2);
    const stake2 = await a.call<Json>('stakeopoi', staker2, c2.txid, c2.vout);
    const stakeHeight = await net.mine();
    assert.equal((await b.call<Json>('getopoistake', staker1)).status, 'ACTIVE');
    assert.equal((await a.call<Json[]>('listopoistakes', 'ACTIVE')).length, 2);
    // The collateral left the wallet (its form is no address's): only the change (after the payload) is listed.
    const listed = await b.call<Json[]>('listunspent', 0, 9999999, [staker1]);
    assert.deepEqual(
      listed.map((c) => [c.txid, c.vout]),
      [[stake1.txid, 2]],
    );
    assert.equal(await held(b, staker1), sats(10 - MIN_STAKE) - (await feeOf(b, stake1.txid as string)));
    assert.equal((await b.call<Json>('getopoistake', staker1)).amount, MIN_STAKE);

    // Spending locked collateral (an empty scriptSig is all it takes): refused by the mempool and in a block.
    const spendCollateral = async (node: Daemon, txid: string, to: string) => {
      const raw = await node.call<string>('createrawtransaction', [{ txid, vout: 0 }], [{ [to]: MIN_STAKE - 0.001 }]);
      return raw;
    };
    const collateralSpend = await spendCollateral(b, stake1.txid as string, staker1);
    await rpcError(b.call('sendrawtransaction', collateralSpend), -26, /bad-opoi-collateral-locked/);
    await rpcError(a.call('generateblock', miner, [collateralSpend]), -25, /TestBlockValidity failed: bad-opoi-collateral-locked/);

    // ---- the request ----
    const prompt = 'What is the capital of France?';
    const id = randomUUID();
    await rpcError(c.call('submitopoirequest', 'not-a-uuid', 'tiny', sha256(prompt), 100, 0.01, requester), -8, /request_id must be a UUID/);
    await rpcError(c.call('submitopoirequest', id, 'tiny', sha256(prompt).toUpperCase(), 100, 0.01, requester), -8, /prompt_hash/);
    await rpcError(c.call('submitopoirequest', id, 'tiny', sha256(prompt), 100, 0.001, requester), -8, /payment must exceed 0.001/);
    await rpcError(c.call('submitopoirequest', id, 'tiny', sha256(prompt), 100, 0.01, 'nonsense'), -5);
    await rpcError(c.call('submitopoirequest', id, 'tiny', sha256(prompt), 100, 50, requester), -6);
    await rpcError(a.call('submitopoirequest', id, 'tiny', sha256(prompt), 100, 0.01, requester), -5, /not an address of this wallet/);
    await rpcError(a.call('getmodelmanifest', 'tiny'), -5, /plain model name/);
    const requesterBefore = await held(c, requester);
    const request = await c.call<Json>('submitopoirequest', id, 'tiny', sha256(prompt), 100, 0.01, requester, 0.0001);
    assert.equal(request.request_id, id);
    assert.equal(request.escrow_amount, 0.02);
    // While unconfirmed the request is unknown on-chain, and the id cannot be taken twice.
    await rpcError(c.call('getopoirequest', id), -5, /not found on-chain/);
    await rpcError(c.call('submitopoirequest', id, 'tiny', sha256(prompt), 100, 0.01, requester), -26, /opoi-mempool-conflict/);
    const requestHeight = await net.mine();
    await rpcError(c.call('submitopoirequest', id, 'tiny', sha256(prompt), 100, 0.01, requester), -8, /already exists/);
    let r = await b.call<Json>('getopoirequest', id);
    assert.equal(r.status, 'PENDING');
    assert.equal(r.block_height, requestHeight);
    assert.equal(r.requester, requester);
    assert.equal(r.expires_at_height, requestHeight + REQUEST_EXPIRY);
    const requestFee = await feeOf(c, request.txid as string);
    assert.equal(await held(c, requester), requesterBefore - sats(0.02) - requestFee);

    // ---- commits: two stakers compete ----
    const answer1 = Buffer.from('Paris.');
    const answer2 = Buffer.from('The capital of France is Paris.');
    await rpcError(b.call('submitopoiresponsecommit', id, sha256(answer1), staker1), -8, /token_count is required/);
    await rpcError(b.call('submitopoiresponsecommit', id, sha256(answer1), staker1, null, 101), -8, /token_count/);
    const commit1 = await b.call<Json>('submitopoiresponsecommit', id, sha256(answer1), staker1, null, 2);
    const commit2 = await a.call<Json>('submitopoiresponsecommit', id, sha256(answer2), staker2, null, 7);
    const commitHeight = await net.mine();
    const close = commitHeight + COMMIT_WINDOW - 1;
    assert.equal(commit1.commit_window_closes_at_height, close);
    r = await a.call<Json>('getopoirequest', id);
    assert.equal(r.response_commits, 2);
    assert.equal(r.commit_window_closes_at_height, close);
    assert.equal(r.reveal_deadline_height, close + REVEAL_WINDOW);
    await rpcError(b.call('submitopoiresponsecommit', id, sha256(answer1), staker1, null, 2), -26, /bad-opoi-commit-duplicate/);

    // A reveal inside the commit window is refused; so is one that does not match its commit.
    const reveal = (node: Daemon, addr: string, c: Json, answer: Buffer, tokens: number) =>
      node.call<Json>('submitopoiresponse', id, sha256(answer), addr, c.commitment, tokens, c.nonce_hex);
    await rpcError(reveal(b, staker1, commit1, answer1, 2), -26, /bad-opoi-reveal-early/);
    await rpcError(reveal(b, staker1, commit1, answer1, 3), -8, /does not match/);
    await net.mineTo(close);
    // A third staker that stakes now cannot commit after the window.
    const staker3 = await b.call<string>('getnewaddress');
    await a.call('sendtoaddress', staker3, 3);
    await net.mine();
    const c3 = await coinOf(b, staker3);
    await b.call('stakeopoi', staker3, c3.txid, c3.vout);
    await net.mine();
    await rpcError(b.call('submitopoiresponsecommit', id, sha256(answer1), staker3, null, 2), -26, /bad-opoi-commit-window/);

    // ---- reveals, then resolution ----
    const reveal1 = await reveal(b, staker1, commit1, answer1, 2);
    const reveal2 = await reveal(a, staker2, commit2, answer2, 7);
    await net.mine();
    await rpcError(a.call('claimopoipayout', id), -8, /still PENDING/);
    await net.mineTo(close + REVEAL_WINDOW);
    r = await a.call<Json>('getopoirequest', id);
    assert.equal(r.status, 'FULFILLED');
    assert.equal(r.response_reveals, 2);
    assert.ok(r.winner === staker1 || r.winner === staker2, `winner ${r.winner}`);
    const [winner, winnerNode, loser, winnerAnswer, tokens] =
      r.winner === staker1 ? [staker1, b, staker2, answer1, 2] : [staker2, a, staker1, answer2, 7];
    assert.equal(r.winner_token_count, tokens);
    assert.equal(r.payout_status, 'claimable');
    assert.equal((r.commits as Json[]).filter((c) => c.winner).length, 1);

    // ---- publish ----
    await rpcError(b.call('submitopoicontent', id, 'RESPONSE', Buffer.from('Lyon.').toString('hex')), -8, /matches no revealed response/);
    await rpcError(b.call('getopoicontent', id, 'RESPONSE'), -5);
    const published = await b.call<Json>('submitopoicontent', id, 'RESPONSE', winnerAnswer.toString('hex'));
    assert.equal(published.response_hash, sha256(winnerAnswer));
    const content = await b.call<Json>('getopoicontent', id, 'RESPONSE');
    assert.equal(Buffer.from(content.content_hex as string, 'hex').toString(), winnerAnswer.toString());
    assert.equal(content.final, true);

    // ---- payout: forged ones refused, the real one exactly once ----
    const escrowIn = [{ txid: request.txid, vout: 0 }];
    const forge = async (outputs: Json[]) => {
      const raw = await a.call<string>('createrawtransaction', escrowIn, outputs);
      return (await a.call<Json>('signrawtransactionwithwallet', raw)).hex as string;
    };
    const pay = coins(0.01 + tokens * 0.0001);
    const refund = coins(0.02 - pay);
    await rpcError(
      a.call('sendrawtransaction', await forge([{ [winner]: coins(pay + 0.0001) }, { [requester]: coins(refund - 0.0002) }])),
      -26,
      /bad-opoi-payout-outputs/,
    );
    await rpcError(
      a.call('sendrawtransaction', await forge([{ [loser]: pay }, { [requester]: coins(refund - 0.0001) }])),
      -26,
      /bad-opoi-payout-outputs/,
    );
    const winnerBefore = await held(winnerNode, winner);
    const claim = await a.call<Json>('claimopoipayout', id);
    assert.equal(claim.existing, false);
    assert.equal(claim.kind, 'winner');
    // Once the payout reached B's mempool (a peer would relay it), B's claim finds it instead of paying again.
    await net.relayMempools();
    assert.deepEqual(await b.call<Json>('claimopoipayout', id).then((c) => [c.txid, c.existing]), [claim.txid, true]);
    assert.equal((await a.call<Json>('getopoirequest', id)).payout_status, 'pending');
    const payoutHeight = await net.mine();
    r = await a.call<Json>('getopoirequest', id);
    assert.equal(r.payout_status, 'confirmed');
    assert.equal(r.payout_height, payoutHeight);
    assert.equal((await a.call<Json>('claimopoipayout', id)).txid, claim.txid);
    // Balances to the base unit: the winner got payment + tokens × fee, the requester the rest.
    assert.equal(await held(winnerNode, winner), winnerBefore + sats(pay));
    assert.equal(await held(c, requester), requesterBefore - sats(0.02) - requestFee + sats(refund));
    const loserNode = loser === staker1 ? b : a;
    const loserCommitFees =
      (await feeOf(loserNode, (loser === staker1 ? commit1 : commit2).txid as string)) +
      (await feeOf(loserNode, (loser === staker1 ? reveal1 : reveal2).txid as string));
    const loserStakeFee = await feeOf(loserNode, (loser === staker1 ? stake1 : stake2).txid as string);
    assert.equal(
      await held(loserNode, loser),
      sats((loser === staker1 ? 10 : 5) - MIN_STAKE) - loserStakeFee - loserCommitFees,
      'the loser is paid nothing (its collateral stays locked)',
    );

    // ---- expiry refund ----
    const lonely = randomUUID();
    const before = await held(c, requester);
    const req2 = await c.call<Json>('submitopoirequest', lonely, 'tiny', sha256('nobody answers'), 10, 0.005, requester);
    const lonelyHeight = await net.mine();
    await net.mineTo(lonelyHeight + REQUEST_EXPIRY);
    assert.equal((await a.call<Json>('getopoirequest', lonely)).status, 'EXPIRED');
    const refundClaim = await a.call<Json>('claimopoipayout', lonely);
    assert.equal(refundClaim.kind, 'refund');
    await net.mine();
    // The claim's fee came from A's coins; the requester lost only the request's fee.
    assert.equal(await held(c, requester), before - (await feeOf(c, req2.txid as string)));

    // ---- unstake: suspended stakes, cooldown, then the collateral is free ----
    const statsBefore = await a.call<Json>('getopoistats');
    assert.equal((statsBefore.requests as Json).fulfilled, 1);
    await b.call('unstakeopoi', staker1);
    const unstakeHeight = await net.mine();
    await rpcError(b.call('sendrawtransaction', collateralSpend), -26, /bad-opoi-collateral-locked/);
    await rpcError(b.call('releaseopoistake', staker1), -8, /the stake is UNSTAKING: .*cooldown ends at height/);
    await net.mineTo(unstakeHeight + 10 - 1);
    // Free now, but only to the staker, all of it: a spend paying less is refused; the release pays it back.
    await rpcError(b.call('sendrawtransaction', collateralSpend), -26, /bad-opoi-release-outputs/);
    const stakerBefore = await held(b, staker1);
    const freed = await a.call<Json>('releaseopoistake', staker1);
    assert.deepEqual([freed.amount, freed.existing], [MIN_STAKE, false]);
    await net.mine();
    await rpcError(b.call('getopoistake', staker1), -5, /no stake/);
    assert.equal(await held(b, staker1), stakerBefore + sats(MIN_STAKE), 'the whole collateral is back (the releasing node paid the fee)');
    // staker2 let its stake lapse past the renewal period: SUSPENDED, cannot commit.
    const renewBy = (await a.call<Json>('getopoistake', staker2)).renew_by_height as number;
    assert.equal(renewBy, stakeHeight + 100);
    await net.mineTo(renewBy);
    assert.equal((await a.call<Json>('getopoistake', staker2)).status, 'SUSPENDED');
    const late = randomUUID();
    await c.call('submitopoirequest', late, 'tiny', sha256('late'), 10, 0.005, requester);
    await net.mine();
    await rpcError(a.call('submitopoiresponsecommit', late, sha256('x'), staker2, null, 1), -8, /SUSPENDED/);
    await a.call('renewopoistake', staker2);
    await net.mine();
    assert.equal((await a.call<Json>('getopoistake', staker2)).status, 'ACTIVE');
    await net.mine();

    // ---- invalidateblock across every stage, and back ----
    const final = (await a.call<Json>('getopoistats')).state_digest;
    const tip = await a.call<number>('getblockcount');
    assert.equal(net.digests.get(tip), final);
    for (const h of [
      stakeHeight,
      requestHeight,
      commitHeight,
      close + 1,
      close + REVEAL_WINDOW,
      payoutHeight,
      lonelyHeight + REQUEST_EXPIRY,
      unstakeHeight,
    ]) {
      const hash = await a.call<string>('getblockhash', h);
      await a.call('invalidateblock', hash);
      assert.equal((await a.call<Json>('getopoistats')).state_digest, net.digests.get(h - 1), `state after invalidating height ${h}`);
      await a.call('reconsiderblock', hash);
      assert.equal((await a.call<Json>('getopoistats')).state_digest, final, `state after reconsidering height ${h}`);
    }

    // ---- restart, kill -9 and -reindex rebuild the same state ----
    await restartKillReindex(a, tip, async (when) => assert.equal((await a.call<Json>('getopoistats')).state_digest, final, when));
    assert.equal((await b.call<Json>('getopoistats')).state_digest, final, 'the other node holds the same state');
  } finally {
    await Promise.all([a, b, c].map((d) => d.kill().catch(() => undefined)));
  }
});

test('a COMMIT the chain passed by holds its coin until abandoned, and the error says which transaction holds it', async () => {
  const a = new Daemon({ args: ARGS });
  try {
    await a.start();
    const payTo = await a.call<string>('getnewaddress');
    await a.call('generatetoaddress', 110, payTo);
    const staker = await a.call<string>('getnewaddress');
    await a.call('sendtoaddress', staker, 5);
    await a.call('generatetoaddress', 1, payTo);
    const [coin] = await a.call<Json[]>('listunspent', 1, 9999999, [staker]);
    await a.call('stakeopoi', staker, coin.txid, coin.vout);
    await a.call('generatetoaddress', 1, payTo);
    const ask = async () => {
      const id = randomUUID();
      await a.call('submitopoirequest', id, 'tiny', sha256(id), 10, 0.005, payTo);
      await a.call('generatetoaddress', 1, payTo);
      return id;
    };

    // Blocks without the COMMIT until its request expires: the mempool drops it, the wallet keeps it.
    const first = await ask();
    const commit = await a.call<Json>('submitopoiresponsecommit', first, sha256('x'), staker, null, 1);
    for (let i = 0; i < REQUEST_EXPIRY; i++) await a.call('generateblock', payTo, []);
    assert.equal((await a.call<Json>('getopoirequest', first)).status, 'EXPIRED');
    assert.ok(!(await a.call<string[]>('getrawmempool')).includes(commit.txid as string));
    assert.equal((await a.call<Json>('gettransaction', commit.txid)).confirmations, 0);

    const second = await ask();
    const held = await rpcError(a.call('submitopoiresponsecommit', second, sha256('y'), staker, null, 1), -6);
    assert.match(held.message, new RegExp(`no longer in the mempool \\(${commit.txid}\\); abandontransaction`));
    const { hex } = await a.call<{ hex: string }>('gettransaction', commit.txid);
    await rpcError(a.call('sendrawtransaction', hex), -26, /bad-opoi-request-closed/);
    await a.call('abandontransaction', commit.txid);
    const again = await a.call<Json>('submitopoiresponsecommit', second, sha256('y'), staker, null, 1);
    await a.call('generatetoaddress', 1, payTo);
    const commits = (await a.call<Json>('getopoirequest', second)).commits as Json[];
    assert.deepEqual(
      commits.map((c) => c.commit_txid),
      [again.txid],
    );
  } finally {
    await a.cleanup();
  }
});

test('a request naming an executor shows it, takes no COMMIT from another staker, and keeps it across restart, kill -9 and -reindex', async () => {
  const a = new Daemon({ args: ARGS });
  try {
    await a.start();
    const payTo = await a.call<string>('getnewaddress');
    await a.call('generatetoaddress', 110, payTo);
    const [executor, other, idle] = [
      await a.call<string>('getnewaddress'),
      await a.call<string>('getnewaddress'),
      await a.call<string>('getnewaddress'),
    ];
    for (const staker of [executor, other]) await a.call('sendtoaddress', staker, 5);
    await a.call('generatetoaddress', 1, payTo);
    for (const staker of [executor, other]) {
      const [coin] = await a.call<Json[]>('listunspent', 1, 9999999, [staker]);
      await a.call('stakeopoi', staker, coin.txid, coin.vout);
    }
    await a.call('generatetoaddress', 1, payTo);

    const ask = (id: string, ...executorArg: string[]) =>
      a.call<Json>('submitopoirequest', id, 'tiny', sha256(id), 10, 0.005, payTo, 0, 'OPEN', 0, '', ...executorArg);
    await rpcError(ask(randomUUID(), 'nonsense'), -5, /Invalid cs address/);
    await rpcError(ask(randomUUID(), idle), -8, /executor_address has no ACTIVE stake \(not staked\)/);
    const bound = randomUUID();
    const free = randomUUID();
    await ask(bound, executor);
    await ask(free);
    await a.call('generatetoaddress', 1, payTo);
    assert.equal((await a.call<Json>('getopoirequest', bound)).executor, executor);
    assert.equal((await a.call<Json>('getopoirequest', free)).executor, null);
    const listed = await a.call<Json[]>('listopoirequests', 'PENDING');
    assert.deepEqual(Object.fromEntries(listed.map((r) => [r.request_id, r.executor])), { [bound]: executor, [free]: null });

    // The mempool refuses another staker's COMMIT to the bound request with the consensus reason;
    // the executor's goes in, and the unbound request takes both as before.
    await rpcError(a.call('submitopoiresponsecommit', bound, sha256('x'), other, null, 1), -26, /bad-opoi-not-executor/);
    await a.call('submitopoiresponsecommit', bound, sha256('y'), executor, null, 1);
    for (const staker of [executor, other]) await a.call('submitopoiresponsecommit', free, sha256(staker), staker, null, 1);
    await a.call('generatetoaddress', 1, payTo);
    const commitsOf = async (id: string) => ((await a.call<Json>('getopoirequest', id)).commits as Json[]).map((c) => c.miner).sort();
    assert.deepEqual(await commitsOf(bound), [executor]);
    assert.deepEqual(await commitsOf(free), [executor, other].sort());

    const digest = (await a.call<Json>('getopoistats')).state_digest;
    const tip = await a.call<number>('getblockcount');
    const check = async (when: string) => {
      assert.equal((await a.call<Json>('getopoistats')).state_digest, digest, when);
      assert.equal((await a.call<Json>('getopoirequest', bound)).executor, executor, when);
    };
    await restartKillReindex(a, tip, check);
  } finally {
    await a.cleanup();
  }
});

test('model manifests: registered once for a burned fee, read back, served by a stake, kept across restart, kill -9 and -reindex, undone by a reorg', async () => {
  const a = new Daemon({ args: ARGS });
  try {
    await a.start();
    const payTo = await a.call<string>('getnewaddress');
    await a.call('generatetoaddress', 110, payTo);
    const [registrant, staker] = [await a.call<string>('getnewaddress'), await a.call<string>('getnewaddress')];
    for (const to of [registrant, staker]) await a.call('sendtoaddress', to, 5);
    await a.call('generatetoaddress', 1, payTo);
    const file = sha256('the GGUF bytes');
    const template = sha256('{{ prompt }}');

    await rpcError(a.call('getmodelmanifest', 'qwen2.5-0.5b'), -5, /model manifest not found: 'qwen2.5-0.5b' is a plain model name/);
    assert.deepEqual(await a.call('listmodelmanifests'), []);
    const [coin] = await a.call<Json[]>('listunspent', 1, 9999999, [staker]);
    await rpcError(
      a.call('stakeopoi', staker, coin.txid, coin.vout, '', '', ['qwen2.5-0.5b']),
      -8,
      /serves\[0\] is not the model id of a confirmed manifest/,
    );
    await rpcError(a.call('registermodelmanifest', 'two words', file, 1000, 4096, registrant), -8, /model_id must be/);
    await rpcError(a.call('registermodelmanifest', 'qwen2.5-0.5b', file, 1000, 4096, registrant, 'sometimes'), -8, /bos must be one of/);

    const sent = await a.call<Json>('registermodelmanifest', 'qwen2.5-0.5b', file, 491_400_032, 4096, registrant, 'never', true, template);
    assert.equal(sent.fee, 0.1);
    // A second registration of the id while the first is unconfirmed is a mempool conflict.
    await rpcError(a.call('registermodelmanifest', 'qwen2.5-0.5b', sha256('other'), 7, 0, payTo), -26, /opoi-mempool-conflict/);
    const raw = await a.call<Json>('getrawtransaction', sent.txid, true);
    const burn = (raw.vout as Json[]).find((o) => ((o.scriptPubKey as Json).hex as string).startsWith('6a'))!;
    assert.equal(burn.value, 0.1, 'the payload output burns the manifest fee');
    await a.call('generatetoaddress', 1, payTo);
    const height = await a.call<number>('getblockcount');
    const expected = {
      model_id: 'qwen2.5-0.5b',
      registrant,
      gguf_sha256: file,
      gguf_size: 491_400_032,
      decoding: 'greedy',
      bos: 'never',
      parse_special: true,
      chat_template_sha256: template,
      tolerance: 4096,
      fee: 0.1,
      txid: sent.txid,
      height,
      confirmations: 1,
    };
    assert.deepEqual(await a.call('getmodelmanifest', 'qwen2.5-0.5b'), expected);
    assert.deepEqual(await a.call('listmodelmanifests'), [expected]);
    await rpcError(a.call('registermodelmanifest', 'qwen2.5-0.5b', file, 1000, 0, registrant), -8, /already has a manifest on-chain/);

    await a.call('stakeopoi', staker, coin.txid, coin.vout, 'qwen2.5-0.5b', '', ['qwen2.5-0.5b']);
    await a.call('generatetoaddress', 1, payTo);
    assert.deepEqual((await a.call<Json>('getopoistake', staker)).serves, ['qwen2.5-0.5b']);
    assert.deepEqual(
      (await a.call<Json[]>('listopoistakes')).map((s) => s.serves),
      [['qwen2.5-0.5b']],
    );

    const digest = (await a.call<Json>('getopoistats')).state_digest;
    const tip = await a.call<number>('getblockcount');
    const check = async (when: string) => {
      assert.equal((await a.call<Json>('getopoistats')).state_digest, digest, when);
      assert.deepEqual(await a.call('getmodelmanifest', 'qwen2.5-0.5b'), { ...expected, confirmations: tip - height + 1 }, when);
      assert.deepEqual((await a.call<Json>('getopoistake', staker)).serves, ['qwen2.5-0.5b'], when);
    };
    await restartKillReindex(a, tip, check);

    // A reorg that takes the registration's block away takes the manifest with it, and back.
    const second = await a.call<Json>('registermodelmanifest', 'phi-3-mini', sha256('phi'), 2_000_000, 0, registrant);
    await a.call('generatetoaddress', 1, payTo);
    assert.equal((await a.call<Json>('getmodelmanifest', 'phi-3-mini')).txid, second.txid);
    const block = await a.call<string>('getbestblockhash');
    await a.call('invalidateblock', block);
    await rpcError(a.call('getmodelmanifest', 'phi-3-mini'), -5, /not found/);
    assert.deepEqual(
      (await a.call<Json[]>('listmodelmanifests')).map((m) => m.model_id),
      ['qwen2.5-0.5b'],
    );
    assert.equal((await a.call<Json>('getopoistats')).state_digest, digest, 'the state is back to before the registration');
    await a.call('reconsiderblock', block);
    assert.equal((await a.call<Json>('getmodelmanifest', 'phi-3-mini')).txid, second.txid);
  } finally {
    await a.cleanup();
  }
});
