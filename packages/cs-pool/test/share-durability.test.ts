// Shares are committed in groups, and a miner hears `true` only once its share's group is on
// disk. The pool kills itself with SIGKILL right after the first acknowledgements have left
// (CS_POOL_CRASH_AT=after-share-ack) while 200 pipelined shares are in flight; the store, opened
// afresh, holds every share that was acknowledged.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import type { Daemon } from '../../csd/test/daemon.ts';
import { LmdbStore } from '../src/accounting/lmdb-store.ts';
import { PoolProcess, externalAddress, startNode } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

const SHARES = 200;

let node: Daemon;
let pool: PoolProcess;

before(async () => {
  const started = await startNode();
  node = started.node;
  pool = new PoolProcess(node, started.zmq, ['-payouts=0']);
  await pool.start({ CS_POOL_CRASH_AT: 'after-share-ack' });
});

after(async () => {
  await pool?.cleanup();
  await node?.cleanup();
});

test('every acknowledged share survives a kill -9 right after its acknowledgement', async () => {
  const address = externalAddress();
  const c = await StratumClient.connect(pool.ports!.plain);
  await c.subscribe();
  await c.authorize(`${address}.rig`);
  const shares = Array.from({ length: SHARES }, () => c.solve(REGTEST.equihash, false, `${address}.rig`).params);
  const outcomes = await Promise.allSettled(c.sendEncoded(c.encodeRequests('mining.submit', shares)));
  assert.equal(await pool.exited(), 'SIGKILL', 'the pool killed itself after acknowledging');
  const acknowledged = outcomes.filter((o) => o.status === 'fulfilled' && o.value.result === true).length;
  assert.ok(acknowledged > 0, 'shares were acknowledged before the kill');

  const store = new LmdbStore(join(pool.datadir, 'regtest', 'db'), REGTEST.powLimit);
  try {
    let stored = 0;
    for await (const s of store.sharesDescending(Number.MAX_SAFE_INTEGER)) {
      assert.equal(`${s.address}.${s.worker}`, `${address}.rig`, 'a stored share belongs to the miner');
      stored++;
    }
    assert.ok(stored >= acknowledged, `the store holds every acknowledged share (${stored} stored, ${acknowledged} acknowledged)`);
  } finally {
    await store.close();
  }
});
