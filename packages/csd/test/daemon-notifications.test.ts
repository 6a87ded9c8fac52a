// WebSocket and ZeroMQ notifications of a real csd: mined blocks, a raw transaction entering the
// mempool and confirming, a reorg by invalidateblock, bad client messages and the rate limit.
import { createServer } from 'node:net';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { JsonObject } from '../src/format/json-value.ts';
import { WsTestClient } from '../src/ws/test-client.ts';
import { ZmqTestSubscriber, type ZmqMessage } from '../src/zmq/test-subscriber.ts';
import { Daemon, freePort } from './daemon.ts';
import { TestKey, addressOf } from './test-key.ts';

const KEY = new TestKey(new Uint8Array(32).fill(0x11));
const ADDRESS = KEY.address;
const OTHER = addressOf(new Uint8Array(20).fill(0x22));

/** The members of `actual` that `expected` names. */
function pick(actual: JsonObject, expected: JsonObject): JsonObject {
  return Object.fromEntries(Object.keys(expected).map((k) => [k, actual[k]]));
}

async function expectPushes(c: WsTestClient, expected: JsonObject[]): Promise<void> {
  for (const [i, e] of expected.entries()) {
    const m = await c.next();
    assert.deepEqual(pick(m, e), e, `push ${i}: ${JSON.stringify(m)}`);
  }
}

/** Checks each notifier's count: per topic, consecutive from where it stood. */
function checkCounts(messages: readonly ZmqMessage[], counts: Map<string, number>): void {
  for (const m of messages) {
    const expected = counts.get(m.topic) ?? 0;
    assert.equal(m.sequence, expected, `${m.topic} message count`);
    counts.set(m.topic, expected + 1);
  }
}

const hex = (m: ZmqMessage) => m.body.toString('hex');

test('WebSocket and ZeroMQ subscribers follow mining, a transaction, a reorg; bad messages and floods are refused', async () => {
  const [wsPort, zA, zB] = [await freePort(), await freePort(), await freePort()];
  const A = `tcp://127.0.0.1:${zA}`;
  const B = `tcp://127.0.0.1:${zB}`;
  const d = new Daemon({
    args: [
      `-wsport=${wsPort}`,
      '-wsratelimit=20',
      // Every topic on A; rawtx also on B (one topic, two endpoints) together with hashblock (two topics, one endpoint).
      ...['rawblock', 'rawtx', 'hashblock', 'hashtx', 'sequence'].map((t) => `-zmqpub${t}=${A}`),
      `-zmqpubrawtx=${B}`,
      `-zmqpubhashblock=${B}`,
      '-zmqpubrawtxhwm=5000',
    ],
  });
  const url = `ws://127.0.0.1:${wsPort}`;
  try {
    await d.start();
    assert.deepEqual(await d.call('getzmqnotifications'), [
      { type: 'pubhashblock', address: A, hwm: 1000 },
      { type: 'pubhashblock', address: B, hwm: 1000 },
      { type: 'pubhashtx', address: A, hwm: 1000 },
      { type: 'pubrawblock', address: A, hwm: 1000 },
      { type: 'pubrawtx', address: A, hwm: 5000 },
      { type: 'pubrawtx', address: B, hwm: 5000 },
      { type: 'pubsequence', address: A, hwm: 1000 },
    ]);

    const c = await WsTestClient.connect(url);
    for (const request of [
      { action: 'subscribe', channel: 'new-blocks' },
      { action: 'subscribe', channel: 'mempool' },
      { action: 'subscribe', channel: 'address-tx', address: ADDRESS },
    ]) {
      assert.equal((await c.request(request)).type, 'subscribed');
    }
    const subA = await ZmqTestSubscriber.connect(A);
    const subB = await ZmqTestSubscriber.connect(B);
    const counts = new Map<string, number>();
    const countsB = new Map<string, number>();

    // Mining: one new-blocks push and one coinbase address-tx per block; on ZeroMQ the coinbase,
    // the connection and the new tip, each topic counting up.
    const hashes = await d.call<string[]>('generatetoaddress', 101, ADDRESS);
    for (const [i, hash] of hashes.entries()) {
      await expectPushes(c, [
        { type: 'new-blocks', hash, height: i + 1, disconnected: false },
        { type: 'address-tx', address: ADDRESS, status: 'confirmed', confirmed: true, received: 12.5, sent: 0, blockhash: hash, height: i + 1 },
      ]);
      const got = await subA.take(5);
      assert.deepEqual(
        got.map((m) => m.topic),
        ['hashtx', 'rawtx', 'sequence', 'hashblock', 'rawblock'],
      );
      assert.equal(hex(got[2]), `${hash}43`);
      assert.equal(hex(got[3]), hash);
      if (i === 0) assert.equal(hex(got[4]), await d.call<string>('getblock', hash, 0));
      checkCounts(got, counts);
      const onB = await subB.take(2);
      assert.deepEqual(
        onB.map((m) => m.topic),
        ['rawtx', 'hashblock'],
      );
      assert.deepEqual(onB[1].body, got[3].body);
      checkCounts(onB, countsB);
    }

    // A raw transaction spending block 1's coinbase: 5 coins to OTHER, the change back.
    const block1 = await d.call<{ tx: string[] }>('getblock', hashes[0]);
    const raw = await d.call<string>('createrawtransaction', [{ txid: block1.tx[0], vout: 0 }], [{ [OTHER]: 5 }, { [ADDRESS]: 7.4999 }]);
    const signed = KEY.signP2wpkh(raw, [1_250_000_000n]);
    const txid = await d.call<string>('sendrawtransaction', signed);
    await expectPushes(c, [
      { type: 'mempool', event: 'added', txid, fee: 0.0001 },
      { type: 'address-tx', address: ADDRESS, txid, status: 'mempool', confirmed: false, received: 7.4999, sent: 12.5 },
    ]);
    let got = await subA.take(3);
    assert.deepEqual(
      got.map((m) => m.topic),
      ['hashtx', 'rawtx', 'sequence'],
    );
    assert.equal(hex(got[0]), txid);
    assert.equal(hex(got[1]), signed);
    assert.equal(hex(got[2]).slice(0, 66), `${txid}41`);
    checkCounts(got, counts);
    assert.equal(hex(await subB.next()), signed);
    countsB.set('rawtx', countsB.get('rawtx')! + 1);

    // Mined: removal for the block, the block, its transactions.
    const [mined] = await d.call<string[]>('generatetoaddress', 1, OTHER);
    await expectPushes(c, [
      { type: 'mempool', event: 'removed', txid, reason: 'block' },
      { type: 'new-blocks', hash: mined, height: 102, nTx: 2, disconnected: false },
      { type: 'address-tx', txid, status: 'confirmed', received: 7.4999, sent: 12.5, blockhash: mined, height: 102 },
    ]);
    got = await subA.take(7);
    assert.deepEqual(
      got.map((m) => m.topic),
      ['hashtx', 'rawtx', 'hashtx', 'rawtx', 'sequence', 'hashblock', 'rawblock'],
    );
    assert.equal(hex(got[2]), txid);
    assert.equal(hex(got[4]), `${mined}43`);
    assert.equal(hex(got[6]), await d.call<string>('getblock', mined, 0));
    checkCounts(got, counts);

    // Reorg by invalidateblock: the block is announced as disconnected, the transaction as
    // reorged and back in the mempool; ZeroMQ sends D, no new tip.
    await d.call('invalidateblock', mined);
    await expectPushes(c, [
      { type: 'new-blocks', hash: mined, height: 102, disconnected: true },
      { type: 'address-tx', txid, status: 'reorged', confirmed: false, blockhash: mined },
      { type: 'mempool', event: 'added', txid },
      { type: 'address-tx', txid, status: 'mempool' },
    ]);
    got = await subA.take(8);
    assert.deepEqual(
      got.map((m) => m.topic),
      ['hashtx', 'rawtx', 'hashtx', 'rawtx', 'sequence', 'hashtx', 'rawtx', 'sequence'],
    );
    assert.equal(hex(got[4]), `${mined}44`);
    assert.equal(hex(got[7]).slice(0, 66), `${txid}41`);
    checkCounts(got, counts);
    assert.equal(await subA.quietFor(200), true);

    // A second connection: bad messages are answered with errors and it stays usable...
    const bad = await WsTestClient.connect(url);
    assert.equal((await bad.request('{oops')).code, 'parse-error');
    assert.equal((await bad.request({ action: 'subscribe', channel: 'nope' })).code, 'unknown-channel');
    assert.equal((await bad.request({ action: 'dance', channel: 'mempool' })).code, 'unknown-action');
    assert.deepEqual(await bad.request({ action: 'subscribe', channel: 'address-tx', address: 'csrt1qinvalid' }), {
      type: 'error',
      code: 'invalid-address',
      error: 'Invalid address: Invalid Bech32 checksum or characters',
      request: { action: 'subscribe', channel: 'address-tx', address: 'csrt1qinvalid' },
    });
    assert.equal((await bad.request({ action: 'subscribe', channel: 'new-blocks' })).type, 'subscribed');
    // ...until it passes -wsratelimit (20 a minute): an error, then close 1008.
    for (let i = 5; i < 20; i++) bad.send({ action: 'subscribe', channel: 'mempool' });
    for (let i = 5; i < 20; i++) assert.equal((await bad.next()).type, 'subscribed');
    assert.equal((await bad.request({ action: 'subscribe', channel: 'mempool' })).code, 'rate-limited');
    assert.equal((await bad.closed).code, 1008);
    // The first connection is unaffected.
    assert.equal((await c.request({ action: 'unsubscribe', channel: 'mempool' })).type, 'unsubscribed');

    subA.close();
    subB.close();
    await c.close();
    await d.stop();
  } finally {
    await d.cleanup();
  }
});

test('a -wsport or ZeroMQ endpoint that cannot be bound stops csd at startup, saying which', async () => {
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  const { port } = busy.address() as { port: number };
  try {
    for (const [args, message] of [
      [[`-wsport=${port}`], `Unable to bind WebSocket server to 127.0.0.1:${port}`],
      [[`-zmqpubhashtx=tcp://127.0.0.1:${port}`], `Unable to bind ZeroMQ publisher (hashtx) to tcp://127.0.0.1:${port}`],
    ] as const) {
      const d = new Daemon({ args });
      try {
        await assert.rejects(d.start(), (e: Error) => e.message.includes(`Error: ${message}`));
      } finally {
        await d.cleanup();
      }
    }
  } finally {
    busy.close();
  }
});
