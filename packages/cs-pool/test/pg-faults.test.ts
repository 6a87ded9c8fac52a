// cs-pool on a PostgreSQL server that stalls or dies, against real csd and a real throwaway
// cluster (test/postgres.ts): the server paused with SIGSTOP (every process: connections open,
// nothing answers) past -dbtimeout, and killed with SIGKILL and started again. Miners keep
// submitting throughout: every share the pool acknowledged is stored exactly once, none it
// refused is stored, and a payment made while the server stalls and dies goes out once.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import pg from 'pg';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, eventually, externalAddress, findBlock, receivedTotal, startNode } from './pool-harness.ts';
import { type Cluster, startCluster } from './postgres.ts';
import { type Reply, StratumClient } from './stratum-client.ts';

let cluster: Cluster | string;
let node: Daemon;
let pool: PoolProcess;
const clients: StratumClient[] = [];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

before(async () => {
  cluster = await startCluster();
  if (typeof cluster === 'string') return;
  const started = await startNode();
  node = started.node;
  pool = new PoolProcess(node, started.zmq, [`-db=${cluster.url}`, '-dbtimeout=1', '-scheme=pplns', '-fee=1', '-minpayout=0.1']);
  await pool.start();
});

after(async () => {
  for (const c of clients) c.close();
  await pool?.cleanup();
  await node?.cleanup();
  if (cluster && typeof cluster !== 'string') {
    cluster.resume();
    cluster.stop();
  }
});

async function storedHashes(url: string): Promise<Map<string, number>> {
  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    const r = await db.query<{ h: string; n: string }>(
      "SELECT encode(hash, 'hex') AS h, count(*) AS n FROM shares WHERE hash IS NOT NULL GROUP BY hash",
    );
    return new Map(r.rows.map((row) => [row.h, Number(row.n)]));
  } finally {
    await db.end();
  }
}

/**
 * A miner submitting shares without pause, four in flight, until `stop` resolves; each share's
 * hash (as stored: the block-hash order) and the pool's answer.
 */
async function mineThrough(fault: () => Promise<void>): Promise<{ hash: string; reply: Reply }[]> {
  const address = externalAddress();
  const c = await StratumClient.connect(pool.ports!.plain);
  clients.push(c);
  await c.subscribe();
  await c.authorize(`${address}.rig`);
  const sent: { hash: string; reply: Promise<Reply> }[] = [];
  let stopping = false;
  const lanes = Array.from({ length: 4 }, async () => {
    while (!stopping) {
      const s = c.solve(REGTEST.equihash, false, `${address}.rig`);
      const reply = c.submit(s.params);
      sent.push({ hash: s.hash.toString(16).padStart(64, '0'), reply });
      await reply;
    }
  });
  const answered = () => sent.length;
  await eventually(async () => (answered() >= 40 ? true : undefined), 'shares before the fault');
  await fault();
  const after = answered();
  await eventually(async () => (answered() >= after + 40 ? true : undefined), 'shares after the fault', 120_000);
  stopping = true;
  await Promise.all(lanes);
  return Promise.all(sent.map(async (x) => ({ hash: x.hash, reply: await x.reply })));
}

function assertStoredOnce(shares: readonly { hash: string; reply: Reply }[], stored: ReadonlyMap<string, number>): void {
  const refused = shares.filter((s) => s.reply.result !== true);
  assert.deepEqual(
    refused.map((s) => s.reply.error),
    [],
    'no share refused: the ones sent while the server did not answer waited for it',
  );
  for (const s of shares) assert.equal(stored.get(s.hash), 1, `share ${s.hash} stored exactly once`);
  for (const [h, n] of stored) assert.equal(n, 1, `no hash twice (${h})`);
}

/** `fault` while a miner keeps shares in flight: every share acknowledged and stored exactly once. */
async function sharesSurvive(t: { skip(message: string): void }, fault: (db: Cluster) => Promise<void>): Promise<boolean> {
  if (typeof cluster === 'string') {
    t.skip(`PostgreSQL unavailable: ${cluster}`);
    return false;
  }
  const db = cluster;
  const shares = await mineThrough(() => fault(db));
  assertStoredOnce(shares, await storedHashes(db.url));
  return true;
}

test('a paused server: the shares sent meanwhile wait, and are stored exactly once when it resumes', async (t) => {
  const ran = await sharesSurvive(t, async (db) => {
    db.pause();
    // Several statement deadlines (-dbtimeout=1) pass while it stalls.
    await sleep(3500);
    db.resume();
  });
  if (!ran) return;
  assert.match(pool.output, /the database did not take the shares; trying again/, 'the stall was met');
  assert.match(pool.output, /answer was lost are settled/, 'the statements cut off by their deadline were settled before the retry');
});

test('a killed server: the shares wait for it to come back, and are stored exactly once', async (t) => {
  await sharesSurvive(t, async (db) => {
    db.kill();
    await sleep(2000);
    db.start();
  });
});

test('a payment while the server stalls and dies, over and over: each miner is paid exactly its credit, once', async (t) => {
  if (typeof cluster === 'string') return t.skip(`PostgreSQL unavailable: ${cluster}`);
  const db = cluster;
  const address = externalAddress();
  const c = await StratumClient.connect(pool.ports!.plain);
  clients.push(c);
  await c.subscribe();
  await c.authorize(`${address}.rig`);
  const found = await findBlock(node, c, `${address}.rig`);
  type Block = { hash: string; status: string; credits: Record<string, number> };
  const credited = await eventually(async () => {
    const b = (await pool.api<Block[]>('/api/blocks')).find((x) => x.hash === found && x.status === 'pending');
    return b;
  }, 'the block credited');
  const credit = credited.credits[address];
  assert.ok(credit > 0);
  const other = externalAddress();
  // Mature: from the next ticks on, the processor credits the balance as payable and pays it.
  await node.call('generatetoaddress', 101, other);
  for (let round = 0; round < 12; round++) {
    db.pause();
    await sleep(1200);
    db.resume();
    await sleep(80 + 40 * (round % 4));
    if (round === 6) {
      db.kill();
      await sleep(500);
      db.start();
    }
    await node.call('generatetoaddress', 1, other);
  }
  type User = { balance: { pending: number; paid: number }; payments: { txid: string; status: string }[] };
  const user = await eventually(
    async () => {
      const u = await pool.api<User>(`/api/user/${address}`).catch(() => null);
      if (u && u.balance.paid > 0 && u.payments.every((p) => p.status === 'confirmed' || p.status === 'failed')) return u;
      await node.call('generatetoaddress', 1, other);
      return undefined;
    },
    'the payment confirmed',
    120_000,
  );
  assert.deepEqual(user.balance, { ...user.balance, pending: 0, paid: credit }, 'the whole credit paid, and only it');
  assert.equal(user.payments.filter((p) => p.status === 'confirmed').length, 1, 'one payment went out');
  assert.equal(await receivedTotal(node, address), credit, 'the chain paid the miner exactly once');
  assert.match(pool.output, /payout processor tick failed/, 'the stalls and the kill were met by the processor');
});
