// -stratumprocesses when a process dies: a socket process killed takes only its own miners with
// it and is started again, and the pool's process killed takes its socket processes with it.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, eventually, startNode } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

let node: Daemon;
let zmq: string;
let address: string;
const clients: StratumClient[] = [];

/** The pool's socket processes: the children of its main thread. */
const children = (pid: number) =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .split(' ')
    .filter((p) => p !== '')
    .map(Number);

/** A miner logged in as `worker`, its first job in hand. */
async function miner(pool: PoolProcess, worker: string): Promise<StratumClient> {
  const c = await StratumClient.connect(pool.ports!.plain, false);
  clients.push(c);
  await c.subscribe();
  assert.equal((await c.authorize(`${address}.${worker}`)).result, true);
  await c.waitFor(() => c.notifications.some((n) => n.method === 'mining.notify'), 'the first job');
  return c;
}

async function shareAccepted(c: StratumClient, worker: string): Promise<void> {
  const s = c.solve(REGTEST.equihash, false, `${address}.${worker}`);
  assert.equal((await c.submit(s.params)).result, true);
}

before(async () => {
  const started = await startNode();
  node = started.node;
  zmq = started.zmq;
  address = await node.call<string>('getnewaddress');
  await node.call('generatetoaddress', 1, address);
});

after(async () => {
  for (const c of clients) c.close();
  await node?.cleanup();
});

test('a socket process killed: only its miners are cut off, another one starts, and every miner mines on', async () => {
  const pool = new PoolProcess(node, zmq, ['-stratumprocesses=2']);
  await pool.start();
  try {
    const pid = pool.proc!.pid!;
    const first = children(pid);
    assert.equal(first.length, 2);
    // The process holding the fewest sockets gets the next one: one miner in each.
    const a = await miner(pool, 'a');
    const b = await miner(pool, 'b');
    process.kill(first[1], 'SIGKILL');
    await eventually(async () => (a.closed || b.closed ? true : undefined), "the killed process's miner cut off");
    await eventually(async () => (children(pid).length === 2 && !children(pid).includes(first[1]) ? true : undefined), 'a new socket process');
    assert.ok(children(pid).includes(first[0]), 'the other process lives on');
    const alive = a.closed ? b : a;
    assert.equal(alive.closed, false, "the other process's miner stays");
    await shareAccepted(alive, alive === a ? 'a' : 'b');
    // The cut-off miner comes back, to the new process, and jobs reach both processes' miners.
    const back = await miner(pool, 'back');
    await shareAccepted(back, 'back');
    const jobs = (c: StratumClient) => c.notifications.filter((n) => n.method === 'mining.notify').length;
    const [aliveJobs, backJobs] = [jobs(alive), jobs(back)];
    await node.call('generatetoaddress', 1, address);
    await alive.waitFor(() => jobs(alive) > aliveJobs, 'the next block job');
    await back.waitFor(() => jobs(back) > backJobs, 'the next block job');
    const stats = await pool.api<{ connectedMiners: number }>('/api/pool/stats');
    assert.equal(stats.connectedMiners, 2);
  } finally {
    await pool.cleanup();
  }
});

test("the pool's process killed: its socket processes exit with it, and its miners are disconnected", async () => {
  const pool = new PoolProcess(node, zmq, ['-stratumprocesses=2']);
  await pool.start();
  const pid = pool.proc!.pid!;
  const held = children(pid);
  const c = await miner(pool, 'orphan');
  await pool.stop('SIGKILL');
  await c.waitFor(() => c.closed, 'the disconnect');
  await eventually(async () => (held.every((p) => !existsSync(`/proc/${p}`)) ? true : undefined), 'the socket processes gone', 10_000);
  await pool.cleanup();
});
