import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { TOKENS, withOpoiNode } from '../../test/opoi-harness.ts';
import { freePort } from '../../test/daemon.ts';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import { AllowList } from '../rpc/allowip.ts';
import type { JsonObject } from '../format/json-value.ts';
import { WsNotifier } from '../ws/notifier.ts';
import { WsServer } from '../ws/server.ts';
import { WsTestClient } from '../ws/test-client.ts';
import { ZmqNotificationInterface } from '../zmq/interface.ts';
import { ZmqTestSubscriber } from '../zmq/test-subscriber.ts';

const silent = pino({ level: 'silent' });

test('every OPoI lifecycle step reaches the WebSocket opoi channel and the ZeroMQ opoi topic, and is undone in reverse on a reorg', async () => {
  await withOpoiNode(async (o) => {
    const { ctx } = o.node;
    const { chain, params } = ctx;
    const server = new WsServer({ net: params.address, allowList: AllowList.forRpc([]), rateLimit: 0, logger: silent });
    const { port } = await server.listen(0, '127.0.0.1');
    const notifier = new WsNotifier(server, chain, ctx.mempool, ctx.opoiContent);
    const zmqAddress = `tcp://127.0.0.1:${await freePort()}`;
    const zmq = await ZmqNotificationInterface.start(
      [{ topic: 'opoi', address: zmqAddress, hwm: 1000 }],
      chain,
      ctx.mempool,
      silent,
      ctx.opoiContent,
    );
    const sub = await ZmqTestSubscriber.connect(zmqAddress);
    const clients: WsTestClient[] = [];
    const connect = async () => {
      const c = await WsTestClient.connect(`ws://127.0.0.1:${port}`);
      clients.push(c);
      return c;
    };
    try {
      const all = await connect();
      assert.deepEqual(await all.request({ action: 'subscribe', channel: 'opoi' }), { type: 'subscribed', channel: 'opoi' });
      // Watches a request that never appears: gets nothing, stake steps included.
      const nobody = await connect();
      const unknown = randomUUID();
      assert.deepEqual(await nobody.request({ action: 'subscribe', channel: 'opoi', request_id: unknown }), {
        type: 'subscribed',
        channel: 'opoi',
        request_id: unknown,
      });
      assert.deepEqual(await nobody.request({ action: 'subscribe', channel: 'opoi', request_id: 'not-a-uuid' }), {
        type: 'error',
        code: 'invalid-request-id',
        error: 'Invalid request_id "not-a-uuid": request_id must be a UUID (8-4-4-4-12 hex digits)',
        request: { action: 'subscribe', channel: 'opoi', request_id: 'not-a-uuid' },
      });

      let zmqCount = 0;
      /** The next pushes of the unfiltered WebSocket client and the ZeroMQ subscriber are exactly `expected`. */
      const expectAll = async (expected: JsonObject[]) => {
        for (const e of expected) assert.deepEqual(await all.next(), e);
        for (const e of expected) {
          const m = await sub.next();
          assert.equal(m.topic, 'opoi');
          assert.equal(m.sequence, zmqCount++);
          assert.deepEqual(JSON.parse(m.body.toString('utf8')), e);
        }
      };
      const step = (
        event: string,
        at: BlockIndexEntry,
        fields: { uuid?: string; miner?: string | null; txid?: string | null; undone?: boolean },
      ): JsonObject => ({
        type: 'opoi',
        event,
        undone: fields.undone ?? false,
        request_id: fields.uuid ?? null,
        miner: fields.miner ?? null,
        txid: fields.txid ?? null,
        height: at.height,
        block_hash: at.hashHex,
      });
      const staker = o.staker.address;

      // MANIFEST: a step without a request, naming the registered model id.
      const manifest = await o.node.call<{ txid: string }>('registermodelmanifest', 'tiny', 'ab'.repeat(32), 1000, 0, o.requester.address);
      let [b] = await o.mine();
      await expectAll([{ ...step('manifest', b, { miner: o.requester.address, txid: manifest.txid }), model_id: 'tiny' }]);

      // STAKE: a stake step, without a request.
      const stakeTxid = await o.stake();
      [b] = await o.mine();
      await expectAll([step('stake', b, { miner: staker, txid: stakeTxid })]);

      // A request watched by one client, and a second one that will expire.
      const r1 = o.request();
      const one = await connect();
      assert.deepEqual(await one.request({ action: 'subscribe', channel: 'opoi', request_id: r1.uuid.toUpperCase() }), {
        type: 'subscribed',
        channel: 'opoi',
        request_id: r1.uuid,
      });
      [b] = await o.mine();
      const forR1: JsonObject[] = [step('request', b, { uuid: r1.uuid, txid: r1.txid })];
      await expectAll(forR1.slice(-1));
      const r2 = o.request();
      const [r2Block] = await o.mine();
      await expectAll([step('request', r2Block, { uuid: r2.uuid, txid: r2.txid })]);

      // COMMIT, REVEAL after the commit window, resolution at the reveal deadline's end.
      const response = 'Paris.';
      const commitTxid = o.commit(r1.uuid, response);
      const [commitBlock] = await o.mine();
      forR1.push(step('commit', commitBlock, { uuid: r1.uuid, miner: staker, txid: commitTxid }));
      await expectAll(forR1.slice(-1));
      await o.mineTo(commitBlock.height + params.opoi.commitWindow - 1);
      const revealTxid = o.reveal(r1.uuid);
      [b] = await o.mine();
      forR1.push(step('reveal', b, { uuid: r1.uuid, miner: staker, txid: revealTxid }));
      await expectAll(forR1.slice(-1));
      await o.mineTo(commitBlock.height + params.opoi.commitWindow + params.opoi.revealWindow - 1);
      forR1.push(step('resolved', chain.tip, { uuid: r1.uuid, miner: staker }));
      await expectAll(forR1.slice(-1));

      // Published content: announced once, at the tip's height, outside any block.
      const r1Id = r1.uuid.replaceAll('-', '');
      ctx.opoiContent.publish(r1Id, Buffer.from(response));
      const published = {
        type: 'opoi',
        event: 'published',
        undone: false,
        request_id: r1.uuid,
        miner: staker,
        txid: null,
        height: chain.height,
        block_hash: null,
        response_hash: chain.opoi.commitsOf(r1Id)[0].reveal!.responseHash,
        bytes: response.length,
      };
      forR1.push(published);
      await expectAll([published]);
      assert.equal(ctx.opoiContent.publish(r1Id, Buffer.from(response)).isNew, false);

      // The payout names the winner.
      const paidTxid = o.payout(r1.uuid);
      [b] = await o.mine();
      forR1.push(step('paid', b, { uuid: r1.uuid, miner: staker, txid: paidTxid }));
      await expectAll(forR1.slice(-1));
      assert.equal(chain.opoi.request(r1Id)!.winnerTokens, TOKENS);

      // RENEW, UNSTAKE, and the collateral released once the cooldown is over.
      const renewTxid = o.renew();
      [b] = await o.mine();
      await expectAll([step('renew', b, { miner: staker, txid: renewTxid })]);
      const unstakeTxid = o.unstake();
      const [unstakeBlock] = await o.mine();
      await expectAll([step('unstake', unstakeBlock, { miner: staker, txid: unstakeTxid })]);
      await o.mineTo(unstakeBlock.height + params.opoi.unstakeCooldown - 1);
      const releaseTxid = o.release();
      [b] = await o.mine();
      await expectAll([step('released', b, { miner: staker, txid: releaseTxid })]);

      // The block where r2 expires also carries a new request: transaction steps first, then the expiry.
      // (The wallet paid the payout's fee from whichever coins it chose: the requester gets new ones.)
      await o.node.call('sendtoaddress', o.requester.address, 1);
      await o.mineTo(r2Block.height + params.opoi.requestExpiry - 1);
      const r3 = o.request();
      const [expiryBlock] = await o.mine();
      const expiry = [step('request', expiryBlock, { uuid: r3.uuid, txid: r3.txid }), step('expired', expiryBlock, { uuid: r2.uuid })];
      await expectAll(expiry);
      const refundTxid = o.payout(r2.uuid);
      const [refundBlock] = await o.mine();
      const refund = [step('paid', refundBlock, { uuid: r2.uuid, txid: refundTxid })];
      await expectAll(refund);

      // invalidateblock: the newest block's steps undone first, each block's in reverse order.
      await o.node.call('invalidateblock', expiryBlock.hashHex);
      const undo = (s: JsonObject) => ({ ...s, undone: true });
      await expectAll([...refund, ...expiry.slice().reverse()].map(undo));
      // reconsiderblock: the same steps again, as they first came.
      await o.node.call('reconsiderblock', expiryBlock.hashHex);
      await expectAll([...expiry, ...refund]);

      // The filtered client got its request's steps and nothing else; the bystander nothing at all.
      for (const e of forR1) assert.deepEqual(await one.next(), e);
      assert.deepEqual(await one.request({ action: 'unsubscribe', channel: 'opoi', request_id: r1.uuid }), {
        type: 'unsubscribed',
        channel: 'opoi',
        request_id: r1.uuid,
      });
      assert.deepEqual(await nobody.request({ action: 'unsubscribe', channel: 'opoi', request_id: unknown }), {
        type: 'unsubscribed',
        channel: 'opoi',
        request_id: unknown,
      });
      assert.equal(await sub.quietFor(200), true);
    } finally {
      for (const c of clients) await c.close();
      sub.close();
      zmq.close();
      notifier.close();
      await server.close();
    }
  });
});
