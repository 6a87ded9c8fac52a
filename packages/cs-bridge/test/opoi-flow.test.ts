// The whole OPoI flow through a real cs-bridge process on real csd and cs-pool: the stake made
// from the configured coin, mining relayed to the pool and credited to the miner's wallet, the
// prompt's 404 before the REQUEST confirms and 200 after, the assignment, COMMIT, REVEAL, publish,
// payout and the miner paid its share minus POOL_FEE_PERCENT, once; a stock miner sees no opoi.*;
// silent miners time out and the request goes to another; the HTTP API's statuses.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import { amountFromValue } from '@cs/runtime/amount';
import { externalAddress, receivedTotal } from '../../cs-pool/test/pool-harness.ts';
import {
  API_KEY,
  BRIDGE_BIN,
  BridgeProcess,
  type Chain,
  type ChainRequest,
  OpoiMiner,
  driveToPaid as drive,
  mineUntil as mineUntilChain,
  eventually,
  fundedAddress,
  reachStage,
  startChain,
  submitRequest,
} from './bridge-harness.ts';
import type { Stage } from '../src/store/store.ts';

let chain: Chain;
let bridge: BridgeProcess;
let opoiAddress: string;
const miners: OpoiMiner[] = [];

const waitStage = (id: string, stage: Stage) => reachStage(bridge, id, stage);
const request = (prompt: string) => submitRequest(chain, prompt);
const driveToPaid = (id: string) => drive(chain, bridge, id);

/** Closes the miners of earlier tests and waits until the bridge no longer counts them. */
async function closeMiners(): Promise<void> {
  for (const m of miners.splice(0)) m.close();
  await eventually(
    async () => ((await bridge.api<{ opoi_miners: number }>('/healthz')).body.opoi_miners === 0 ? true : undefined),
    'no OPoI miner left',
  );
}

before(async () => {
  chain = await startChain();
  const opoi = await fundedAddress(chain, 5);
  opoiAddress = opoi.address;
  bridge = await BridgeProcess.create(chain, {
    OPOI_ADDRESSES: opoiAddress,
    OPOI_STAKE_UTXO: opoi.utxo,
    POOL_FEE_PERCENT: '10',
    MIN_PAYOUT: '0.001',
    ASSIGN_TIMEOUT_SECS: '3',
    PROMPT_RATE_LIMIT: '15',
  });
  await bridge.start();
});

after(async () => {
  for (const m of miners) m.close();
  await bridge?.cleanup();
  await chain?.pool.cleanup();
  await chain?.node.cleanup();
});

test('the bridge stakes the configured coin; /healthz is 503 until the stake is ACTIVE, then 200', async () => {
  const before = await bridge.api<{ stake: string }>('/healthz');
  assert.equal(before.status, 503, 'degraded without an active stake');
  await eventually(async () => (bridge.output.includes('stake sent') ? true : undefined), 'the STAKE to be sent');
  await chain.mine(1);
  const stake = await chain.node.call<{ status: string; collateral_txid: string }>('getopoistake', opoiAddress);
  assert.equal(stake.status, 'ACTIVE');
  await eventually(async () => ((await bridge.api('/healthz')).status === 200 ? true : undefined), '/healthz 200');
  const h = await bridge.api<{ stake: string; node_height: number; opoi_address: string }>('/healthz');
  assert.equal(h.body.stake, 'active');
  assert.equal(h.body.opoi_address, opoiAddress, 'the address requesters name as executor');
});

/** A request answered by a fresh miner (worker `worker`) whose COMMIT the bridge has sent: its id. */
async function committedRequest(worker: string, prompt: string, answer: string): Promise<string> {
  await closeMiners();
  const miner = await OpoiMiner.connect(bridge.stratumPort, `${externalAddress()}.${worker}`);
  miners.push(miner);
  const id = await request(prompt);
  await chain.mine(1);
  assert.equal((await bridge.postPrompt(id, prompt)).status, 200);
  assert.equal((await miner.nextAssignment()).requestId, id);
  assert.equal((await miner.answer(id, answer, 1)).error, null);
  await waitStage(id, 'committed');
  return id;
}

test('a full request: 404 then 200, assignment, COMMIT, REVEAL, publish, payout, miner paid its share once; mining relayed', async () => {
  const wallet = externalAddress();
  const miner = await OpoiMiner.connect(bridge.stratumPort, `${wallet}.rig1`);
  const stock = await OpoiMiner.connect(bridge.stratumPort, `${wallet}.stock`, [], false);
  miners.push(miner, stock);

  // Mining through the bridge is credited to the miner's wallet at the pool.
  const share = miner.client.solve(REGTEST.equihash, false, `${wallet}.rig1`);
  assert.deepEqual(await miner.client.submit(share.params), { result: true, error: null });
  const workers = await chain.pool.api<{ worker: string; valid: number }[]>(`/api/user/${wallet}/workers`);
  assert.equal(workers.find((w) => w.worker === 'rig1')?.valid, 1, 'the share is credited to wallet.rig1');

  const prompt = 'What is two plus two?';
  const id = await request(prompt);
  const early = await bridge.postPrompt(id, prompt);
  assert.deepEqual([early.status, early.body.error], [404, 'request_id not found on-chain']);
  await chain.mine(1);
  const wrong = await bridge.postPrompt(id, 'another prompt');
  assert.equal(wrong.status, 400, 'a prompt whose hash is not the on-chain one is refused');
  const ok = await bridge.postPrompt(id, prompt);
  assert.equal(ok.status, 200);

  const a = await miner.nextAssignment();
  assert.equal(a.requestId, id);
  assert.equal(Buffer.from(a.prompt).toString(), prompt);
  assert.deepEqual([a.model, a.maxTokens, a.taskType], ['tiny', 100, 'OPEN']);
  const pending = await bridge.api<{ request_id: string; has_prompt: boolean; assigned_to: string | null; stage: string }[]>('/svc/opoi/pending');
  assert.deepEqual(
    pending.body.find((p) => p.request_id === id),
    {
      kind: 'request',
      request_id: id,
      task_type: 'OPEN',
      model: 'tiny',
      max_tokens: 100,
      payment: 0.05,
      has_prompt: true,
      assigned_to: `${wallet}.rig1`,
      stage: 'assigned',
      check: null,
    },
  );

  const answer = 'Four.';
  const accepted = await miner.answer(id, answer, 2);
  assert.equal(accepted.error, null);
  assert.equal((accepted.result as { accepted: boolean }).accepted, true);
  const again = await miner.answer(id, answer, 2);
  assert.equal(again.error?.[0], 20, 'a second result for the request is refused');

  const resolved = await driveToPaid(id);
  assert.deepEqual([resolved.status, resolved.winner], ['FULFILLED', opoiAddress]);
  const content = await chain.node.call<{ content_hex: string }>('getopoicontent', id, 'RESPONSE');
  assert.equal(Buffer.from(content.content_hex, 'hex').toString(), answer);
  await eventually(async () => (bridge.output.includes('miner payment broadcast') ? true : undefined), 'the miner payment');
  await chain.mine(1);

  const won = amountFromValue((await chain.node.call<ChainRequest>('getopoirequest', id)).winner_amount!);
  const expected = (won * 9000n) / 10000n;
  assert.equal(BigInt(await receivedTotal(chain.node, wallet)), expected, 'the miner got the winner amount minus 10%');
  const sub = await bridge.api<{ payout_txid: string; miner_share: number }>(`/svc/opoi/submissions/${id}`);
  assert.equal(sub.body.miner_share, Number(expected) / 1e8);

  // More blocks, more ticks: nothing is paid a second time.
  await chain.mine(3);
  const height = await chain.node.call<number>('getblockcount');
  await eventually(
    async () => ((await bridge.api<string>('/metrics')).body.includes(`cs_bridge_node_height ${height}`) ? true : undefined),
    'a tick at the tip',
  );
  // A second payment would have been broadcast by that tick: a block confirms it, if there is one.
  await chain.mine(1);
  assert.equal(BigInt(await receivedTotal(chain.node, wallet)), expected, 'paid exactly once');
  assert.equal(stock.opoiLines(), 0, 'the miner that never announced OPoI received no opoi.*');
});

test('a silent miner times out and the request goes to another; submit_error hands it on at once', async () => {
  await closeMiners();
  const wallet = externalAddress();
  const a = await OpoiMiner.connect(bridge.stratumPort, `${wallet}.a`);
  const b = await OpoiMiner.connect(bridge.stratumPort, `${wallet}.b`);
  miners.push(a, b);
  const prompt = 'Silence?';
  const id = await request(prompt);
  await chain.mine(1);
  assert.equal((await bridge.postPrompt(id, prompt)).status, 200);
  // Whoever gets it first stays silent; after ASSIGN_TIMEOUT_SECS the other one gets it.
  await eventually(async () => (a.assignments().length + b.assignments().length > 0 ? true : undefined), 'the first assignment');
  const first = a.assignments().length > 0 ? a : b;
  const other = first === a ? b : a;
  assert.equal((await first.nextAssignment()).requestId, id);
  const second = await other.nextAssignment();
  assert.equal(second.requestId, id);
  const late = await first.answer(id, 'late', 1);
  assert.equal(late.error?.[0], 25, 'the timed-out miner may no longer answer: not assigned to this connection');
  // The second gives up with submit_error: the request goes back to the first at once.
  const gaveUp = await other.client.request('opoi.submit_error', [{ request_id: id, error: 'backend_error', message: 'down' }]);
  assert.deepEqual(gaveUp, { result: { accepted: true }, error: null });
  const third = await first.nextAssignment();
  assert.equal(third.requestId, id);
  assert.equal((await first.answer(id, 'answered', 1)).error, null);
  await waitStage(id, 'committed');
});

test('a bridge down through the reveal window marks the request expired on restart instead of retrying forever', async () => {
  const id = await committedRequest('down', 'Down?', 'late');
  assert.equal(await bridge.stop('SIGTERM'), 0);
  const resolved = await mineUntilChain(chain, id, (r) => r.status !== 'PENDING', 'the end of the request');
  await bridge.start();
  await eventually(async () => {
    const r = await bridge.api<{ stage: string; note: string }>(`/svc/opoi/submissions/${id}`);
    return r.body.stage === 'expired' || r.body.stage === 'lost' ? r.body : undefined;
  }, 'the request closed in the bridge');
  const sub = await bridge.api<{ stage: string; note: string }>(`/svc/opoi/submissions/${id}`);
  assert.equal(sub.body.note, `not revealed before the request was ${resolved.status}`);
});

test('a COMMIT the chain passed by before a block took it is abandoned, and the coin it spent is spendable again', async () => {
  const id = await committedRequest('stranded', 'Stranded?', 'never mined');
  const commitTxid = (await bridge.api<{ commit_txid: string }>(`/svc/opoi/submissions/${id}`)).body.commit_txid;
  const commit = await chain.node.call<{ vin: { txid: string; vout: number }[] }>('getrawtransaction', commitTxid, true);
  const coins = commit.vin.map((i) => `${i.txid}:${i.vout}`);
  const unspent = async () =>
    (await chain.node.call<{ txid: string; vout: number }[]>('listunspent', 0, 9_999_999, [opoiAddress])).map((c) => `${c.txid}:${c.vout}`);
  const before = await unspent();
  assert.ok(!coins.some((c) => before.includes(c)), 'the COMMIT in the mempool spends its coins');
  // Blocks without the COMMIT until the request expires: the node drops the COMMIT from its
  // mempool ('opoi'), and the wallet would count the coin spent by it for ever.
  const payTo = externalAddress();
  for (let i = 0; i < REGTEST.opoi.requestExpiry; i++) await chain.node.call('generateblock', payTo, []);
  assert.equal((await chain.node.call<ChainRequest>('getopoirequest', id)).status, 'EXPIRED');
  assert.ok(!(await chain.node.call<string[]>('getrawmempool')).includes(commitTxid), 'the COMMIT left the mempool');
  await eventually(async () => {
    const u = await unspent();
    return coins.every((c) => u.includes(c)) ? true : undefined;
  }, 'the COMMIT abandoned and its coins spendable again');
  // The log line may reach this process a moment after the wallet answered.
  await eventually(async () => (/transaction can no longer confirm/.test(bridge.output) ? true : undefined), "the bridge's log of it");
  await waitStage(id, 'expired');
});

test('a REVEAL a reorg made invalid is abandoned, and sent again once the COMMIT is back on the chain', async () => {
  const id = await committedRequest('reorged', 'Reorged?', 'again');
  await chain.mine(1);
  const commitBlock = await chain.node.call<string>('getbestblockhash');
  await mineUntilChain(chain, id, (r) => r.commit_window_closed, 'the end of the commit window');
  await waitStage(id, 'revealed');
  const submission = async () => (await bridge.api<{ stage: Stage; reveal_txid: string | null }>(`/svc/opoi/submissions/${id}`)).body;
  const reveal = (await submission()).reveal_txid!;
  // Without the COMMIT's block the REVEAL is invalid and leaves the mempool: the bridge abandons
  // it and goes back to 'committed' (the COMMIT waits in the mempool again).
  await chain.node.call('invalidateblock', commitBlock);
  await eventually(async () => ((await submission()).stage === 'committed' ? true : undefined), "the bridge's record back at 'committed'");
  assert.ok(bridge.output.includes(reveal), 'the abandoned REVEAL is logged');
  await chain.node.call('reconsiderblock', commitBlock);
  await waitStage(id, 'revealed');
  await chain.mine(1);
  await waitStage(id, 'published');
  const resolved = await mineUntilChain(chain, id, (r) => r.status !== 'PENDING', 'FULFILLED');
  assert.deepEqual([resolved.status, resolved.winner], ['FULFILLED', opoiAddress]);
  await waitStage(id, 'claimed');
  await chain.mine(1);
  await waitStage(id, 'paid');
});

test('HTTP API statuses: 401, 400, 413, 404, and /openapi.json, /metrics', async () => {
  const id = randomUUID();
  assert.equal((await bridge.postPrompt(id, 'x', 'wrong-key-wrong-key')).status, 401);
  assert.equal((await bridge.postPrompt(id, 'x', '')).status, 401);
  const bad = await bridge.api('/svc/opoi/prompt', { method: 'POST', headers: { 'x-opoi-api-key': API_KEY }, body: '{not json' });
  assert.equal(bad.status, 400);
  assert.equal((await bridge.postPrompt('not-a-uuid', 'x')).status, 400);
  assert.equal((await bridge.postPrompt(id, 'x'.repeat(70_000))).status, 413);
  assert.equal((await bridge.api(`/svc/opoi/submissions/${id}`)).status, 404);
  assert.equal((await bridge.api('/nowhere')).status, 404);
  const openapi = await bridge.api<{ openapi: string; paths: Record<string, unknown> }>('/openapi.json');
  assert.equal(openapi.status, 200);
  for (const path of ['/svc/opoi/prompt', '/svc/opoi/pending', '/svc/opoi/submissions/{request_id}', '/healthz', '/metrics']) {
    assert.ok(path in openapi.body.paths, `openapi.json describes ${path}`);
  }
  const metrics = await bridge.api<string>('/metrics');
  assert.match(metrics.body, /cs_bridge_http_responses_total\{status="401"\} 2/);
});

test('a second bridge on the same env file or data directory is refused and the first keeps running', async () => {
  const second = new BridgeProcess(bridge.envFile, bridge.dataDir);
  second.launch();
  assert.equal(await second.exited(), 1);
  assert.match(second.output, /another cs-bridge is already running with the environment file/);
  const sameData = await BridgeProcess.create(chain, { OPOI_ADDRESSES: opoiAddress, DATA_DIR: bridge.dataDir });
  sameData.launch();
  assert.equal(await sameData.exited(), 1);
  assert.match(sameData.output, /another cs-bridge is already running with the data directory/);
  await sameData.cleanup();
  assert.equal((await bridge.api('/healthz')).status, 200, 'the first bridge still answers');
});

test('start-up checks say what is wrong with the node: unreachable, credentials refused, key not in the wallet', async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ CSD_RPC_URL: 'http://127.0.0.1:1' }, /cannot reach the node at http:\/\/127\.0\.0\.1:1/],
    [{ CSD_RPC_PASS: 'wrong-password' }, /refused CSD_RPC_USER\/CSD_RPC_PASS \(HTTP 401\)/],
    [{ OPOI_ADDRESSES: externalAddress() }, /the node wallet does not hold the key of csrt1/],
  ];
  for (const [values, message] of cases) {
    const b = await BridgeProcess.create(chain, { OPOI_ADDRESSES: opoiAddress, OPOI_STAKE_UTXO: `${'ab'.repeat(32)}:0`, ...values });
    b.launch();
    assert.equal(await b.exited(), 1, `exit 1 for ${JSON.stringify(values)}`);
    assert.match(b.output, message);
    await b.cleanup();
  }
});

test('the stake is renewed before renew_by_height', async () => {
  const stake = await chain.node.call<{ renewed_height: number; renew_by_height: number }>('getopoistake', opoiAddress);
  // Mine to a few blocks short of the deadline, one block at a time so that the bridge sees each.
  for (let h = await chain.node.call<number>('getblockcount'); h < stake.renew_by_height - 5; h++) {
    await chain.mine(1);
    if (bridge.output.includes('stake renewal sent')) break;
  }
  await eventually(async () => (bridge.output.includes('stake renewal sent') ? true : undefined), 'the renewal');
  await chain.mine(1);
  const renewed = await chain.node.call<{ status: string; renewed_height: number }>('getopoistake', opoiAddress);
  assert.equal(renewed.status, 'ACTIVE');
  assert.ok(renewed.renewed_height > stake.renewed_height, `renewed at ${renewed.renewed_height}, after ${stake.renewed_height}`);
});

/** Runs `cs-bridge ask` with the bridge's env file; its output so far, and its exit. */
function ask(args: string[]) {
  const proc = spawn(process.execPath, [BRIDGE_BIN, 'ask', `-env=${bridge.envFile}`, '-pollms=200', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const run = { output: '', exit: new Promise<number | string>((r) => proc.once('exit', (code, signal) => r(code ?? signal ?? 0))), proc };
  proc.stdout.on('data', (d: Buffer) => (run.output += d.toString()));
  proc.stderr.on('data', (d: Buffer) => (run.output += d.toString()));
  return run;
}

async function askedId(run: ReturnType<typeof ask>): Promise<string> {
  return eventually(async () => /REQUEST ([0-9a-f-]{36}) broadcast/.exec(run.output)?.[1], `the REQUEST line of ask (${run.output})`);
}

test('cs-bridge ask: the whole flow in one command, the answer printed with the txids', async () => {
  await closeMiners();
  const miner = await OpoiMiner.connect(bridge.stratumPort, `${externalAddress()}.asked`);
  miners.push(miner);
  const run = ask(['-model=tiny', '-maxtokens=20', '-payment=0.02', 'Say', 'hello']);
  const id = await askedId(run);
  // ask retries the prompt's 404 until the REQUEST confirms.
  await eventually(async () => (run.output.includes('Waiting for the REQUEST') ? true : undefined), 'ask to wait');
  await chain.mine(1);
  assert.equal((await chain.node.call<ChainRequest>('getopoirequest', id)).executor, opoiAddress, 'ask names the bridge as executor');
  const a = await miner.nextAssignment();
  assert.deepEqual([a.requestId, Buffer.from(a.prompt).toString()], [id, 'Say hello']);
  assert.equal((await miner.answer(id, 'hello', 1)).error, null);
  const resolved = await driveToPaid(id);
  assert.equal(await run.exit, 0, run.output);
  const payout = await chain.node.call<ChainRequest>('getopoirequest', id);
  assert.equal(resolved.status, 'FULFILLED');
  assert.match(run.output, /Answer:\nhello\n/);
  assert.match(run.output, new RegExp(`payout txid ${payout.payout_txid}`));
  assert.match(run.output, /request txid [0-9a-f]{64}/);
});

test('Ctrl-C in cs-bridge ask leaves the request on chain and prints how to resume', async () => {
  const run = ask(['-model=tiny', '-maxtokens=20', '-payment=0.02', 'Later']);
  const id = await askedId(run);
  run.proc.kill('SIGINT');
  assert.equal(await run.exit, 130);
  assert.match(run.output, new RegExp(`Resume with: cs-bridge ask -requestid=${id}`));
  await chain.mine(1);
  assert.equal((await chain.node.call<ChainRequest>('getopoirequest', id)).status, 'PENDING');
});

test('429 once a client is over PROMPT_RATE_LIMIT prompt calls in a minute', async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 20 && !statuses.includes(429); i++) statuses.push((await bridge.postPrompt(randomUUID(), 'x')).status);
  assert.equal(statuses.at(-1), 429, `statuses seen: ${statuses.join(',')}`);
  const r = await bridge.postPrompt(randomUUID(), 'x');
  assert.deepEqual([r.status, r.body.error], [429, 'Rate limit exceeded']);
});

test('the node going away is a node error, not "no stake": the bridge stays up and recovers', async () => {
  const mark = bridge.output.length;
  await chain.node.stop();
  await eventually(async () => {
    const h = await bridge.api<{ stake: string }>('/healthz');
    return h.status === 503 && h.body.stake === 'node-error' ? true : undefined;
  }, '/healthz to report the node error');
  await chain.node.start();
  await eventually(async () => ((await bridge.api('/healthz')).status === 200 ? true : undefined), 'the bridge to recover');
  assert.ok(!bridge.output.slice(mark).includes('"msg":"stake sent"'), 'no new STAKE: the node error was not read as "no stake"');
});
