// The REST and WebSocket clients against a real csd (-rest, -wsport), and their decoding of
// answers and pushes that do not follow the documentation.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon, freePort } from '../../csd/test/daemon.ts';
import { RpcClient } from './client.ts';
import { RestClient, RestError } from './rest.ts';
import { NodeSocket, type WsPush, WsDecodeError, decodeWsMessage } from './ws.ts';

const ADDRESS = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';
let wsPort = 0;
let node: Daemon;
let rpc: RpcClient;
let rest: RestClient;

before(async () => {
  wsPort = await freePort();
  node = new Daemon({ cookie: true, args: ['-rest', `-wsport=${wsPort}`] });
  await node.start();
  rpc = new RpcClient({ url: `http://127.0.0.1:${node.rpcPort}/`, auth: { cookieFile: node.cookiePath } });
  rest = new RestClient({ url: `http://127.0.0.1:${node.rpcPort}` });
  await rpc.call('generatetoaddress', [2, ADDRESS]);
});
after(async () => {
  rpc.close();
  await node.cleanup();
});

test('REST answers are the documented objects, the same as RPC gives', async () => {
  const info = await rest.chainInfo();
  assert.equal(info.blocks, 2, 'chaininfo has the height');
  assert.equal(info.bestblockhash, await rpc.call('getbestblockhash'), 'chaininfo has the tip');
  const hash = await rest.blockHashByHeight(1);
  assert.equal(hash, await rpc.call('getblockhash', [1]), 'blockhashbyheight is getblockhash');
  const block = await rest.block(hash);
  assert.equal(block.height, 1, 'the block JSON has its height');
  assert.equal(block.tx.length, 1, 'and its txids');
  const bytes = await rest.blockBytes(hash);
  assert.equal(Buffer.from(bytes).toString('hex'), await rpc.call('getblock', [hash, 0]), '.bin is the serialized block');
  const headers = await rest.headers(hash, 2);
  assert.deepEqual(
    headers.map((h) => h.height),
    [1, 2],
    'two headers from height 1',
  );
  const tx = await rest.tx(block.tx[0]);
  assert.equal(tx.txid, block.tx[0], 'tx JSON is the transaction');
  assert.equal((await rest.address(ADDRESS)).txApperances, 2, 'the address index counts both coinbases');
  assert.equal((await rest.mempoolInfo()).size, 0, 'mempool info');
  assert.deepEqual(await rest.mempoolContents(), {}, 'empty mempool contents');
  const utxos = await rest.utxos([{ txid: block.tx[0], vout: 0 }]);
  assert.equal(utxos.bitmap, '1', 'the coinbase output is unspent');
  assert.deepEqual(await rest.opoiRequests({ count: 10 }), { total: 0, from: 0, count: 0, requests: [] }, 'no OPoI requests yet');
  assert.deepEqual(await rest.modelManifests(), [], 'no model manifests yet');
});

test('REST errors carry the status and csd message', async () => {
  await assert.rejects(
    rest.block('00'.repeat(32)),
    (e: unknown) => e instanceof RestError && e.status === 404 && e.message === 'Block not found',
    'unknown block is 404',
  );
  await assert.rejects(rest.blockHashByHeight(99), (e: unknown) => e instanceof RestError && e.status === 404, 'height above the tip is 404');
  await assert.rejects(rest.opoiRequest('not-a-uuid'), (e: unknown) => e instanceof RestError && e.status === 400, 'a bad request id is 400');
  await assert.rejects(
    rest.opoiAudit('0b4f6a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b'),
    (e: unknown) => e instanceof RestError && e.status === 404 && e.message === 'OPoI request not found',
    'the audit of an unknown request is 404',
  );
  await assert.rejects(
    rest.modelManifest('org/model-7b.Q4'),
    (e: unknown) => e instanceof RestError && e.status === 404 && e.message === 'Model manifest not found',
    'an unknown manifest is 404',
  );
  const down = new RestClient({ url: `http://127.0.0.1:${await freePort()}` });
  await assert.rejects(down.chainInfo(), (e: unknown) => e instanceof RestError && e.status === 0, 'no node is status 0');
});

test('the WebSocket client decodes pushes of a new block and re-subscribes after the node restarts', async () => {
  const socket = new NodeSocket({ url: `ws://127.0.0.1:${wsPort}/`, subscriptions: [{ channel: 'new-blocks' }], retryMs: 100 });
  const pushes: WsPush[] = [];
  const problems: Error[] = [];
  socket.on('problem', (e) => problems.push(e));
  let opened = 0;
  const nextPush = () => new Promise<WsPush>((resolve) => socket.once('push', resolve));
  // Subscribed: the node has the subscription, so the next block is pushed.
  const subscribed = () => new Promise<void>((resolve) => socket.once('reply', () => resolve()));
  socket.on('push', (p) => pushes.push(p));
  socket.on('open', () => opened++);
  try {
    let opening = subscribed();
    socket.start();
    await opening;
    let pushed = nextPush();
    const [hash] = await rpc.call('generatetoaddress', [1, ADDRESS]);
    const push = await pushed;
    assert.equal(push.type, 'new-blocks', 'a new-blocks push');
    assert.equal(push.type === 'new-blocks' && push.hash, hash, 'of the mined block');
    assert.equal(push.type === 'new-blocks' && push.height, 3, 'at its height');

    opening = subscribed();
    await node.stop();
    await node.start();
    await opening;
    assert.equal(opened, 2, 'the socket connected again');
    pushed = nextPush();
    const [again] = await rpc.call('generatetoaddress', [1, ADDRESS]);
    assert.equal((await pushed).type === 'new-blocks' && ((await pushed) as { hash: string }).hash, again, 'pushes resume after the restart');
    assert.deepEqual(
      problems.filter((e) => e instanceof WsDecodeError),
      [],
      'every message decoded',
    );
  } finally {
    socket.stop();
  }
});

test('decoding refuses messages that are not documented pushes or replies', () => {
  assert.deepEqual(decodeWsMessage('{"type":"subscribed","channel":"mempool"}'), { type: 'subscribed', channel: 'mempool' }, 'a reply');
  const opoi = decodeWsMessage(
    '{"type":"opoi","event":"expired","undone":false,"request_id":"5f0c9d12-7a3b-4c8e-9f1d-2e4a6b8c0d13","miner":null,"txid":null,"height":145,"block_hash":"8b13"}',
  );
  assert.equal(opoi.type === 'opoi' && opoi.event, 'expired', 'an opoi push with null fields');
  for (const [text, why] of [
    ['not json', 'not JSON'],
    ['[1]', 'an array'],
    ['{"type":"blocks"}', 'an unknown type'],
    ['{"type":"new-blocks","hash":"00","height":"1"}', 'a height that is a string'],
    ['{"type":"mempool","event":"added","txid":"a","wtxid":"b","fee":1,"vsize":1,"sequence":1,"reason":3}', 'a reason that is a number'],
  ]) {
    assert.throws(() => decodeWsMessage(text), WsDecodeError, why);
  }
});
