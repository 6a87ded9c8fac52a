import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { COIN_VALUE, accepted, mine, spend, withMempool } from '../../test/mempool-harness.ts';
import { freePort } from '../../test/daemon.ts';
import { ZmqNotificationInterface } from './interface.ts';
import type { ZmqNotification } from './notifications.ts';
import { ZmqTestSubscriber, type ZmqMessage } from './test-subscriber.ts';

/** topic:body-in-hex, the way the assertions below spell messages. */
const show = (m: ZmqMessage) => `${m.topic}:${m.body.toString('hex')}`;
/** A sequence message: hash in RPC order, label, and for A/R the mempool sequence as 8 bytes little-endian. */
function seq(hash: string, label: 'C' | 'D' | 'A' | 'R', mempoolSequence?: number): string {
  let tail = '';
  if (mempoolSequence !== undefined) {
    const n = Buffer.alloc(8);
    n.writeBigUInt64LE(BigInt(mempoolSequence));
    tail = n.toString('hex');
  }
  return `sequence:${hash}${Buffer.from(label).toString('hex')}${tail}`;
}

test('chain and mempool events reach each topic as Core publishes them, with a count per notifier', async () => {
  await withMempool(async (m) => {
    const [p1, p2] = [await freePort(), await freePort()];
    const one = `tcp://127.0.0.1:${p1}`;
    const two = `tcp://127.0.0.1:${p2}`;
    // Every topic on one endpoint; rawtx also on a second one.
    const notifications: ZmqNotification[] = [
      { topic: 'hashblock', address: one, hwm: 1000 },
      { topic: 'hashtx', address: one, hwm: 1000 },
      { topic: 'rawblock', address: one, hwm: 1000 },
      { topic: 'rawtx', address: one, hwm: 1000 },
      { topic: 'rawtx', address: two, hwm: 1000 },
      { topic: 'sequence', address: one, hwm: 1000 },
    ];
    const zmq = await ZmqNotificationInterface.start(notifications, m.chain, m.mempool, pino({ level: 'silent' }));
    const all = await ZmqTestSubscriber.connect(one);
    const rawOnly = await ZmqTestSubscriber.connect(two);
    try {
      const tx = spend(m.coin(1), [COIN_VALUE - 10_000n]);
      const raw = Buffer.from(tx.encode()).toString('hex');
      accepted(m.mempool.accept(tx));
      const addSeq = m.mempool.sequence - 1;
      let got = await all.take(3);
      assert.deepEqual(got.map(show), [`hashtx:${tx.txidHex}`, `rawtx:${raw}`, seq(tx.txidHex, 'A', addSeq)]);
      assert.deepEqual(
        got.map((g) => g.sequence),
        [0, 0, 0],
      );
      assert.deepEqual((await rawOnly.next()).body.toString('hex'), raw);

      await mine(m.chain, [tx]);
      const tip = m.chain.tip;
      const block = m.chain.readBlock(tip)!;
      const coinbase = block.txs[0];
      got = await all.take(7);
      assert.deepEqual(got.map(show), [
        `hashtx:${coinbase.txidHex}`,
        `rawtx:${Buffer.from(coinbase.encode()).toString('hex')}`,
        `hashtx:${tx.txidHex}`,
        `rawtx:${raw}`,
        seq(tip.hashHex, 'C'),
        `hashblock:${tip.hashHex}`,
        `rawblock:${m.chain.readRawBlock(tip)!.toString('hex')}`,
      ]);
      assert.deepEqual(
        got.map((g) => g.sequence),
        [1, 1, 2, 2, 1, 0, 0],
      );
      // The second endpoint's rawtx notifier counts its own messages.
      assert.deepEqual(
        (await rawOnly.take(2)).map((g) => [g.topic, g.sequence]),
        [
          ['rawtx', 1],
          ['rawtx', 2],
        ],
      );

      // invalidateblock: D and the block's transactions, then the transaction is back (A); no new tip is published.
      await m.chain.invalidateBlock(tip.hashHex);
      got = await all.take(8);
      const readdSeq = m.mempool.sequence - 1;
      assert.deepEqual(got.map(show), [
        `hashtx:${coinbase.txidHex}`,
        `rawtx:${Buffer.from(coinbase.encode()).toString('hex')}`,
        `hashtx:${tx.txidHex}`,
        `rawtx:${raw}`,
        seq(tip.hashHex, 'D'),
        `hashtx:${tx.txidHex}`,
        `rawtx:${raw}`,
        seq(tx.txidHex, 'A', readdSeq),
      ]);
      assert.deepEqual(
        got.map((g) => g.sequence),
        [3, 3, 4, 4, 2, 5, 5, 3],
      );

      // A replacement: R (with its mempool sequence), then the newcomer.
      const replacement = spend(m.coin(1), [COIN_VALUE - 50_000n]);
      accepted(m.mempool.accept(replacement));
      got = await all.take(4);
      assert.deepEqual(got.map(show), [
        seq(tx.txidHex, 'R', readdSeq + 1),
        `hashtx:${replacement.txidHex}`,
        `rawtx:${Buffer.from(replacement.encode()).toString('hex')}`,
        seq(replacement.txidHex, 'A', readdSeq + 2),
      ]);
      assert.equal(await all.quietFor(100), true);
    } finally {
      all.close();
      rawOnly.close();
      zmq.close();
    }
  });
});

test('an endpoint that cannot be bound stops the start with a clear error', async () => {
  await withMempool(async (m) => {
    const port = await freePort();
    const first = await ZmqNotificationInterface.start(
      [{ topic: 'hashtx', address: `tcp://127.0.0.1:${port}`, hwm: 1 }],
      m.chain,
      m.mempool,
      pino({ level: 'silent' }),
    );
    try {
      await assert.rejects(
        ZmqNotificationInterface.start(
          [{ topic: 'rawtx', address: `tcp://127.0.0.1:${port}`, hwm: 1 }],
          m.chain,
          m.mempool,
          pino({ level: 'silent' }),
        ),
        /Unable to bind ZeroMQ publisher \(rawtx\) to tcp:\/\/127\.0\.0\.1:\d+/,
      );
    } finally {
      first.close();
    }
  });
});
