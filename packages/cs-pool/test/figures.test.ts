// The API's figures against real csd and cs-pool: a worker's hashrate is its shares' work over
// the time the pool has seen it (not over the whole 10-minute window from its first second); a
// worker that disconnects leaves the live lists and stays in the history; blocks and payments
// page with page and pageSize.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import { solutionsPerDifficulty, targetToDifficulty } from '@cs/stratum';
import type { Daemon } from '../../csd/test/daemon.ts';
import { type ApiBlock, PoolProcess, eventually, externalAddress, findBlock, startNode } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

let node: Daemon;
let pool: PoolProcess;
const clients: StratumClient[] = [];

before(async () => {
  const started = await startNode();
  node = started.node;
  pool = new PoolProcess(node, started.zmq);
  await pool.start();
});

after(async () => {
  for (const c of clients) c.close();
  await pool?.cleanup();
  await node?.cleanup();
});

interface ApiWorker {
  address?: string;
  worker: string;
  hashrate: number;
  valid: number;
  connected: number;
  since: number;
  disconnected: number;
}

async function miner(address: string, worker: string, password = 'x'): Promise<StratumClient> {
  const c = await StratumClient.connect(pool.ports!.plain);
  clients.push(c);
  await c.subscribe();
  assert.equal((await c.authorize(`${address}.${worker}`, password)).result, true);
  return c;
}

async function shares(c: StratumClient, login: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) assert.deepEqual(await c.submit(c.solve(REGTEST.equihash, false, login).params), { result: true, error: null });
}

test("a worker's hashrate is over the time observed since its login, not over the whole window", async () => {
  const address = externalAddress();
  const loggingIn = Date.now();
  const c = await miner(address, 'fresh', 'd=0.1');
  const loggedIn = Date.now();
  await shares(c, `${address}.fresh`, 12);
  // A second or more after the login, so that the floor of one second plays no part.
  while (Date.now() - loggedIn < 1500) await new Promise((r) => setTimeout(r, 100));
  const asking = Date.now();
  const [w] = await pool.api<ApiWorker[]>(`/api/user/${address}/workers`);
  const answered = Date.now();
  const work = 12 * targetToDifficulty(c.target, REGTEST.powLimit) * solutionsPerDifficulty(REGTEST.powLimit);
  // The pool measured from its login (between loggingIn and loggedIn) to its answer (between asking and answered).
  const slack = 1 + 1e-9;
  assert.ok(w.since >= loggingIn && w.since <= loggedIn, 'since: the login');
  assert.ok(
    w.hashrate * slack >= work / ((answered - loggingIn) / 1000),
    `${w.hashrate} Sol/s: not below the work over the longest interval it could be`,
  );
  assert.ok(w.hashrate <= (work / ((asking - loggedIn) / 1000)) * slack, `${w.hashrate} Sol/s: not above the work over the shortest`);
  assert.ok(w.hashrate > (work / 600) * 10, 'far above the work spread over 600 s');
  // Asked again later, over a longer time observed: the same work reads lower, never the window's figure.
  const later = (await pool.api<{ hashrate: number }>(`/api/user/${address}`)).hashrate;
  assert.ok(later <= w.hashrate && later > (work / 600) * 10, `${later} Sol/s for the address`);
});

test('a disconnected worker leaves the live lists and stays in the history', async () => {
  const address = externalAddress();
  const stays = await miner(address, 'stays');
  const goes = await miner(address, 'goes');
  await shares(stays, `${address}.stays`, 1);
  await shares(goes, `${address}.goes`, 2);
  const names = (ws: ApiWorker[]) => ws.filter((w) => w.address === undefined || w.address === address).map((w) => w.worker);
  assert.deepEqual(names(await pool.api<ApiWorker[]>('/api/workers')), ['stays', 'goes']);
  const closed = Date.now();
  goes.close();
  await eventually(async () => {
    const live = names(await pool.api<ApiWorker[]>('/api/workers'));
    return live.length === 1 ? live : undefined;
  }, 'the live list without the disconnected worker');
  assert.deepEqual(names(await pool.api<ApiWorker[]>('/api/workers')), ['stays']);
  assert.deepEqual(names(await pool.api<ApiWorker[]>(`/api/user/${address}/workers`)), ['stays']);
  const history = await pool.api<ApiWorker[]>('/api/workers/history');
  const gone = history.find((w) => w.address === address && w.worker === 'goes')!;
  assert.deepEqual([gone.connected, gone.valid], [0, 2], 'its counts stay');
  assert.ok(gone.disconnected >= closed, 'when it left');
  assert.equal(history.find((w) => w.address === address && w.worker === 'stays')?.disconnected, 0);
  assert.deepEqual(names(await pool.api<ApiWorker[]>(`/api/user/${address}/workers/history`)), ['stays', 'goes']);
  assert.equal((await pool.api<{ workers: number }>(`/api/user/${address}`)).workers, 1, 'workers connected now');
});

test('blocks and payments page with page and pageSize, newest first', async () => {
  const address = externalAddress();
  const c = await miner(address, 'finder');
  for (let i = 0; i < 5; i++) await findBlock(node, c, `${address}.finder`);
  const all = await eventually(async () => {
    const b = await pool.api<ApiBlock[]>('/api/blocks');
    return b.length === 5 ? b : undefined;
  }, 'five blocks listed');
  assert.deepEqual(
    all.map((b) => b.height),
    [...all.map((b) => b.height)].sort((x, y) => y - x),
    'newest first',
  );
  const hashes = (bs: ApiBlock[]) => bs.map((b) => b.hash);
  const page = (q: string) => pool.api<ApiBlock[]>(`/api/blocks?${q}`);
  assert.deepEqual(hashes(await page('page=0&pageSize=2')), hashes(all.slice(0, 2)));
  assert.deepEqual(hashes(await page('page=1&pageSize=2')), hashes(all.slice(2, 4)));
  assert.deepEqual(hashes(await page('page=2&pageSize=2')), hashes(all.slice(4)));
  assert.deepEqual(await page('page=3&pageSize=2'), []);
  assert.deepEqual(await pool.api('/api/payments?page=0&pageSize=10'), []);
  const bad = await fetch(`http://127.0.0.1:${pool.ports!.api}/api/blocks?pageSize=0`);
  assert.equal(bad.status, 400);
  assert.match(((await bad.json()) as { error: string }).error, /pageSize/);
  const stats = await pool.api<{ blocks: Record<string, number>; payments: Record<string, number> }>('/api/pool/stats');
  assert.equal(stats.blocks.new + stats.blocks.side + stats.blocks.pending + stats.blocks.confirmed + stats.blocks.orphaned, 5);
  assert.deepEqual(stats.payments, { signed: 0, broadcast: 0, confirmed: 0, failed: 0 });
});
