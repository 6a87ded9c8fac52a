import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { scriptToAddress } from '@cs/consensus';
import { ANYONE_SCRIPT, COIN_VALUE, KEY_SCRIPT, accepted, mine, spend, withMempool } from '../../test/mempool-harness.ts';
import { AllowList } from '../rpc/allowip.ts';
import type { JsonObject } from '../format/json-value.ts';
import { WsNotifier } from './notifier.ts';
import { WsServer } from './server.ts';
import { WsTestClient } from './test-client.ts';

/** The members of `actual` that `expected` names. */
function pick(actual: JsonObject, expected: JsonObject): JsonObject {
  return Object.fromEntries(Object.keys(expected).map((k) => [k, actual[k]]));
}

async function expectPushes(c: WsTestClient, expected: JsonObject[]): Promise<JsonObject[]> {
  const got: JsonObject[] = [];
  for (const e of expected) {
    const m = await c.next();
    assert.deepEqual(pick(m, e), e, `push ${got.length}: ${JSON.stringify(m)}`);
    got.push(m);
  }
  return got;
}

test('blocks, mempool changes and address activity are pushed, reorgs and replacements included', async () => {
  await withMempool(async (m) => {
    const params = m.chain.params;
    const KEY = scriptToAddress(KEY_SCRIPT, params.address)!;
    const ANYONE = scriptToAddress(ANYONE_SCRIPT, params.address)!;
    const server = new WsServer({ net: params.address, allowList: AllowList.forRpc([]), rateLimit: 0, logger: pino({ level: 'silent' }) });
    const { port } = await server.listen(0, '127.0.0.1');
    const notifier = new WsNotifier(server, m.chain, m.mempool);
    try {
      const c = await WsTestClient.connect(`ws://127.0.0.1:${port}`);
      for (const request of [
        { action: 'subscribe', channel: 'new-blocks' },
        { action: 'subscribe', channel: 'mempool' },
        { action: 'subscribe', channel: 'address-tx', address: KEY },
      ]) {
        assert.equal((await c.request(request)).type, 'subscribed');
      }
      // A bystander watching another address sees only what touches it.
      const other = await WsTestClient.connect(`ws://127.0.0.1:${port}`);
      await other.request({ action: 'subscribe', channel: 'address-tx', address: ANYONE });

      // A spend of the key's coin enters the mempool.
      const tx = spend(m.coin(1), [COIN_VALUE - 10_000n]);
      accepted(m.mempool.accept(tx));
      const [added] = await expectPushes(c, [
        { type: 'mempool', event: 'added', txid: tx.txidHex, wtxid: tx.wtxidHex, fee: 0.0001, vsize: tx.vsize },
        { type: 'address-tx', address: KEY, txid: tx.txidHex, status: 'mempool', confirmed: false, received: 0, sent: 12.5 },
      ]);
      assert.equal(typeof added.sequence, 'number');
      await expectPushes(other, [{ type: 'address-tx', address: ANYONE, txid: tx.txidHex, status: 'mempool', received: 12.4999, sent: 0 }]);

      // Mined: it leaves the mempool, the block is announced, and so are its transactions.
      await mine(m.chain, [tx]);
      const tip = m.chain.tip;
      const block = m.chain.readBlock(tip)!;
      await expectPushes(c, [
        { type: 'mempool', event: 'removed', txid: tx.txidHex, reason: 'block' },
        {
          type: 'new-blocks',
          hash: tip.hashHex,
          height: tip.height,
          previousblockhash: tip.prev!.hashHex,
          time: tip.time,
          nTx: 2,
          size: block.size,
          weight: block.weight,
          disconnected: false,
        },
        {
          type: 'address-tx',
          address: KEY,
          txid: block.txs[0].txidHex,
          status: 'confirmed',
          confirmed: true,
          received: 12.5,
          sent: 0,
          blockhash: tip.hashHex,
          height: tip.height,
        },
        {
          type: 'address-tx',
          address: KEY,
          txid: tx.txidHex,
          status: 'confirmed',
          confirmed: true,
          received: 0,
          sent: 12.5,
          blockhash: tip.hashHex,
          height: tip.height,
        },
      ]);
      await expectPushes(other, [{ type: 'address-tx', txid: tx.txidHex, status: 'confirmed', received: 12.4999 }]);

      // Reorg: the block leaves; its transaction returns to the mempool.
      await m.chain.invalidateBlock(tip.hashHex);
      await expectPushes(c, [
        { type: 'new-blocks', hash: tip.hashHex, height: tip.height, disconnected: true },
        { type: 'address-tx', txid: block.txs[0].txidHex, status: 'reorged', confirmed: false, blockhash: tip.hashHex, height: tip.height },
        { type: 'address-tx', txid: tx.txidHex, status: 'reorged', confirmed: false, sent: 12.5, blockhash: tip.hashHex },
        { type: 'mempool', event: 'added', txid: tx.txidHex },
        { type: 'address-tx', txid: tx.txidHex, status: 'mempool', sent: 12.5 },
      ]);

      // A replacement: the original leaves (with the reason), the replacement enters.
      const replacement = spend(m.coin(1), [COIN_VALUE - 50_000n]);
      accepted(m.mempool.accept(replacement));
      await expectPushes(c, [
        { type: 'mempool', event: 'removed', txid: tx.txidHex, reason: 'replaced', replacedby: replacement.txidHex },
        { type: 'address-tx', txid: tx.txidHex, status: 'removed', confirmed: false, reason: 'replaced', sent: 12.5 },
        { type: 'mempool', event: 'added', txid: replacement.txidHex, fee: 0.0005 },
        { type: 'address-tx', txid: replacement.txidHex, status: 'mempool', sent: 12.5 },
      ]);
      await expectPushes(other, [
        { type: 'address-tx', txid: tx.txidHex, status: 'reorged' },
        { type: 'address-tx', txid: tx.txidHex, status: 'mempool' },
        { type: 'address-tx', txid: tx.txidHex, status: 'removed', reason: 'replaced' },
        { type: 'address-tx', txid: replacement.txidHex, status: 'mempool', received: 12.4995 },
      ]);

      // Unsubscribed channels go quiet.
      await c.request({ action: 'unsubscribe', channel: 'mempool' });
      await c.request({ action: 'unsubscribe', channel: 'address-tx', address: KEY });
      await mine(m.chain, [replacement]);
      await expectPushes(c, [{ type: 'new-blocks', height: m.chain.height }]);
      await new Promise((r) => setTimeout(r, 50));
      assert.equal(c.pending, 0);
      await Promise.all([c.close(), other.close()]);
    } finally {
      notifier.close();
      await server.close(100);
    }
  });
});
