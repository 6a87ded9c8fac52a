// PPLNS end to end against real csd: shares from two miners, a block found, credited and then
// reorganized away (its credits withdrawn, orphaned once it could no longer mature, never paid),
// a second block credited over both miners' shares (the window is not full on a young pool, so
// the shares there take the whole reward), matured after 100 confirmations and paid through
// csd's wallet, to the base unit.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, blockWith, eventually, externalAddress, startNode, receivedTotal } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

let node: Daemon;
let pool: PoolProcess;
let a: string;
let b: string;
let other: string;
let ca: StratumClient;
let cb: StratumClient;

interface ApiUser {
  balance: { immature: number; pending: number; paid: number };
  payments: { txid: string; amount: number; status: string }[];
}

before(async () => {
  const started = await startNode();
  node = started.node;
  [a, b, other] = [externalAddress(), externalAddress(), externalAddress()];
  pool = new PoolProcess(node, started.zmq, ['-scheme=pplns', '-fee=1', '-minpayout=0.1']);
  await pool.start();
  ca = await StratumClient.connect(pool.ports!.plain);
  cb = await StratumClient.connect(pool.ports!.plain);
  await ca.subscribe();
  await cb.subscribe();
  await ca.authorize(`${a}.rig`);
  await cb.authorize(`${b}.rig`);
});

after(async () => {
  ca?.close();
  cb?.close();
  await pool?.cleanup();
  await node?.cleanup();
});

async function share(c: StratumClient, address: string, block = false): Promise<string> {
  const s = c.solve(REGTEST.equihash, block, `${address}.rig`);
  assert.deepEqual(await c.submit(s.params), { result: true, error: null });
  return s.hash.toString(16).padStart(64, '0');
}

async function nextJob(c: StratumClient, prev: string): Promise<void> {
  await c.waitFor(
    () => c.job !== null && Buffer.from(c.job.headerInput.subarray(4, 36)).reverse().toString('hex') === prev,
    'the job on the new tip',
  );
}

let orphan: string;

test('a block reorganized away is credited as immature, then withdrawn', async () => {
  for (let i = 0; i < 3; i++) await share(ca, a);
  await share(cb, b);
  orphan = await share(ca, a, true);
  const credited = await blockWith(pool, orphan, 'pending');
  const fee = Math.floor(credited.reward / 100);
  const dist = credited.reward - fee;
  assert.equal(credited.fee, fee);
  assert.deepEqual(credited.credits, { [a]: (dist * 4) / 5, [b]: dist / 5 });
  assert.equal((await pool.api<ApiUser>(`/api/user/${a}`)).balance.immature, (dist * 4) / 5);

  await node.call('invalidateblock', orphan);
  await node.call('generatetoaddress', 2, other);
  assert.deepEqual((await blockWith(pool, orphan, 'side')).credits, {});
  assert.deepEqual((await pool.api<ApiUser>(`/api/user/${a}`)).balance, { immature: 0, pending: 0, paid: 0 });
  assert.deepEqual((await pool.api<ApiUser>(`/api/user/${b}`)).balance, { immature: 0, pending: 0, paid: 0 });
});

test('PPLNS pays the next block over every share in the window, after maturity, exactly once', async () => {
  await nextJob(cb, await node.call<string>('getbestblockhash'));
  const found = await share(cb, b, true);
  // Shares so far: a 4 (its orphaned block's share included), b 2. The window (2 x network
  // difficulty) is not full, so these six take the whole reward.
  const block = await blockWith(pool, found, 'pending');
  const fee = Math.floor(block.reward / 100);
  const dist = block.reward - fee;
  const creditA = (dist * 4) / 6;
  const creditB = dist - creditA;
  assert.deepEqual(block.credits, { [a]: creditA, [b]: creditB });
  assert.equal(creditA + creditB + fee, block.reward);

  // 100 confirmations make it mature; the wallet spends a coinbase one block later (Core's rule).
  await node.call('generatetoaddress', 100, other);
  const paidA = await eventually(async () => {
    const u = await pool.api<ApiUser>(`/api/user/${a}`);
    if (u.balance.paid > 0) return u;
    await node.call('generatetoaddress', 1, other);
    return undefined;
  }, 'the payment');
  assert.deepEqual(paidA.balance, { immature: 0, pending: 0, paid: creditA });
  assert.equal(paidA.payments.length, 1);
  const txid = paidA.payments[0].txid;
  const tx = await node.call<{ vout: { value: number; scriptPubKey: { address: string } }[] }>('getrawtransaction', txid, true);
  const paid = (addr: string) => tx.vout.filter((o) => o.scriptPubKey.address === addr).reduce((s, o) => s + Math.round(o.value * 1e8), 0);
  assert.equal(paid(a), creditA);
  assert.equal(paid(b), creditB);
  assert.equal((await pool.api<ApiUser>(`/api/user/${b}`)).balance.paid, creditB);

  await node.call('generatetoaddress', 1, other);
  await eventually(async () => {
    const p = await pool.api<{ txid: string; status: string }[]>('/api/payments');
    return p.length === 1 && p[0].status === 'confirmed' ? true : undefined;
  }, 'the payment confirmed');
  assert.equal((await blockWith(pool, found, 'confirmed')).confirmations >= 100, true);
  // The reorganized block could have matured by now: it is orphaned, and it paid nobody.
  assert.deepEqual((await blockWith(pool, orphan, 'orphaned')).credits, {});
  // Nothing is paid twice: the wallet received exactly the credits.
  assert.equal(await receivedTotal(node, a), creditA);
  assert.equal(await receivedTotal(node, b), creditB);
});
