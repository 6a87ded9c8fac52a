// The OPoI lifecycle read without polling from a real csd: the WebSocket opoi channel, the ZeroMQ
// opoi topic (-zmqpubopoi) and /rest/opoi, following a STAKE and a REQUEST built here and signed
// by the node's wallet (signrawtransactionwithwallet), then a reorg by invalidateblock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import {
  OpoiKind,
  REGTEST,
  TASK_OPEN,
  Transaction,
  type TxOut,
  actorFromScript,
  addressToScript,
  collateralScript,
  escrowAmount,
  escrowScript,
  hashFromHex,
  opoiPayloadScript,
  requestIdFromUuid,
  sha256,
  toHex,
} from '@cs/consensus';
import type { JsonObject } from '../src/format/json-value.ts';
import { WsTestClient } from '../src/ws/test-client.ts';
import { ZmqTestSubscriber } from '../src/zmq/test-subscriber.ts';
import { Daemon, freePort } from './daemon.ts';

const FEE = 20_000n;
const sats = (coins: number) => BigInt(Math.round(coins * 1e8));

interface Coin {
  readonly txid: string;
  readonly vout: number;
  readonly amount: number;
}

/** A REST GET, as any client makes it (no credentials). */
async function rest(d: Daemon, path: string): Promise<{ status: number; json: unknown }> {
  const r = await d.http('', { method: 'GET', path, auth: null });
  return { status: r.status, json: r.json };
}

/** Spends `coin` into `outputs` plus the change back to its address; the node's wallet signs and broadcasts. */
async function sendRaw(d: Daemon, coin: Coin, change: Uint8Array, outputs: TxOut[]): Promise<string> {
  const spent = outputs.reduce((s, o) => s + o.value, 0n);
  const tx = new Transaction({
    version: 2,
    inputs: [{ prevout: { txid: hashFromHex(coin.txid), vout: coin.vout }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] }],
    outputs: [...outputs, { value: sats(coin.amount) - spent - FEE, scriptPubKey: change }],
    locktime: 0,
  });
  const signed = await d.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', toHex(tx.encode()));
  assert.equal(signed.complete, true);
  return d.call<string>('sendrawtransaction', signed.hex);
}

test('a real csd announces OPoI steps on WebSocket and ZeroMQ, undoes them on invalidateblock, and serves them over REST', async () => {
  const [wsPort, zmqPort] = [await freePort(), await freePort()];
  const zmqAddress = `tcp://127.0.0.1:${zmqPort}`;
  const d = new Daemon({ args: [`-wsport=${wsPort}`, `-zmqpubopoi=${zmqAddress}`, '-rest', '-fallbackfee=0.0002', '-rpcratelimit=0'] });
  const clients: WsTestClient[] = [];
  let sub: ZmqTestSubscriber | undefined;
  try {
    await d.start();
    assert.deepEqual(await d.call('getzmqnotifications'), [{ type: 'pubopoi', address: zmqAddress, hwm: 1000 }]);
    const miner = await d.call<string>('getnewaddress');
    const staker = await d.call<string>('getnewaddress');
    const requester = await d.call<string>('getnewaddress');
    await d.call('generatetoaddress', 101, miner);
    await d.call('sendtoaddress', staker, 3);
    await d.call('sendtoaddress', requester, 3);
    await d.call('generatetoaddress', 1, miner);
    const coinOf = async (address: string) => (await d.call<Coin[]>('listunspent', 1, 9999999, [address]))[0];
    const scriptOf = (address: string) => addressToScript(address, REGTEST.address);

    const connect = async (request: JsonObject) => {
      const c = await WsTestClient.connect(`ws://127.0.0.1:${wsPort}`);
      clients.push(c);
      assert.equal((await c.request(request)).type, 'subscribed');
      return c;
    };
    const uuid = randomUUID();
    const all = await connect({ action: 'subscribe', channel: 'opoi' });
    const one = await connect({ action: 'subscribe', channel: 'opoi', request_id: uuid });
    sub = await ZmqTestSubscriber.connect(zmqAddress);
    let zmqCount = 0;
    const expectAll = async (expected: JsonObject) => {
      assert.deepEqual(await all.next(), expected);
      const m = await sub!.next();
      assert.deepEqual([m.topic, m.sequence, JSON.parse(m.body.toString('utf8'))], ['opoi', zmqCount++, expected]);
    };
    const tip = async () => ({ height: await d.call<number>('getblockcount'), block_hash: await d.call<string>('getbestblockhash') });

    // STAKE: output 0 locks the minimum stake in the staker's collateral form.
    const stakePayload = { kind: OpoiKind.STAKE, miner: actorFromScript(scriptOf(staker))!, modelId: 'tiny', endpoint: '' } as const;
    const stakeTxid = await sendRaw(d, await coinOf(staker), scriptOf(staker), [
      { value: REGTEST.opoi.minStake, scriptPubKey: collateralScript(stakePayload.miner) },
      { value: 0n, scriptPubKey: opoiPayloadScript(stakePayload) },
    ]);
    await d.call('generatetoaddress', 1, miner);
    await expectAll({ type: 'opoi', event: 'stake', undone: false, request_id: null, miner: staker, txid: stakeTxid, ...(await tip()) });

    // REQUEST: output 0 is the escrow.
    const id = requestIdFromUuid(uuid);
    const request = {
      kind: OpoiKind.REQUEST,
      requestId: id,
      requester: actorFromScript(scriptOf(requester))!,
      promptHash: sha256(Buffer.from('prompt')),
      maxTokens: 100,
      payment: 1_000_000n,
      feePerToken: 1000n,
      promptTokenCount: 0,
      taskType: TASK_OPEN,
      model: 'tiny',
      taskClass: '',
    } as const;
    const requestTxid = await sendRaw(d, await coinOf(requester), scriptOf(requester), [
      { value: escrowAmount(request.payment, request.feePerToken, request.maxTokens), scriptPubKey: escrowScript(id) },
      { value: 0n, scriptPubKey: opoiPayloadScript(request) },
    ]);
    await d.call('generatetoaddress', 1, miner);
    const requested = { type: 'opoi', event: 'request', undone: false, request_id: uuid, miner: null, txid: requestTxid, ...(await tip()) };
    await expectAll(requested);
    const found = await rest(d, `/rest/opoi/request/${uuid}.json`);
    assert.equal(found.status, 200);
    const json = found.json as JsonObject;
    assert.deepEqual(
      [json.request_id, json.status, json.tx_hash, json.block_hash, json.payout_status],
      [uuid, 'PENDING', requestTxid, requested.block_hash, 'none'],
    );
    const pending = (await rest(d, '/rest/opoi/requests.json?status=PENDING')).json as JsonObject;
    assert.deepEqual([pending.total, (pending.requests as JsonObject[])[0]], [1, json]);

    // The block leaves the chain, then comes back.
    await d.call('invalidateblock', requested.block_hash);
    await expectAll({ ...requested, undone: true });
    const gone = await rest(d, `/rest/opoi/request/${uuid}.json`);
    assert.deepEqual([gone.status, gone.json], [404, { error: 'OPoI request not found' }]);
    await d.call('reconsiderblock', requested.block_hash);
    await expectAll(requested);

    // The request's watcher saw its steps only (no stake), and nothing is left over.
    assert.deepEqual(await one.next(), requested);
    assert.deepEqual(await one.next(), { ...requested, undone: true });
    assert.deepEqual(await one.next(), requested);
    assert.deepEqual(await one.request({ action: 'unsubscribe', channel: 'opoi', request_id: uuid }), {
      type: 'unsubscribed',
      channel: 'opoi',
      request_id: uuid,
    });
    assert.deepEqual(await all.request({ action: 'unsubscribe', channel: 'opoi' }), { type: 'unsubscribed', channel: 'opoi' });
    assert.equal(await sub.quietFor(200), true);
  } finally {
    for (const c of clients) await c.close();
    sub?.close();
    await d.cleanup();
  }
});
