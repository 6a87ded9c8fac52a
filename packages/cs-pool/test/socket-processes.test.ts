// -stratumprocesses when a process dies: a socket process killed takes only its own miners with
// it and is started again, and the pool's process killed takes its socket processes with it.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { type Socket, connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, eventually, socketProcesses as children, startNode } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

let node: Daemon;
let zmq: string;
let address: string;
const clients: StratumClient[] = [];

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

test('a socket process killed while sockets are being handed to it: each connection is answered or closed, and the pool still stops', async () => {
  const pool = new PoolProcess(node, zmq, ['-stratumprocesses=2']);
  await pool.start();
  try {
    const [victim] = children(pool.proc!.pid!);
    const outcome: string[] = [];
    const sockets: Socket[] = [];
    for (let i = 0; i < 200; i++) {
      const s = connect(pool.ports!.plain, '127.0.0.1');
      outcome.push('');
      s.setEncoding('utf8');
      s.on('error', () => {});
      s.on('data', (d: string) => {
        if (d.includes('"id":1')) outcome[i] ||= 'answered';
      });
      s.on('close', () => {
        outcome[i] ||= 'closed';
      });
      s.write('{"id":1,"method":"mining.subscribe","params":["burst/1.0",null]}\n');
      sockets.push(s);
      // Once the first 60 are served, more arrive and the kill lands among their hand-overs.
      if (i === 60) await eventually(async () => (outcome.slice(0, 60).every((o) => o !== '') ? true : undefined), 'the first 60 served');
      if (i === 80) process.kill(victim, 'SIGKILL');
    }
    await eventually(async () => (outcome.every((o) => o !== '') ? true : undefined), 'every connection answered or closed', 30_000).catch((e) => {
      throw new Error(
        `${(e as Error).message}: ${outcome.filter((o) => o === '').length} of 200 neither: ports ${sockets
          .filter((_, i) => outcome[i] === '')
          .map((s) => s.localPort)
          .join()}`,
      );
    });
    assert.ok(outcome.includes('answered'));
    for (const s of sockets) s.destroy();
    // A socket handed to the dead process and never taken would hold the listener's close for good.
    assert.equal(await Promise.race([pool.stop('SIGTERM'), sleep(15_000).then(() => 'still running after 15 s')]), 0);
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
