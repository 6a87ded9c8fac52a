// miningcore's API on a real cs-pool over real csd, read over HTTP as pool front-ends and rig
// monitors read it: every route answers with the documented schema (docs/api/pool.openapi.json,
// whose miningcore objects allow no other field), and the figures are the pool's own: a block's
// effort is its round's shares over the network difficulty, its reward and the payment in coins,
// pendingShares the shares of the open round, paging with page and pageSize.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { REGTEST, compactToTarget } from '@cs/consensus';
import { checkDocumented, type OpenApiDoc } from '../../../test/openapi-check.ts';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, blockWith, eventually, externalAddress, findBlock, startNode } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

const doc = JSON.parse(readFileSync(new URL('../../../docs/api/pool.openapi.json', import.meta.url), 'utf8')) as OpenApiDoc;
const ID = 'cs-regtest';

let node: Daemon;
let pool: PoolProcess;
let c: StratumClient;
const miner = externalAddress();
const login = `${miner}.rig1`;
const other = externalAddress();

before(async () => {
  const started = await startNode();
  node = started.node;
  pool = new PoolProcess(node, started.zmq, ['-scheme=pplns', '-fee=1', '-minpayout=0.1', '-statsinterval=0.2']);
  await pool.start();
  c = await StratumClient.connect(pool.ports!.plain);
  await c.subscribe();
  assert.equal((await c.authorize(login, 'd=0.25')).result, true);
});

after(async () => {
  c?.close();
  await pool?.cleanup();
  await node?.cleanup();
});

const mc = <T>(path: string) => pool.api<T>(`/api/pools${path}`);

async function shares(n: number): Promise<void> {
  for (let i = 0; i < n; i++) assert.deepEqual(await c.submit(c.solve(REGTEST.equihash, false, login).params), { result: true, error: null });
}

interface PoolInfo {
  id: string;
  paymentProcessing: unknown;
  poolFeePercent: number;
  ports: Record<string, { name: string; varDiff?: Record<string, number> }>;
  poolStats: { connectedMiners: number; poolHashrate: number };
  networkStats: {
    networkType: string;
    rewardType: string;
    blockHeight: number;
    networkDifficulty: number;
    connectedPeers: number;
    lastNetworkBlockTime: string;
  };
  topMiners: { miner: string }[];
  totalBlocks: number;
}

interface MinerStats {
  pendingShares: number;
  pendingBalance: number;
  totalPaid: number;
  todayPaid: number;
  lastPayment?: string;
  performance?: { workers: Record<string, { hashrate: number }> };
  performanceSamples: unknown[];
}

interface Block {
  blockHeight: number;
  status: string;
  effort: number;
  confirmationProgress: number;
  reward: number;
  hash: string;
  miner: string;
  source: string;
  created: string;
  networkDifficulty: number;
  transactionConfirmationData: string;
}

test('pools and pool: the configuration, poolStats and networkStats in miningcore names and units', async () => {
  await shares(3);
  const { pools } = await mc<{ pools: PoolInfo[] }>('');
  assert.equal(pools.length, 1);
  const { pool: info } = await mc<{ pool: PoolInfo }>(`/${ID}`);
  assert.equal(info.id, ID);
  assert.equal(pools[0].id, ID);
  assert.deepEqual(info.paymentProcessing, { enabled: true, minimumPayment: 0.1, payoutScheme: 'PPLNS', payoutSchemeConfig: { factor: 2 } });
  assert.equal(info.poolFeePercent, 1);
  assert.equal(info.ports[String(pool.ports!.plain)].name, 'plain');
  assert.deepEqual(Object.keys(info.ports[String(pool.ports!.vardiff)].varDiff!).sort(), [
    'maxDiff',
    'minDiff',
    'retargetTime',
    'targetTime',
    'variancePercent',
  ]);
  assert.equal(info.poolStats.connectedMiners, 1, 'one address connected');
  assert.ok(Number.isInteger(info.poolStats.poolHashrate) && info.poolStats.poolHashrate > 0, `${info.poolStats.poolHashrate} Sol/s`);
  const mining = await node.call<{ blocks: number; difficulty: number; networkhashps: number }>('getmininginfo');
  const ns = info.networkStats;
  assert.deepEqual([ns.networkType, ns.rewardType, ns.blockHeight, ns.networkDifficulty], ['RegTest', 'POW', mining.blocks, mining.difficulty]);
  assert.equal(ns.connectedPeers, await node.call<number>('getconnectioncount'));
  const tip = await node.call<{ time: number }>('getblockheader', await node.call<string>('getbestblockhash'));
  assert.equal(Date.parse(ns.lastNetworkBlockTime), tip.time * 1000);
  assert.deepEqual(
    info.topMiners.map((m) => m.miner),
    [miner],
  );
  assert.equal(info.totalBlocks, 0);
  assert.equal((await fetch(`http://127.0.0.1:${pool.ports!.api}/api/pools/cs-main/blocks`)).status, 404, 'another id is not this pool');
});

let first: string;

test('blocks: effort is the round over the network difficulty, the reward in coins, newest first and paged', async () => {
  // Three shares before, the block's own share: four shares of 0.25 over difficulty 1.
  first = await findBlock(node, c, login);
  const recorded = await blockWith(pool, first, 'pending');
  const [b] = await mc<Block[]>(`/${ID}/blocks`);
  assert.equal(b.hash, first);
  assert.equal(b.status, 'pending');
  assert.equal(b.blockHeight, recorded.height);
  // powLimit over the target its bits give (a little above 1 on regtest), the unit share difficulties are in.
  const { bits } = await node.call<{ bits: string }>('getblock', first);
  const difficulty = Number((REGTEST.powLimit * 10n ** 15n) / compactToTarget(Number.parseInt(bits, 16)).target) / 1e15;
  assert.ok(Math.abs(b.networkDifficulty - difficulty) < 1e-12, `${b.networkDifficulty} against ${difficulty}`);
  assert.ok(Math.abs(b.effort - (4 * 0.25) / difficulty) < 1e-12, `effort ${b.effort}`);
  assert.equal(b.reward, recorded.reward / 1e8);
  assert.equal(b.miner, miner);
  assert.equal(Date.parse(b.created), recorded.time);
  assert.equal(b.confirmationProgress, recorded.confirmations / 100);
  await shares(1);
  const second = await findBlock(node, c, login);
  await blockWith(pool, second, 'pending');
  const both = await mc<Block[]>(`/${ID}/blocks`);
  assert.deepEqual(
    both.map((x) => x.hash),
    [second, first],
    'newest first',
  );
  assert.ok(Math.abs(both[0].effort - (2 * 0.25) / difficulty) < 1e-12, 'the second round: one share and the block');
  assert.deepEqual(
    (await mc<Block[]>(`/${ID}/blocks?page=1&pageSize=1`)).map((x) => x.hash),
    [first],
  );
  assert.deepEqual(await mc<Block[]>(`/${ID}/blocks?page=0&pageSize=2&state=confirmed`), []);
  assert.equal((await fetch(`http://127.0.0.1:${pool.ports!.api}/api/pools/${ID}/blocks?pageSize=0`)).status, 400);
});

test("miner: pendingShares is the open round's, the payment in coins, its workers' performance", async () => {
  await shares(3);
  const before = await mc<MinerStats>(`/${ID}/miners/${miner}`);
  assert.ok(Math.abs(before.pendingShares - 3 * 0.25) < 1e-12, `pendingShares ${before.pendingShares}`);
  assert.deepEqual(Object.keys(before.performance!.workers), ['rig1']);
  assert.ok(before.performance!.workers.rig1.hashrate > 0);
  await eventually(async () => ((await mc<MinerStats>(`/${ID}/miners/${miner}`)).performanceSamples.length > 0 ? true : undefined), 'a sample');
  const list = await mc<{ miner: string; hashrate: number; sharesPerSecond: number }[]>(`/${ID}/miners`);
  assert.deepEqual(
    list.map((m) => m.miner),
    [miner],
  );

  // Both blocks mature and are paid.
  await node.call('generatetoaddress', 100, other);
  type User = {
    balance: { immature: number; pending: number; paid: number };
    payments: { txid: string; time: number; amount: number; status: string }[];
  };
  const user = await eventually(async () => {
    const u = await pool.api<User>(`/api/user/${miner}`);
    // A payment counts as paid from when it is signed; miningcore's rows are the ones sent.
    const sent = u.payments.every((p) => p.status === 'broadcast' || p.status === 'confirmed');
    if (u.balance.paid > 0 && u.balance.pending === 0 && u.balance.immature === 0 && sent) return u;
    await node.call('generatetoaddress', 1, other);
    return undefined;
  }, 'both blocks paid');
  const paid = await mc<MinerStats>(`/${ID}/miners/${miner}`);
  assert.equal(paid.totalPaid, user.balance.paid / 1e8);
  assert.equal(paid.pendingBalance, 0);
  assert.equal(paid.todayPaid, user.balance.paid / 1e8);
  const newest = user.payments.reduce((a, b) => (b.time > a.time ? b : a));
  assert.equal(Date.parse(paid.lastPayment!), newest.time);
  const payments = await mc<{ address: string; amount: number; transactionConfirmationData: string; coin: string }[]>(`/${ID}/payments`);
  assert.deepEqual(
    payments.map((p) => [p.address, p.transactionConfirmationData]).sort(),
    user.payments.map((p) => [miner, p.txid]).sort(),
    'one row per payment to the address',
  );
  assert.equal(Math.round(payments.reduce((t, p) => t + p.amount, 0) * 1e8), user.balance.paid);
  const confirmed = await mc<Block[]>(`/${ID}/blocks?state=confirmed`);
  assert.ok(confirmed.some((b) => b.hash === first && b.confirmationProgress === 1));
});

test('performance: hourly averages of the samples', async () => {
  const { stats } = await mc<{ stats: { poolHashrate: number; created: string; networkDifficulty: number }[] }>(`/${ID}/performance`);
  assert.ok(stats.length >= 1);
  assert.equal(Date.parse(stats.at(-1)!.created) % 3_600_000, 0, 'a bucket starts on the hour');
  const difficulty = (await node.call<{ difficulty: number }>('getmininginfo')).difficulty;
  assert.ok(Math.abs(stats.at(-1)!.networkDifficulty - difficulty) < 1e-9, "an average of csd's difficulty, which regtest keeps");
  assert.equal((await fetch(`http://127.0.0.1:${pool.ports!.api}/api/pools/${ID}/performance?r=Year`)).status, 400);
});

test('every miningcore route answers as docs/api/pool.openapi.json documents it', async () => {
  const mcDoc: OpenApiDoc = { ...doc, paths: Object.fromEntries(Object.entries(doc.paths).filter(([p]) => p.startsWith('/api/pools'))) };
  const calls = await checkDocumented(mcDoc, `http://127.0.0.1:${pool.ports!.api}`, { id: ID, address: miner });
  assert.deepEqual(
    calls.map((x) => `${x.path} ${x.status}`),
    Object.keys(mcDoc.paths).map((p) => `${p} 200`),
  );
});
