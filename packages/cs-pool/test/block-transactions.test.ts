// Blocks with transactions, against real csd: the pool's jobs carry the mempool's transactions,
// and the blocks found on them (submitblock's hex built from the template's transaction hex and
// the job's merkle root from the template's branch) are blocks csd takes, each transaction in one.
// A node and a pool of its own: the other files' tests count blocks and payouts.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, externalAddress, findBlock, startNode } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

let node: Daemon;
let pool: PoolProcess;
let client: StratumClient;
let address: string;

before(async () => {
  const started = await startNode();
  node = started.node;
  address = await node.call<string>('getnewaddress');
  // The first coinbase matures: coins to send.
  await node.call('generatetoaddress', 101, address);
  await node.call('settxfee', 0.0001);
  pool = new PoolProcess(node, started.zmq);
  await pool.start();
  client = await StratumClient.connect(pool.ports!.plain, false);
});

after(async () => {
  client?.close();
  await pool?.cleanup();
  await node?.cleanup();
});

test("blocks found on templates holding the mempool's transactions carry every one of them, and csd takes each", async () => {
  await client.subscribe();
  await client.authorize(`${address}.carrier`);
  // Five: with the coinbase, the tree's levels of six and three nodes, the second odd.
  const sent = new Set<string>();
  for (let i = 0; i < 5; i++) sent.add(await node.call<string>('sendtoaddress', externalAddress(), 0.5 + i / 10));
  // The first block's job may come from a template older than some of them (the pool takes new
  // transactions at -txrefresh); the next block's is built after that block, on the whole mempool.
  const carried: string[] = [];
  for (let i = 0; i < 2; i++) {
    const hash = await findBlock(node, client, `${address}.carrier`);
    const block = await node.call<{ tx: string[] }>('getblock', hash, 1);
    carried.push(...block.tx.slice(1));
  }
  assert.deepEqual([...carried].sort(), [...sent].sort(), 'each transaction confirmed once, in a block the pool found');
});
