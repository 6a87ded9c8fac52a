import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Daemon, RpcCallError } from './daemon.ts';
import { TestKey, addressOf } from './test-key.ts';

// The test is the wallet here: it holds a key, mines to it, and signs its own spends.
const KEY = new TestKey(new Uint8Array(32).fill(0x11));
const ADDRESS = KEY.address;
const OTHER = addressOf(new Uint8Array(20).fill(0x22));

interface Block1 {
  tx: string[];
  height: number;
  confirmations: number;
}

test('mine 200+ blocks, spend coinbases with raw transactions, reorg by invalidation, restart to the same state', async () => {
  const d = new Daemon();
  try {
    await d.start();
    const hashes = await d.call<string[]>('generatetoaddress', 210, ADDRESS);
    assert.equal(hashes.length, 210);
    const info = await d.call<{ chain: string; blocks: number; bestblockhash: string; pruned: boolean }>('getblockchaininfo');
    assert.deepEqual([info.chain, info.blocks, info.bestblockhash, info.pruned], ['regtest', 210, hashes[209], false]);
    // Operators see the connects in /metrics: one observation per block, the height, no inputs yet.
    const metrics = (await d.http('', { method: 'GET', path: '/metrics' })).body;
    assert.match(metrics, /^csd_block_connect_duration_seconds_count 210$/m);
    assert.match(metrics, /^csd_block_connect_inputs_total 0$/m);
    for (const phase of ['plan', 'scripts', 'write'])
      assert.match(metrics, new RegExp(`^csd_block_connect_phase_seconds_count\\{phase="${phase}"\\} 210$`, 'm'));
    assert.match(metrics, /^csd_chain_height 210$/m);

    // The coinbase of block 1 is mature (209 confirmations); spend it with a raw transaction.
    const block1 = await d.call<Block1>('getblock', hashes[0]);
    const cbTxid = block1.tx[0];
    const coin = await d.call<{ value: number; confirmations: number; coinbase: boolean; scriptPubKey: { address: string } }>('gettxout', cbTxid, 0);
    assert.deepEqual([coin.coinbase, coin.confirmations, coin.scriptPubKey.address], [true, 210, ADDRESS]);
    const amount = BigInt(Math.round(coin.value * 1e8));
    const raw = await d.call<string>(
      'createrawtransaction',
      [{ txid: cbTxid, vout: 0 }],
      [{ [OTHER]: 5 }, { [ADDRESS]: Number(amount - 500_000_000n - 10_000n) / 1e8 }],
    );
    const signed = KEY.signP2wpkh(raw, [amount]);
    const decoded = await d.call<{ txid: string; vout: { scriptPubKey: { address: string } }[] }>('decoderawtransaction', signed);
    assert.equal(decoded.vout[0].scriptPubKey.address, OTHER);

    const [check] = await d.call<{ allowed: boolean; fees: { base: number } }[]>('testmempoolaccept', [signed]);
    assert.equal(check.allowed, true);
    assert.equal(check.fees.base, 0.0001);
    const txid = await d.call<string>('sendrawtransaction', signed);
    assert.equal(txid, decoded.txid);
    assert.deepEqual(await d.call('getrawmempool'), [txid]);
    // The spent coin is gone from the mempool view, still there in the chain-only view.
    assert.equal(await d.call('gettxout', cbTxid, 0), null);
    assert.ok(await d.call('gettxout', cbTxid, 0, false));

    // An unsigned spend of another coinbase is rejected with the script error.
    const block2 = await d.call<Block1>('getblock', hashes[1]);
    const unsigned = await d.call<string>('createrawtransaction', [{ txid: block2.tx[0], vout: 0 }], { [OTHER]: 1 });
    await assert.rejects(d.call('sendrawtransaction', unsigned), (e: unknown) => e instanceof RpcCallError && e.code === -26);
    // A coinbase that is not yet mature cannot be spent.
    const young = await d.call<Block1>('getblock', hashes[150]);
    const immature = KEY.signP2wpkh(await d.call<string>('createrawtransaction', [{ txid: young.tx[0], vout: 0 }], { [OTHER]: 1 }), [amount / 2n]);
    await assert.rejects(
      d.call('sendrawtransaction', immature),
      (e: unknown) => e instanceof RpcCallError && e.code === -26 && /premature/.test(e.message),
    );

    // The template carries the transaction; mining it confirms it.
    const template = await d.call<{ transactions: { txid: string }[]; height: number }>('getblocktemplate', { rules: ['segwit'] });
    assert.deepEqual(
      template.transactions.map((t) => t.txid),
      [txid],
    );
    assert.equal(template.height, 211);
    const [mined] = await d.call<string[]>('generatetoaddress', 1, ADDRESS);
    assert.deepEqual(await d.call('getrawmempool'), []);
    const confirmed = await d.call<{ blockhash: string; confirmations: number }>('getrawtransaction', txid, true, mined);
    assert.deepEqual([confirmed.blockhash, confirmed.confirmations], [mined, 1]);

    // Reorg: invalidating the block returns its transaction to the mempool.
    await d.call('invalidateblock', mined);
    assert.equal(await d.call('getblockcount'), 210);
    assert.deepEqual(await d.call('getrawmempool'), [txid]);
    const tips = await d.call<{ hash: string; status: string }[]>('getchaintips');
    assert.ok(tips.some((t) => t.hash === mined && t.status === 'invalid'));
    // A competing branch of two blocks takes over; reconsidering the old block does not win back.
    const branch = await d.call<string[]>('generatetoaddress', 2, ADDRESS);
    assert.equal(await d.call('getblockcount'), 212);
    await d.call('reconsiderblock', mined);
    assert.equal(await d.call('getbestblockhash'), branch[1]);
    assert.deepEqual(await d.call('getrawmempool'), []);

    // A transaction waiting in the mempool survives a restart (mempool.dat).
    const coin2 = await d.call<Block1>('getblock', hashes[2]);
    const waiting = KEY.signP2wpkh(await d.call<string>('createrawtransaction', [{ txid: coin2.tx[0], vout: 0 }], { [OTHER]: 12.4999 }), [amount]);
    const waitingTxid = await d.call<string>('sendrawtransaction', waiting);

    // Restart: the same tip, UTXO set, chain tips and mempool.
    const before = await d.call<{ hash_serialized_3: string; height: number; total_amount: number }>('gettxoutsetinfo');
    const tipsBefore = await d.call('getchaintips');
    await d.stop();
    await d.start();
    assert.equal(await d.call('getbestblockhash'), branch[1]);
    assert.deepEqual(await d.call('gettxoutsetinfo'), before);
    assert.deepEqual(await d.call('getchaintips'), tipsBefore);
    assert.deepEqual(await d.call('getrawmempool'), [waitingTxid]);
  } finally {
    await d.cleanup();
  }
});
