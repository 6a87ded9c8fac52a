// PROP and SOLO end to end against real csd, and the payout's crash safety: the pool kills itself
// with SIGKILL right after writing a payment down (before broadcasting it), and again right after
// broadcasting one (before marking it sent); each restart finishes the payment, and the wallets
// end up with exactly the credits, never twice.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import type { Daemon } from '../../csd/test/daemon.ts';
import { type ApiBlock, PoolProcess, eventually, externalAddress, startNode, receivedTotal } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

let node: Daemon;
let pool: PoolProcess;
let a: string;
let b: string;
let soloist: string;
let other: string;
const clients: StratumClient[] = [];

interface ApiPayment {
  id: number;
  txid: string;
  status: string;
  amounts: Record<string, number>;
}

before(async () => {
  const started = await startNode();
  node = started.node;
  [a, b, soloist, other] = [externalAddress(), externalAddress(), externalAddress(), externalAddress()];
  pool = new PoolProcess(node, started.zmq, ['-scheme=prop', '-fee=1', '-minpayout=0.1']);
  await pool.start({ CS_POOL_CRASH_AT: 'after-record' });
});

after(async () => {
  for (const c of clients) c.close();
  await pool?.cleanup();
  await node?.cleanup();
});

async function miner(address: string, port: 'plain' | 'solo' = 'plain'): Promise<StratumClient> {
  const c = await StratumClient.connect(pool.ports![port]);
  clients.push(c);
  await c.subscribe();
  await c.authorize(`${address}.rig`);
  return c;
}

async function share(c: StratumClient, address: string, block = false): Promise<string> {
  const tip = await node.call<string>('getbestblockhash');
  await c.waitFor(() => c.job !== null && Buffer.from(c.job.headerInput.subarray(4, 36)).reverse().toString('hex') === tip, 'the job on the tip');
  const s = c.solve(REGTEST.equihash, block, `${address}.rig`);
  assert.deepEqual(await c.submit(s.params), { result: true, error: null });
  const hash = s.hash.toString(16).padStart(64, '0');
  if (block) await eventually(async () => ((await node.call<string>('getbestblockhash')) === hash ? true : undefined), 'the block on the chain');
  return hash;
}

async function block(hash: string): Promise<ApiBlock> {
  return eventually(
    async () => (await pool.api<ApiBlock[]>('/api/blocks')).find((x) => x.hash === hash && x.status !== 'new'),
    `block ${hash} credited`,
  );
}

let roundOne: ApiBlock;
let roundTwo: ApiBlock;
let soloBlock: ApiBlock;

test('PROP credits each round in proportion to its shares; SOLO pays the finder the whole reward in the coinbase', async () => {
  const ma = await miner(a);
  const mb = await miner(b);
  const ms = await miner(soloist, 'solo');
  await share(ma, a);
  await share(mb, b);
  roundOne = await block(await share(ma, a, true));
  const fee = Math.floor(roundOne.reward / 100);
  const dist = roundOne.reward - fee;
  assert.deepEqual(roundOne.credits, { [a]: (dist * 2) / 3, [b]: dist / 3 });

  // A solo share counts for nobody's round; the solo block is the finder's alone.
  await share(ms, soloist);
  const soloHash = await share(ms, soloist, true);
  soloBlock = await block(soloHash);
  assert.equal(soloBlock.solo, true);
  assert.deepEqual(soloBlock.credits, { [soloist]: soloBlock.reward });
  const cb = await node.call<{ tx: { vout: { value: number; scriptPubKey: { address?: string } }[] }[] }>('getblock', soloHash, 2);
  // No solo fee by default (-solofee=0), whatever -fee says: the finder's output is the only one with value.
  const paying = cb.tx[0].vout.filter((o) => o.value > 0);
  assert.deepEqual(
    paying.map((o) => [o.scriptPubKey.address, Math.round(o.value * 1e8)]),
    [[soloist, soloBlock.reward]],
  );
  assert.equal(soloBlock.fee, 0);
  assert.equal(soloBlock.reward, 12.5e8, 'the whole block reward (subsidy; the block has no transaction fees)');

  // Round two: only b's shares since round one closed.
  await share(mb, b);
  roundTwo = await block(await share(mb, b, true));
  assert.deepEqual(roundTwo.credits, { [b]: roundTwo.reward - Math.floor(roundTwo.reward / 100) });
});

test('kill -9 after the payment is written down and before it is broadcast: the restart sends that very transaction', async () => {
  // Round one (and the solo block) reach 101 confirmations, round two 99.
  await node.call('generatetoaddress', 98, other);
  assert.equal(await pool.exited(), 'SIGKILL');
  assert.deepEqual(await node.call('getrawmempool'), []);

  await pool.start({ CS_POOL_CRASH_AT: 'after-broadcast' });
  const [first] = await eventually(async () => {
    const p = await pool.api<ApiPayment[]>('/api/payments');
    return p.length === 1 && p[0].status === 'broadcast' ? p : undefined;
  }, 'the recorded payment broadcast');
  assert.deepEqual(first.amounts, roundOne.credits);
  assert.deepEqual(await node.call('getrawmempool'), [first.txid]);
});

test('kill -9 after broadcasting and before marking it: the restart finds it sent and pays nothing twice', async () => {
  await eventually(async () => {
    if (pool.proc?.signalCode === 'SIGKILL') return true;
    await node.call('generatetoaddress', 1, other);
    await new Promise((r) => setTimeout(r, 300));
    return undefined;
  }, 'the second payment and the crash after its broadcast');
  await pool.start();
  const payments = await eventually(async () => {
    const p = await pool.api<ApiPayment[]>('/api/payments');
    return p.length === 2 && p.every((x) => x.status !== 'signed') ? p : undefined;
  }, 'both payments resolved');
  assert.notEqual(payments[0].txid, payments[1].txid);
  await node.call('generatetoaddress', 1, other);
  await eventually(async () => {
    const p = await pool.api<ApiPayment[]>('/api/payments');
    return p.every((x) => x.status === 'confirmed') ? true : undefined;
  }, 'both payments confirmed');

  const creditB = roundOne.credits[b] + roundTwo.credits[b];
  const user = async (addr: string) =>
    (await pool.api<{ balance: { immature: number; pending: number; paid: number } }>(`/api/user/${addr}`)).balance;
  assert.deepEqual(await user(a), { immature: 0, pending: 0, paid: roundOne.credits[a] });
  assert.deepEqual(await user(b), { immature: 0, pending: 0, paid: creditB });
  assert.deepEqual(await user(soloist), { immature: 0, pending: 0, paid: soloBlock.reward });
  // What the wallets hold is exactly what was credited: nothing lost, nothing paid twice.
  assert.equal(await receivedTotal(node, a), roundOne.credits[a]);
  assert.equal(await receivedTotal(node, b), creditB);
  assert.equal(await receivedTotal(node, soloist), soloBlock.reward);
});
