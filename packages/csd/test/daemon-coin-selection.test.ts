// Coin selection on a real node, as Bitcoin Core's wallet selects: the scenario (mature
// coinbases are spent before the wallet's own unconfirmed outputs), and unconfirmed change used
// only once the confirmed coins do not cover a payment.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Daemon } from './daemon.ts';

type Json = Record<string, unknown>;
interface Decoded {
  vin: { txid: string; vout: number }[];
}

const ARGS = ['-fallbackfee=0.0002', '-rpcratelimit=0'];

test('sends spend confirmed coins first, unconfirmed change only when they do not cover the amount', async () => {
  const node = new Daemon({ args: ARGS });
  try {
    await node.start();
    await node.call('generatetoaddress', 110, await node.call<string>('getnewaddress'));
    const miner = await node.call<string>('getnewaddress');
    const requester = await node.call<string>('getnewaddress');
    const first = await node.call<string>('sendtoaddress', miner, 5);
    const second = await node.call<string>('sendtoaddress', requester, 1);
    const inputs = async (txid: string) => (await node.call<Decoded>('getrawtransaction', txid, 1)).vin;
    const isCoinbase = async (txid: string) => 'coinbase' in (await node.call<{ vin: Json[] }>('getrawtransaction', txid, 1)).vin[0];
    for (const input of await inputs(second)) {
      assert.notEqual(input.txid, first, 'the second send spent the first one, still unconfirmed');
      assert.ok(await isCoinbase(input.txid));
    }
    await node.call('generatetoaddress', 1, await node.call<string>('getnewaddress'));
    // $MINER kept its confirmed coin, and can stake it.
    const [coin] = await node.call<Json[]>('listunspent', 1, 9999999, [miner]);
    assert.equal(coin.txid, first);
    const stake = await node.call<Json>('stakeopoi', miner, coin.txid, coin.vout);
    assert.equal(stake.collateral_txid, stake.txid);

    // More than the confirmed coins hold: the change of an unconfirmed send is needed, and used.
    const big = await node.call<string>('sendtoaddress', requester, 100);
    const confirmed = (await node.call<Json[]>('listunspent', 1)).reduce((sum, c) => sum + Math.round((c.amount as number) * 1e8), 0);
    const unconfirmed = (await node.call<Json[]>('listunspent', 0, 0)).filter((c) => c.txid === big);
    assert.ok(unconfirmed.length > 0);
    const beyond = await node.call<string>('sendtoaddress', requester, (confirmed + 1e7) / 1e8);
    assert.ok((await inputs(beyond)).some((i) => i.txid === big));
  } finally {
    await node.cleanup();
  }
});
