import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scriptToAddress } from '@cs/consensus';
import { COIN_VALUE, KEY_SCRIPT, accepted, spend } from '../../test/mempool-harness.ts';
import { startRestServer, type RestTestOptions, type RestTestServer } from '../../test/rest-harness.ts';
import { withRpcNode, type RpcTestNode } from '../../test/rpc-harness.ts';
import { registerBlockchainMethods } from '../rpc/methods/blockchain.ts';
import { Warmup } from '../rpc/warmup.ts';

/** /rest/address/ of the key every fixture coinbase pays (test/mempool-harness.ts). */
const ADDRESS_PATH = (node: RpcTestNode) => `/rest/address/${scriptToAddress(KEY_SCRIPT, node.ctx.params.address)}`;

async function withRest(opts: RestTestOptions, fn: (rest: RestTestServer, node: RpcTestNode) => Promise<void>): Promise<void> {
  await withRpcNode(registerBlockchainMethods, async (node) => {
    const rest = await startRestServer(node, opts);
    try {
      await fn(rest, node);
    } finally {
      await rest.close();
    }
  });
}

test('warmup: every endpoint answers 503 with the start-up step, as Core', async () => {
  await withRest({ warmup: new Warmup('Loading block index...') }, async (rest) => {
    for (const path of ['/rest/chaininfo.json', '/rest/block/00.bin', '/rest/mempool/info']) {
      const r = await rest.get(path);
      assert.equal(r.status, 503);
      assert.deepEqual(r.json, { error: 'Service temporarily unavailable: Loading block index...' });
    }
  });
});

test('an unexpected failure is 500 Internal server error, and the server carries on', async () => {
  const callRpc = async () => {
    throw new Error('boom');
  };
  await withRest({ callRpc }, async (rest) => {
    const r = await rest.get('/rest/chaininfo.json');
    assert.equal(r.status, 500);
    assert.equal(r.headers.get('content-type'), 'application/json');
    assert.deepEqual(r.json, { error: 'Internal server error' });
    assert.equal((await rest.get('/rest/mempool/info.json')).status, 200);
  });
});

test('indexes: 501 when switched off, 503 while syncing, never an empty answer', async () => {
  await withRest({ indexes: 'none' }, async (rest, node) => {
    const address = await rest.get(ADDRESS_PATH(node));
    assert.equal(address.status, 501);
    assert.deepEqual(address.json, { error: 'Address index is disabled: start csd with -addressindex=1' });
    const coinbase = node.fixture.chain.readBlock(node.fixture.chain.atHeight(3)!)!.txs[0].txidHex;
    const tx = await rest.get(`/rest/tx/${coinbase}`);
    assert.equal(tx.status, 501);
    assert.match((tx.json as { error: string }).error, /transaction index is disabled: start csd with -txindex=1/);
    // A mempool transaction needs no index.
    const pooled = spend(node.fixture.coin(1), [COIN_VALUE - 10_000n]);
    accepted(node.fixture.mempool.accept(pooled));
    assert.equal((await rest.get(`/rest/tx/${pooled.txidHex}.json`)).status, 200);
  });
  await withRest({ indexes: 'unstarted' }, async (rest, node) => {
    for (const path of [ADDRESS_PATH(node), `/rest/tx/${'ab'.repeat(32)}`]) {
      const r = await rest.get(path);
      assert.equal(r.status, 503);
      assert.equal(r.headers.get('retry-after'), '5');
      assert.deepEqual(r.json, { error: 'Index is still syncing (height 0 of 110)' });
    }
  });
});

test('rate limits: restratelimit per client and endpoint group, half of it for address and mempool, with Retry-After', async () => {
  let now = 0;
  await withRest({ rateLimit: 3, now: () => now }, async (rest, node) => {
    for (let i = 0; i < 3; i++) assert.equal((await rest.get('/rest/chaininfo.json')).status, 200);
    now = 15_000;
    const limited = await rest.get('/rest/chaininfo.json');
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.json, { error: 'Rate limit exceeded' });
    assert.equal(limited.headers.get('retry-after'), '45');
    // Other groups have their own budgets; errors count too.
    assert.equal((await rest.get('/rest/blockhashbyheight/0.json')).status, 200);
    for (let i = 0; i < 2; i++) assert.equal((await rest.get('/rest/mempool/info.json')).status, 200);
    assert.equal((await rest.get('/rest/mempool/contents.json')).status, 429);
    assert.equal((await rest.get(ADDRESS_PATH(node))).status, 200);
    assert.equal((await rest.get('/rest/address/nonsense')).status, 400);
    assert.equal((await rest.get(ADDRESS_PATH(node))).status, 429);
    // A new window opens a minute after the first request.
    now = 60_000;
    assert.equal((await rest.get('/rest/chaininfo.json')).status, 200);
  });
  await withRest({ rateLimit: 0 }, async (rest) => {
    for (let i = 0; i < 300; i++) assert.equal((await rest.get('/rest/mempool/info.json')).status, 200);
  });
});

test('CORS: answers to the rpccorsdomain origin carry its headers; unknown endpoints and formats are 404 with a reason', async () => {
  await withRest({ corsDomain: 'https://explorer.example' }, async (rest) => {
    const r = await rest.get('/rest/chaininfo.json', { origin: 'https://explorer.example' });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('access-control-allow-origin'), 'https://explorer.example');
    const other = await rest.get('/rest/chaininfo.json', { origin: 'https://elsewhere.example' });
    assert.equal(other.headers.get('access-control-allow-origin'), null);

    assert.deepEqual((await rest.get('/rest/nothing/here')).json, { error: 'Unknown REST endpoint: /rest/nothing/here' });
    assert.deepEqual((await rest.get('/rest/')).json, { error: 'Unknown REST endpoint: /rest/' });
    const xml = await rest.get('/rest/block/00.xml');
    assert.equal(xml.status, 404);
    assert.deepEqual(xml.json, { error: 'output format not found (available: .json, .bin, .hex)' });
  });
});
