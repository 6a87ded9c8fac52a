import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Daemon, freePort } from '../../csd/test/daemon.ts';
import { RpcClient, RpcError, type RpcMethodName, RpcTransportError } from './client.ts';
import { RpcErrorCode } from './error-codes.ts';

const node = new Daemon({ cookie: true });

before(async () => {
  await node.start();
});
after(async () => {
  await node.cleanup();
});

function client(): RpcClient {
  return new RpcClient({ url: `http://127.0.0.1:${node.rpcPort}/`, auth: { cookieFile: node.cookiePath } });
}

test('calls authenticate with the cookie and errors carry Core codes', async () => {
  const rpc = client();
  try {
    assert.equal(await rpc.call('getblockcount'), 0);
    await assert.rejects(
      rpc.call('nosuchmethod' as RpcMethodName),
      (e: unknown) => e instanceof RpcError && e.code === -32601 && e.method === 'nosuchmethod',
    );
    await assert.rejects(
      rpc.call('getblockhash', [-1]),
      (e: unknown) => e instanceof RpcError && e.code === RpcErrorCode.INVALID_PARAMETER && e.codeName === 'INVALID_PARAMETER',
      'a bad parameter is -8, named',
    );
    // Named params are mapped onto positions by csd, as Core does.
    assert.equal(await rpc.callNamed('getblockhash', { height: 0 }), await rpc.call('getblockhash', [0]), 'named and positional calls agree');
  } finally {
    rpc.close();
  }
});

test('a batch answers each call in order, errors in place', async () => {
  const rpc = client();
  try {
    const [count, bad, hash] = await rpc.batch([
      { method: 'getblockcount' },
      { method: 'getblockhash', params: [99] },
      { method: 'getblockhash', params: [0] },
    ]);
    assert.deepEqual(count, { ok: true, result: 0 });
    assert.ok(!bad.ok && bad.error.code === -8);
    assert.ok(hash.ok && typeof hash.result === 'string' && hash.result.length === 64);
    assert.deepEqual(await rpc.batch([]), []);
  } finally {
    rpc.close();
  }
});

test('a restarted node writes a new cookie: the client reads it again after a 401', async () => {
  const rpc = client();
  try {
    await rpc.call('getblockcount');
    await node.stop();
    await node.start();
    assert.equal(await rpc.call('getblockcount'), 0);
  } finally {
    rpc.close();
  }
});

test('wrong credentials and a dead port are transport errors', async () => {
  const wrong = new RpcClient({ url: `http://127.0.0.1:${node.rpcPort}/`, auth: { user: 'x', password: 'y' } });
  await assert.rejects(wrong.call('getblockcount'), (e: unknown) => e instanceof RpcTransportError && e.status === 401);
  wrong.close();
  const dead = new RpcClient({ url: `http://127.0.0.1:${await freePort()}/`, auth: { user: 'x', password: 'y' } });
  await assert.rejects(dead.call('getblockcount'), (e: unknown) => e instanceof RpcTransportError && e.status === null);
  dead.close();
  const noCookie = new RpcClient({ url: `http://127.0.0.1:${node.rpcPort}/`, auth: { cookieFile: '/nonexistent/.cookie' } });
  await assert.rejects(noCookie.call('getblockcount'), /cookie file/);
});
