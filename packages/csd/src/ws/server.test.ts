import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { REGTEST } from '@cs/consensus';
import { AllowList } from '../rpc/allowip.ts';
import { CloseCode, WsServer, type WsServerOptions } from './server.ts';
import { WsTestClient } from './test-client.ts';

const ADDRESS = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';

async function withServer(options: Partial<WsServerOptions>, fn: (url: string, server: WsServer) => Promise<void>): Promise<void> {
  const server = new WsServer({ net: REGTEST.address, allowList: AllowList.forRpc([]), rateLimit: 0, logger: pino({ level: 'silent' }), ...options });
  const { port } = await server.listen(0, '127.0.0.1');
  try {
    await fn(`ws://127.0.0.1:${port}`, server);
  } finally {
    await server.close(100);
  }
}

test('every message gets an answer; bad ones an error, and the connection stays usable', async () => {
  await withServer({}, async (url) => {
    const c = await WsTestClient.connect(url);
    assert.deepEqual(await c.request({ action: 'subscribe', channel: 'new-blocks' }), { type: 'subscribed', channel: 'new-blocks' });
    assert.deepEqual(await c.request('not json'), { type: 'error', code: 'parse-error', error: 'Parse error: the message is not valid JSON' });
    assert.deepEqual(await c.request({ action: 'subscribe', channel: 'blocks' }), {
      type: 'error',
      code: 'unknown-channel',
      error: 'Unknown channel "blocks": expected "new-blocks", "address-tx", "mempool" or "opoi"',
      request: { action: 'subscribe', channel: 'blocks' },
    });
    assert.equal((await c.request({ action: 'watch', channel: 'mempool' })).code, 'unknown-action');
    assert.equal((await c.request({ action: 'subscribe', channel: 'address-tx', address: 'nonsense' })).code, 'invalid-address');
    assert.equal((await c.request({ action: 'unsubscribe', channel: 'mempool' })).code, 'not-subscribed');
    c.socket.send(Buffer.from('{}'), { binary: true });
    assert.equal((await c.next()).code, 'invalid-request');
    assert.deepEqual(await c.request({ action: 'subscribe', channel: 'address-tx', address: ADDRESS.toUpperCase() }), {
      type: 'subscribed',
      channel: 'address-tx',
      address: ADDRESS,
    });
    assert.deepEqual(await c.request({ action: 'unsubscribe', channel: 'address-tx', address: ADDRESS }), {
      type: 'unsubscribed',
      channel: 'address-tx',
      address: ADDRESS,
    });
    assert.equal(c.socket.readyState, c.socket.OPEN);
    await c.close();
  });
});

test('pushes reach exactly the clients given', async () => {
  await withServer({}, async (url, server) => {
    const a = await WsTestClient.connect(url);
    const b = await WsTestClient.connect(url);
    await a.request({ action: 'subscribe', channel: 'new-blocks' });
    server.push(server.subscriptions.newBlocks, { type: 'new-blocks', height: 1 });
    assert.deepEqual(await a.next(), { type: 'new-blocks', height: 1 });
    // b is subscribed to nothing: the next thing it sees is its own answer.
    assert.equal((await b.request({ action: 'subscribe', channel: 'mempool' })).type, 'subscribed');
    await Promise.all([a.close(), b.close()]);
  });
});

test('a burst of pushes in one tick reaches every subscriber whole and in order, and a close sent after it comes after it', async () => {
  await withServer({}, async (url, server) => {
    const clients = await Promise.all([0, 1, 2].map(() => WsTestClient.connect(url)));
    for (const c of clients) await c.request({ action: 'subscribe', channel: 'new-blocks' });
    // Big enough that the corked connections are flushed in several slices before the tick ends.
    const filler = 'x'.repeat(1000);
    for (let height = 0; height < 1000; height++) server.push(server.subscriptions.newBlocks, { type: 'new-blocks', height, filler });
    const closed = server.close();
    for (const c of clients) {
      for (let height = 0; height < 1000; height++) assert.deepEqual(await c.next(), { type: 'new-blocks', height, filler });
      assert.equal((await c.closed).code, CloseCode.GOING_AWAY);
    }
    await closed;
  });
});

test('past wsratelimit messages a connection gets an error, then a 1008 close; others are not affected', async () => {
  await withServer({ rateLimit: 3 }, async (url) => {
    const c = await WsTestClient.connect(url);
    const other = await WsTestClient.connect(url);
    for (let i = 0; i < 3; i++) assert.equal((await c.request({ action: 'subscribe', channel: 'mempool' })).type, 'subscribed');
    assert.deepEqual(await c.request({ action: 'subscribe', channel: 'mempool' }), {
      type: 'error',
      code: 'rate-limited',
      error: 'Rate limit exceeded: at most 3 messages per minute',
    });
    assert.deepEqual(await c.closed, { code: CloseCode.POLICY_VIOLATION, reason: 'rate limit exceeded' });
    assert.equal((await other.request({ action: 'subscribe', channel: 'mempool' })).type, 'subscribed');
    await other.close();
  });
});

test('connections beyond maxConnections are refused with 503', async () => {
  await withServer({ limits: { maxConnections: 2 } }, async (url, server) => {
    const a = await WsTestClient.connect(url);
    const b = await WsTestClient.connect(url);
    await assert.rejects(WsTestClient.connect(url), /HTTP 503/);
    await a.close();
    while (server.connectionCount > 1) await new Promise((r) => setTimeout(r, 10));
    const c = await WsTestClient.connect(url);
    await Promise.all([b.close(), c.close()]);
  });
});

test('a browser is let in only from rpccorsdomain', async () => {
  await withServer({ corsDomain: 'https://good.example' }, async (url) => {
    await assert.rejects(WsTestClient.connect(url, { origin: 'https://evil.example' }), /HTTP 403/);
    const c = await WsTestClient.connect(url, { origin: 'https://good.example' });
    await c.close();
  });
  await withServer({}, async (url) => {
    await assert.rejects(WsTestClient.connect(url, { origin: 'https://any.example' }), /HTTP 403/);
  });
});

test('clients outside the allow-list are refused with 403', async () => {
  await withServer({ allowList: new AllowList(['10.0.0.0/8']) }, async (url) => {
    await assert.rejects(WsTestClient.connect(url), /HTTP 403/);
  });
});

test('a message above the size limit closes the connection with 1009', async () => {
  await withServer({ limits: { maxMessageBytes: 100 } }, async (url) => {
    const c = await WsTestClient.connect(url);
    c.send(JSON.stringify({ action: 'subscribe', channel: 'mempool', padding: 'x'.repeat(200) }));
    assert.equal((await c.closed).code, 1009);
  });
});

test('a client that does not read is cut off (1013) instead of buffered without bound', async () => {
  await withServer({ limits: { maxBufferedBytes: 256 * 1024 } }, async (url, server) => {
    const slow = await WsTestClient.connect(url);
    const fast = await WsTestClient.connect(url);
    await slow.request({ action: 'subscribe', channel: 'new-blocks' });
    await fast.request({ action: 'subscribe', channel: 'new-blocks' });
    slow.socket.pause();
    const payload = { type: 'new-blocks', filler: 'x'.repeat(64 * 1024) };
    let pushes = 0;
    // The kernel's socket buffers take a few MB before anything queues in the server.
    while (server.subscriptions.newBlocks.size === 2 && pushes < 2000) {
      server.push(server.subscriptions.newBlocks, payload);
      pushes++;
      await new Promise((r) => setImmediate(r));
      while (fast.pending > 0) await fast.next();
    }
    assert.deepEqual([...server.subscriptions.newBlocks].length, 1, 'the slow client was dropped');
    slow.socket.resume();
    assert.deepEqual(await slow.closed, { code: CloseCode.TRY_AGAIN_LATER, reason: 'slow consumer' });
    assert.equal(fast.socket.readyState, fast.socket.OPEN);
    await fast.close();
  });
});

test('keepalive: a peer that stops answering pings is dropped, a live one stays', async () => {
  await withServer({ limits: { pingIntervalMs: 200 } }, async (url, server) => {
    const dead = await WsTestClient.connect(url, { autoPong: false });
    const live = await WsTestClient.connect(url);
    assert.equal((await dead.closed).code, 1006);
    // Two more rounds: the live client answers each.
    await new Promise((r) => setTimeout(r, 450));
    assert.equal(server.connectionCount, 1);
    assert.equal(live.socket.readyState, live.socket.OPEN);
    await live.close();
  });
});

test('closing the server says goodbye with 1001', async () => {
  const server = new WsServer({ net: REGTEST.address, allowList: AllowList.forRpc([]), rateLimit: 0, logger: pino({ level: 'silent' }) });
  const { port } = await server.listen(0, '127.0.0.1');
  const c = await WsTestClient.connect(`ws://127.0.0.1:${port}`);
  await server.close();
  assert.deepEqual(await c.closed, { code: CloseCode.GOING_AWAY, reason: 'server shutting down' });
  await assert.rejects(WsTestClient.connect(`ws://127.0.0.1:${port}`));
});

test('a plain HTTP request is told to upgrade', async () => {
  await withServer({}, async (url) => {
    const res = await fetch(url.replace('ws:', 'http:'));
    assert.equal(res.status, 426);
    await res.text();
  });
});
