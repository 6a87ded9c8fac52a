// VERIFIABLE questions on `npm run network` as a user runs it: real csd nodes, cs-pool, two
// cs-bridges each staked serving the generated tiny model's manifest, one cs-miner with the
// embedded engine behind each, the blocks found by those miners. A question bound to bridge 1 is
// answered by its miner, published, audited by bridge 2 (the only other server of the manifest,
// so the one auditor drawn) through its miner's replay, and paid; a kill -9 of bridge 2 between
// its verdict commit and its reveal still ends with the verdict revealed and one payout; with
// miner 1 corrupting its answers (-corruptanswers) bridge 2 finds the answer invalid, the
// requester is refunded and bridge 1's collateral forfeited. Amounts are checked to the base unit
// against docs/protocol.md 11.6 ("Payout"), computed here on their own.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { eventually } from '../packages/cs-pool/test/pool-harness.ts';
import { type NetworkRun, alive, networkTests } from './network-harness.ts';
import { ESCROW, PRICE, askVerifiable, bridgeEnv, leading, node, paidOutputs, sats, untilRequest } from './verifiable-harness.ts';

/** Commit, reveal, publish, audit commit and reveal windows: about twenty blocks found by CPU miners, and the bridges' steps. */
const SETTLED_MS = 900_000;
const SETTLED = ['FULFILLED', 'REJECTED', 'EXPIRED'];

const { datadir, start } = networkTests('cs-verifiable-network-');

/** Every program's pid, read while the pid file exists (a stopped network removes it). */
const programsOf = (run: NetworkRun) => run.programPids();

async function allExited(pids: readonly number[]): Promise<void> {
  await eventually(async () => (pids.some(alive) ? undefined : true), 'every program to exit', 120_000);
}

async function stop(run: NetworkRun): Promise<void> {
  const pids = programsOf(run);
  run.interrupt();
  await run.exited();
  await allExited(pids);
}

/** What the winner is owed for `tokens` answer tokens: payment + tokens × fee_per_token. */
const winnerPay = (tokens: number) => sats(PRICE.payment) + tokens * sats(PRICE.feePerToken);

test('an honest VERIFIABLE answer is audited by the other bridge and paid: the winner its pay, the auditor its fee, the requester the rest', async () => {
  const run = await start();
  const [b1, b2] = [bridgeEnv(run, 1).OPOI_ADDRESSES, bridgeEnv(run, 2).OPOI_ADDRESSES];
  const { id, requester } = await askVerifiable(run, 'Once upon a time');
  const settled = await untilRequest(run, id, (r) => SETTLED.includes(r.status), 'settled', SETTLED_MS);
  assert.equal(settled.status, 'FULFILLED', JSON.stringify(settled.audit));
  assert.equal(settled.winner, b1, "bridge 1 answered: it is the request's executor");
  assert.notEqual(settled.publish, null, 'the answer was published on chain');
  const audit = settled.audit!;
  assert.equal(audit.outcome, 'valid');
  assert.deepEqual(
    audit.auditors.map((x) => [x.address, x.round, x.verdict]),
    [[b2, 0, 'valid']],
    'bridge 2, the only other server of the manifest, was drawn and replayed it as valid',
  );

  const tokens = settled.winner_token_count!;
  assert.ok(tokens >= 1 && tokens <= PRICE.maxTokens, `token count ${tokens}`);
  const { outputs } = await paidOutputs(run, id, SETTLED_MS);
  // A full answer (tokens = max_tokens) leaves the requester nothing: that output is left out.
  const expected = leading([
    [b1, winnerPay(tokens)],
    [b2, sats(PRICE.auditFee)],
    [requester, ESCROW - winnerPay(tokens) - sats(PRICE.auditFee)],
  ]);
  assert.deepEqual(outputs.slice(0, expected.length), expected);
  await stop(run);
});

test('a kill -9 of the auditing bridge between its verdict commit and its reveal: the verdict is still revealed and everyone paid exactly once', async () => {
  let run = await start();
  const [b1, b2] = [bridgeEnv(run, 1).OPOI_ADDRESSES, bridgeEnv(run, 2).OPOI_ADDRESSES];
  const { id, requester } = await askVerifiable(run, 'The capital of France is');
  const committed = await untilRequest(run, id, (r) => r.audit?.auditors[0]?.committed === true, "bridge 2's verdict commit mined", SETTLED_MS);
  const bridge2 = (JSON.parse(readFileSync(join(datadir, 'run/pids.json'), 'utf8')) as { programs: { name: string; pid: number }[] }).programs.find(
    (p) => p.name === 'bridge2',
  )!;
  const pids = programsOf(run);
  process.kill(bridge2.pid, 'SIGKILL');
  assert.equal(await run.exited(), 1, 'the network stops when a program dies');
  assert.match(run.output, /cs-bridge 2 exited unexpectedly \(signal SIGKILL\)/);
  // Reveals wait for the block after commit_close, and the miners stop with the network: the reveal window is still ahead.
  assert.equal(committed.audit!.auditors[0].verdict, null, 'killed before its reveal');
  await allExited(pids);

  run = await start();
  const settled = await untilRequest(run, id, (r) => SETTLED.includes(r.status), 'settled after the restart', SETTLED_MS);
  assert.equal(settled.status, 'FULFILLED');
  assert.deepEqual(
    settled.audit!.auditors.map((x) => [x.address, x.verdict]),
    [[b2, 'valid']],
    'the restarted bridge revealed the verdict it had committed',
  );
  const tokens = settled.winner_token_count!;
  const { txid, outputs } = await paidOutputs(run, id, SETTLED_MS);
  const expected = leading([
    [b1, winnerPay(tokens)],
    [b2, sats(PRICE.auditFee)],
    [requester, ESCROW - winnerPay(tokens) - sats(PRICE.auditFee)],
  ]);
  assert.deepEqual(outputs.slice(0, expected.length), expected);
  const again = node(run, 1);
  try {
    const claim = await again.call('claimopoipayout', [id]);
    assert.deepEqual([claim.txid, claim.existing], [txid, true], 'one payout: a second claim finds it');
  } finally {
    again.close();
  }
  await stop(run);
});

test('a corrupted answer is caught by the drawn auditor: REJECTED, the requester refunded with a quarter of the collateral, bridge 1 forfeits it', async () => {
  const run = await start(['-corruptanswers=token']);
  const [b1, b2] = [bridgeEnv(run, 1).OPOI_ADDRESSES, bridgeEnv(run, 2).OPOI_ADDRESSES];
  const rpc = node(run, 1);
  const collateral = sats((await rpc.call('getopoistake', [b1])).amount);
  const { id, requester } = await askVerifiable(run, 'Two plus two is');
  const settled = await untilRequest(run, id, (r) => SETTLED.includes(r.status), 'settled', SETTLED_MS);
  assert.equal(settled.status, 'REJECTED', JSON.stringify(settled.audit));
  const audit = settled.audit!;
  assert.deepEqual(
    audit.auditors.map((x) => [x.address, x.verdict]),
    [[b2, 'invalid']],
  );
  assert.equal(audit.outcome, 'invalid');
  try {
    // Bridge 2 claims the payout as soon as the outcome is in: the stake may already be gone, its collateral spent.
    const forfeited = sats(audit.forfeited);
    assert.equal(forfeited, collateral, "the forfeit is bridge 1's whole collateral");
    const { outputs } = await paidOutputs(run, id, SETTLED_MS);
    // n = 1 auditor said invalid: a = ⌊⌊F/2⌋/1⌋; the requester Q + ⌊F/4⌋; the rest burned.
    const toAuditor = Math.floor(Math.floor(forfeited / 2) / 1);
    const toRequester = Math.floor(forfeited / 4);
    const expected = leading([
      [requester, ESCROW + toRequester],
      [b2, toAuditor],
      ['burn', forfeited - toAuditor - toRequester],
    ]);
    assert.deepEqual(outputs.slice(0, expected.length), expected);
    await assert.rejects(rpc.call('getopoistake', [b1]), /no stake/, 'the payout spent the collateral: the stake is gone');
  } finally {
    rpc.close();
  }
  await stop(run);
});
