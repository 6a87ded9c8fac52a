// Two cs-pool front-ends sharing one PostgreSQL database (a throwaway cluster started here) and
// one csd: shares from both count in the same PPLNS window, exactly one runs the payout processor,
// the block is paid once, to the base unit, and when that instance dies the other takes over. A
// block whose share the database refuses still reaches the node.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import pg from 'pg';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, eventually, externalAddress, receivedTotal, startNode } from './pool-harness.ts';
import { type Cluster, startCluster } from './postgres.ts';
import { StratumClient } from './stratum-client.ts';

let cluster: Cluster | string;
let node: Daemon;
let one: PoolProcess;
let two: PoolProcess;
const clients: StratumClient[] = [];
const ACTIVE = 'payout processor active';

before(async () => {
  cluster = await startCluster();
  if (typeof cluster === 'string') return;
  const started = await startNode();
  node = started.node;
  const common = [`-db=${cluster.url}`, '-scheme=pplns', '-fee=1', '-minpayout=0.1'];
  one = new PoolProcess(node, started.zmq, [...common, '-instanceid=1']);
  await one.start();
  two = new PoolProcess(node, started.zmq, [...common, '-instanceid=2']);
  await two.start();
});

after(async () => {
  for (const c of clients) c.close();
  await one?.cleanup();
  await two?.cleanup();
  await node?.cleanup();
  if (cluster && typeof cluster !== 'string') cluster.stop();
});

async function miner(pool: PoolProcess, address: string): Promise<StratumClient> {
  const c = await StratumClient.connect(pool.ports!.plain);
  clients.push(c);
  await c.subscribe();
  await c.authorize(`${address}.rig`);
  return c;
}

async function share(c: StratumClient, address: string, block = false): Promise<string> {
  const s = c.solve(REGTEST.equihash, block, `${address}.rig`);
  assert.deepEqual(await c.submit(s.params), { result: true, error: null });
  return s.hash.toString(16).padStart(64, '0');
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

test('two front-ends on one PostgreSQL database: shared shares, one payout processor, one payment', async (t) => {
  if (typeof cluster === 'string') return t.skip(`PostgreSQL unavailable: ${cluster}`);
  const a = externalAddress();
  const b = externalAddress();
  const info1 = await one.api<{ poolAddress: string }>('/api/pool/stats');
  const info2 = await two.api<{ poolAddress: string }>('/api/pool/stats');
  assert.equal(info1.poolAddress, info2.poolAddress);

  const ma = await miner(one, a);
  const mb = await miner(two, b);
  assert.notEqual(ma.nonce1[0], mb.nonce1[0], 'instance bytes differ');
  await share(ma, a);
  await share(ma, a);
  await share(mb, b);
  const hash = await share(mb, b, true);

  // Either instance's API reads the same database.
  const credited = await eventually(async () => {
    const blocks = await one.api<{ hash: string; status: string; reward: number; credits: Record<string, number> }[]>('/api/blocks');
    return blocks.find((x) => x.hash === hash && x.status === 'pending');
  }, 'the block credited');
  const dist = credited.reward - Math.floor(credited.reward / 100);
  assert.deepEqual(credited.credits, { [a]: dist / 2, [b]: dist / 2 });
  assert.equal(count(one.output, ACTIVE) + count(two.output, ACTIVE), 1);

  await node.call('generatetoaddress', 101, externalAddress());
  const payments = await eventually(async () => {
    const p = await two.api<{ txid: string; status: string; amounts: Record<string, number> }[]>('/api/payments');
    return p.length > 0 && p.every((x) => x.status !== 'signed') ? p : undefined;
  }, 'the payment');
  assert.equal(payments.length, 1);
  assert.deepEqual(payments[0].amounts, { [a]: dist / 2, [b]: dist / 2 });
  await node.call('generatetoaddress', 1, externalAddress());
  assert.equal(await receivedTotal(node, a), dist / 2);
  assert.equal(await receivedTotal(node, b), dist / 2);
  assert.equal(count(one.output, 'payment recorded') + count(two.output, 'payment recorded'), 1);

  // The active processor dies: PostgreSQL drops its lock and the other instance takes over.
  const [active, standby] = count(one.output, ACTIVE) === 1 ? [one, two] : [two, one];
  await active.stop('SIGKILL');
  await eventually(async () => (count(standby.output, ACTIVE) === 1 ? true : undefined), 'the standby taking over');
});

test('a block whose share the database refuses still reaches the node', async (t) => {
  if (typeof cluster === 'string') return t.skip(`PostgreSQL unavailable: ${cluster}`);
  // The first test left one front-end running.
  const alive = [one, two].find((p) => p.proc !== null && p.proc.exitCode === null && p.proc.signalCode === null)!;
  const a = externalAddress();
  const m = await miner(alive, a);
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  try {
    // Every INSERT of shares fails from now on, as with a database that went away.
    await admin.query('ALTER TABLE shares RENAME TO shares_away');
    const s = m.solve(REGTEST.equihash, true, `${a}.rig`);
    const reply = await m.submit(s.params);
    assert.equal(reply.result, null);
    assert.ok(reply.error, 'the miner hears that the share was not stored');
    const hash = s.hash.toString(16).padStart(64, '0');
    await eventually(async () => ((await node.call<string>('getbestblockhash')) === hash ? true : undefined), 'the block on the node');
    await eventually(async () => (alive.output.includes('its share could not be stored') ? true : undefined), 'the error logged');
  } finally {
    await admin.query('ALTER TABLE shares_away RENAME TO shares');
    await admin.end();
  }
});
