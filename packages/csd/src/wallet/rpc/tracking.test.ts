import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REGTEST, addressToScript, encodeWif, p2wpkhScript, scriptToAddress } from '@cs/consensus';
import { nextBlock } from '../../../test/chain-harness.ts';
import { COIN_VALUE, accepted, buildTx } from '../../../test/mempool-harness.ts';
import { withWalletNode, type WalletTestNode } from '../../../test/wallet-harness.ts';

type Json = Record<string, unknown>;
interface Balances {
  mine: { trusted: number; untrusted_pending: number; immature: number };
  watchonly?: { trusted: number; untrusted_pending: number; immature: number };
  lastprocessedblock: { hash: string; height: number };
}

const FOREIGN = scriptToAddress(p2wpkhScript(new Uint8Array(20).fill(0xee)), REGTEST.address)!;
const OTHER = scriptToAddress(p2wpkhScript(new Uint8Array(20).fill(0xdd)), REGTEST.address)!;
const FIXTURE_KEY_WIF = encodeWif({ privateKey: new Uint8Array(32).fill(7), compressed: true }, REGTEST.address);

/** A transaction from the fixture's key paying `coins` to `address` (the rest, minus 0.0001 fee, back to the key). */
function payment(node: WalletTestNode, height: number, address: string, coins: number) {
  const input = node.fixture.coin(height);
  const value = BigInt(Math.round(coins * 1e8));
  return buildTx({
    inputs: [input],
    outputs: [
      { value, scriptPubKey: addressToScript(address, REGTEST.address) },
      { value: COIN_VALUE - value - 10_000n, scriptPubKey: input.output.scriptPubKey },
    ],
  });
}

test('mined coins are immature for 100 confirmations, then spendable; listtransactions says so', () =>
  withWalletNode(async (node) => {
    const address = await node.call<string>('getnewaddress');
    const [hash] = await node.mine(1, address);
    let b = await node.call<Balances>('getbalances');
    assert.deepEqual(b.mine, { trusted: 0, untrusted_pending: 0, immature: 12.5 });
    assert.deepEqual(b.lastprocessedblock, { hash, height: 111 });
    let [entry] = await node.call<Json[]>('listtransactions');
    assert.deepEqual(
      [entry.category, entry.amount, entry.address, entry.confirmations, entry.generated, entry.blockhash],
      ['immature', 12.5, address, 1, true, hash],
    );
    assert.deepEqual(await node.call('listunspent'), []);
    assert.equal((await node.call<Json[]>('listunspent', 1, 9999999, [], true, { include_immature_coinbase: true })).length, 1);

    // Core's wallet needs maturity + 1 confirmations: 100 more blocks make 101.
    await node.mine(99, FOREIGN);
    assert.equal((await node.call<Balances>('getbalances')).mine.immature, 12.5);
    await node.mine(1, FOREIGN);
    b = await node.call<Balances>('getbalances');
    assert.deepEqual(b.mine, { trusted: 12.5, untrusted_pending: 0, immature: 0 });
    assert.equal(await node.call('getbalance'), 12.5);
    [entry] = await node.call<Json[]>('listtransactions');
    assert.equal(entry.category, 'generate');
    const [coin] = await node.call<Json[]>('listunspent');
    assert.deepEqual([coin.amount, coin.confirmations, coin.spendable, coin.safe, coin.address], [12.5, 101, true, true, address]);
    const info = await node.call<Json>('getwalletinfo');
    assert.deepEqual([info.walletname, info.balance, info.txcount, info.private_keys_enabled], ['', 12.5, 1, true]);
  }));

test('a payment is untrusted while unconfirmed, trusted once mined, unconfirmed again after a reorg, and conflicted by a double spend', () =>
  withWalletNode(async (node) => {
    const address = await node.call<string>('getnewaddress', 'pay me');
    const tx = payment(node, 1, address, 3);
    accepted(node.fixture.mempool.accept(tx));
    let b = await node.call<Balances>('getbalances');
    assert.deepEqual(b.mine, { trusted: 0, untrusted_pending: 3, immature: 0 });
    assert.equal(await node.call('getunconfirmedbalance'), 3);
    assert.deepEqual(await node.call('listunspent'), []);
    const [unsafe] = await node.call<Json[]>('listunspent', 0);
    assert.deepEqual([unsafe.txid, unsafe.safe, unsafe.confirmations, unsafe.label, unsafe.ancestorcount], [tx.txidHex, false, 0, 'pay me', 1]);
    let [entry] = await node.call<Json[]>('listtransactions');
    assert.deepEqual([entry.category, entry.amount, entry.confirmations, entry.trusted, entry.label], ['receive', 3, 0, false, 'pay me']);

    const [mined] = await node.mine(1, FOREIGN);
    b = await node.call<Balances>('getbalances');
    assert.deepEqual(b.mine, { trusted: 3, untrusted_pending: 0, immature: 0 });
    const gt = await node.call<Json>('gettransaction', tx.txidHex);
    assert.deepEqual([gt.amount, gt.fee, gt.confirmations, gt.blockhash, gt.blockheight], [3, undefined, 1, mined, 111]);
    assert.deepEqual(gt.details, [
      { involvesWatchonly: undefined, address, category: 'receive', amount: 3, label: 'pay me', vout: 0, fee: undefined, abandoned: undefined },
    ]);

    // The block leaves the chain: the payment is back in the mempool, unconfirmed.
    await node.call('invalidateblock', mined);
    b = await node.call<Balances>('getbalances');
    assert.deepEqual(b.mine, { trusted: 0, untrusted_pending: 3, immature: 0 });
    assert.equal((await node.call<Json>('gettransaction', tx.txidHex)).confirmations, 0);

    // A double spend of the payer's coin replaces it: the payment no longer counts anywhere.
    const input = node.fixture.coin(1);
    const doubleSpend = buildTx({ inputs: [input], outputs: [{ value: COIN_VALUE - 100_000n, scriptPubKey: input.output.scriptPubKey }] });
    accepted(node.fixture.mempool.accept(doubleSpend));
    b = await node.call<Balances>('getbalances');
    assert.deepEqual(b.mine, { trusted: 0, untrusted_pending: 0, immature: 0 });
    [entry] = await node.call<Json[]>('listtransactions');
    assert.deepEqual(entry.mempoolconflicts, [doubleSpend.txidHex]);
    // Confirmed, the double spend makes the payment conflicted: negative confirmations.
    await node.mine(2, FOREIGN);
    const conflicted = await node.call<Json>('gettransaction', tx.txidHex);
    assert.equal(conflicted.confirmations, -2);
    assert.equal(conflicted.trusted, false);
    const e = await node.callError('abandontransaction', tx.txidHex);
    assert.deepEqual([e.code, e.message], [-5, 'Transaction not eligible for abandonment']);
    assert.equal((await node.callError('gettransaction', '00'.repeat(32))).code, -5);
  }));

test('importprivkey with rescan finds the coins the key holds', () =>
  withWalletNode(async (node) => {
    assert.equal(await node.call('getbalance'), 0);
    await node.call('importprivkey', FIXTURE_KEY_WIF, 'fixture');
    // The fixture mined 110 blocks to the key: the first 10 coinbases have 101+ confirmations.
    const b = await node.call<Balances>('getbalances');
    assert.deepEqual(b.mine, { trusted: 125, untrusted_pending: 0, immature: 100 * 12.5 });
    assert.equal((await node.call<Json[]>('listunspent')).length, 10);
    assert.equal((await node.call<Json>('getwalletinfo')).txcount, 110);
    const rescan = await node.call<Json>('rescanblockchain', 100, 105);
    assert.deepEqual(rescan, { start_height: 100, stop_height: 105 });
    assert.equal((await node.callError('rescanblockchain', 500)).message, 'Invalid start_height');
    assert.equal((await node.callError('rescanblockchain', 5, 3)).message, 'stop_height must be greater than start_height');
    await node.restart();
    assert.equal(await node.call('getbalance'), 125);
  }));

test("abortrescan and the RPC server stopping end a rescan early with Core's errors", () =>
  withWalletNode(async (node) => {
    assert.equal(await node.call('abortrescan'), false, 'no rescan under way');
    // A rescan runs in batches of blocks and gives other calls a turn in between.
    const rescan = node.callError('rescanblockchain', 0);
    assert.ok((await node.call<Json>('getwalletinfo')).scanning !== false);
    assert.equal(await node.call('abortrescan'), true);
    assert.equal(await node.call('abortrescan'), false, 'already stopping');
    let e = await rescan;
    assert.deepEqual([e.code, e.message], [-1, 'Rescan aborted.']);
    assert.equal((await node.call<Json>('getwalletinfo')).scanning, false);

    // An import's rescan, stopped by the server shutting down.
    const importing = node.callError('importprivkey', FIXTURE_KEY_WIF, 'fixture');
    node.registry.interrupt();
    e = await importing;
    assert.deepEqual([e.code, e.message], [-1, 'Rescan aborted by user.']);
    await node.restart();
    // The key was imported; a full rescan finds its coins.
    assert.deepEqual(await node.call<Json>('rescanblockchain'), { start_height: 0, stop_height: 110 });
    assert.equal(await node.call('getbalance'), 125);
  }));

test('a wallet that was down catches up: blocks it missed, and a reorg it missed', () =>
  withWalletNode(async (node) => {
    const address = await node.call<string>('getnewaddress');
    const tx = payment(node, 2, address, 1);
    accepted(node.fixture.mempool.accept(tx));
    const [mined] = await node.mine(1, FOREIGN);
    node.wallet.close();
    const { chain } = node.fixture;
    // While the wallet is away, the block with its payment is replaced and a block pays it.
    await chain.invalidateBlock(mined);
    const r = await chain.processBlock(nextBlock(chain, { payTo: addressToScript(address, REGTEST.address) }));
    assert.equal(r.status, 'accepted');
    await node.restart();
    const gt = await node.call<Json>('gettransaction', tx.txidHex);
    assert.equal(gt.confirmations, 0);
    const b = await node.call<Balances>('getbalances');
    assert.equal(b.mine.immature, 12.5);
    assert.equal(b.lastprocessedblock.height, 111);
  }));

test('watch-only coins are reported apart', () =>
  withWalletNode(async (node) => {
    await node.call('importaddress', FOREIGN, 'watched', false);
    const tx = payment(node, 3, FOREIGN, 2);
    accepted(node.fixture.mempool.accept(tx));
    await node.mine(1, OTHER);
    const b = await node.call<Balances>('getbalances');
    assert.deepEqual(b.watchonly, { trusted: 2, untrusted_pending: 0, immature: 0 });
    assert.equal(await node.call('getbalance'), 0);
    assert.equal(await node.call('getbalance', '*', 0, true), 2);
    const [coin] = await node.call<Json[]>('listunspent', 1, 9999999, [FOREIGN]);
    assert.deepEqual([coin.spendable, coin.solvable, coin.amount], [false, false, 2]);
    assert.deepEqual(await node.call('listtransactions'), []);
    const [entry] = await node.call<Json[]>('listtransactions', '*', 10, 0, true);
    assert.deepEqual([entry.involvesWatchonly, entry.amount], [true, 2]);
  }));

test('listsinceblock lists what happened after a block, and what a reorg removed', () =>
  withWalletNode(async (node) => {
    const address = await node.call<string>('getnewaddress');
    const before = await node.call<string>('getbestblockhash');
    const tx = payment(node, 4, address, 1);
    accepted(node.fixture.mempool.accept(tx));
    const [mined] = await node.mine(1, FOREIGN);
    let since = await node.call<{ transactions: Json[]; removed: Json[]; lastblock: string }>('listsinceblock', before);
    assert.deepEqual(
      since.transactions.map((t) => t.txid),
      [tx.txidHex],
    );
    assert.equal(since.lastblock, mined);
    since = await node.call('listsinceblock', mined);
    assert.deepEqual(since.transactions, []);
    await node.call('invalidateblock', mined);
    await node.mine(2, FOREIGN);
    since = await node.call('listsinceblock', mined);
    assert.deepEqual(
      since.removed.map((t) => t.txid),
      [tx.txidHex],
    );
    assert.equal((await node.callError('listsinceblock', '11'.repeat(32))).code, -5);
  }));
