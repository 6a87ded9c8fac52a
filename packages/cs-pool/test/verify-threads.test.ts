// -verifythreads: shares whose Equihash solutions are checked on worker threads get exactly the
// answers of shares checked on the main thread. Two pools on one csd, -verifythreads=0 and
// -verifythreads=2, each sent the same kinds of shares: valid, a broken solution, a duplicate
// sent while the original is still being checked, low difficulty, and a pipelined burst.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, startNode } from './pool-harness.ts';
import { type Reply, StratumClient } from './stratum-client.ts';

let node: Daemon;
let address: string;
const pools = new Map<number, PoolProcess>();
const clients: StratumClient[] = [];

before(async () => {
  const started = await startNode();
  node = started.node;
  address = await node.call<string>('getnewaddress');
  await node.call('generatetoaddress', 1, address);
  for (const threads of [0, 2]) {
    const pool = new PoolProcess(node, started.zmq, [`-verifythreads=${threads}`]);
    await pool.start();
    pools.set(threads, pool);
  }
});

after(async () => {
  for (const c of clients) c.close();
  for (const pool of pools.values()) await pool.cleanup();
  await node?.cleanup();
});

async function miner(threads: number, worker: string, password = 'x'): Promise<StratumClient> {
  const c = await StratumClient.connect(pools.get(threads)!.ports!.plain);
  clients.push(c);
  await c.subscribe();
  await c.authorize(`${address}.${worker}`, password);
  return c;
}

/** The same byte of the solution flipped: Equihash fails, every field keeps its shape. */
function broken(params: string[]): string[] {
  const s = params[4];
  return [...params.slice(0, 4), s.slice(0, 10) + (s[10] === '0' ? '1' : '0') + s.slice(11)];
}

/** What each kind of share is answered, by a pool with `threads` verifier threads. */
async function answers(threads: number): Promise<Record<string, Reply>> {
  const c = await miner(threads, `t${threads}`);
  const worker = `${address}.t${threads}`;
  const valid = await c.submit(c.solve(REGTEST.equihash, false, worker).params);
  const bad = await c.submit(broken(c.solve(REGTEST.equihash, false, worker).params));
  // Both in one write: the copy is read while the original may still be on a thread.
  const twice = c.solve(REGTEST.equihash, false, worker).params;
  const [first, copy] = await Promise.all(c.sendEncoded(c.encodeRequests('mining.submit', [twice, twice])));
  // A broken share releases its hash: the same bytes again are judged again, not a duplicate.
  const badTwice = broken(c.solve(REGTEST.equihash, false, worker).params);
  const [badFirst, badAgain] = await Promise.all(c.sendEncoded(c.encodeRequests('mining.submit', [badTwice, badTwice])));
  // d=1000 is 1000 times harder than the regtest block: a share solved against an easier target is low.
  const hard = await miner(threads, `hard${threads}`, 'd=1000');
  const low = await hard.submit(hard.solve(REGTEST.equihash, false, `${address}.hard${threads}`, false).params);
  return { valid, bad, first, copy, badFirst, badAgain, low };
}

test('shares checked on verifier threads are answered exactly as on the main thread', async () => {
  const inline = await answers(0);
  const threaded = await answers(2);
  assert.deepEqual(inline.valid, { result: true, error: null });
  assert.deepEqual(inline.bad.error?.slice(0, 2), [20, 'invalid solution']);
  assert.deepEqual(inline.first, { result: true, error: null });
  assert.equal(inline.copy.error?.[0], 22);
  assert.deepEqual(inline.badAgain.error?.slice(0, 2), [20, 'invalid solution']);
  assert.equal(inline.low.error?.[0], 23);
  assert.deepEqual(threaded, inline);
});

test('a burst of pipelined shares on verifier threads: every valid one accepted and counted, every broken one refused', async () => {
  const c = await miner(2, 'burst');
  const worker = `${address}.burst`;
  // More than the threads' queue holds (256 per thread): the connection waits for them to catch up.
  const shares = Array.from({ length: 700 }, (_, i) => {
    const params = c.solve(REGTEST.equihash, false, worker).params;
    return i % 7 === 3 ? broken(params) : params;
  });
  // Refusals judged ahead of the valid shares' commits must not add up to the invalid-share cut-off (1 in 7 is far below it).
  const replies = await Promise.all(c.sendEncoded(c.encodeRequests('mining.submit', shares)));
  replies.forEach((r, i) => {
    if (i % 7 === 3) assert.deepEqual(r.error?.slice(0, 2), [20, 'invalid solution'], `share ${i}`);
    else assert.deepEqual(r, { result: true, error: null }, `share ${i}`);
  });
  const workers = await pools.get(2)!.api<{ worker: string; valid: number; invalid: number }[]>(`/api/user/${address}/workers`);
  const burst = workers.find((w) => w.worker === 'burst');
  assert.equal(burst?.valid, 600);
  assert.equal(burst?.invalid, 100);
});

test('-verifythreads outside 0-64 is refused at start with the reason', async () => {
  const pool = new PoolProcess(node, 'tcp://127.0.0.1:1', ['-verifythreads=65']);
  await assert.rejects(pool.start(), /verifythreads/);
  await pool.cleanup();
});
