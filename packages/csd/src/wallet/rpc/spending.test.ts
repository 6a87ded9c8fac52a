import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REGTEST, Transaction, encodeWif, fromHex, p2wpkhScript, scriptToAddress } from '@cs/consensus';
import { feeForSize } from '../../policy/feerate.ts';
import { withWalletNode, type WalletTestNode } from '../../../test/wallet-harness.ts';

type Json = Record<string, unknown>;

const FOREIGN = scriptToAddress(p2wpkhScript(new Uint8Array(20).fill(0xee)), REGTEST.address)!;
const FOREIGN2 = scriptToAddress(p2wpkhScript(new Uint8Array(20).fill(0xef)), REGTEST.address)!;
const FIXTURE_KEY_WIF = encodeWif({ privateKey: new Uint8Array(32).fill(7), compressed: true }, REGTEST.address);
/** The harness's -fallbackfee: 20,000 units/kvB. */
const FALLBACK = 20_000n;

/** Gives the wallet the fixture key: ten mature coinbases of 12.5 coins. */
async function fund(node: WalletTestNode): Promise<void> {
  await node.call('importprivkey', FIXTURE_KEY_WIF, '', true);
  assert.equal(await node.call('getbalance'), 125);
}

/**
 * The size the wallet paid for: signatures are ground to a low r and sized at 71 bytes, but a
 * short r or s (1 in 128) makes one a byte or two shorter on the wire.
 */
function plannedVsize(tx: Transaction): number {
  const shortfall = tx.inputs.reduce((n, input) => n + (input.witness.length === 2 ? 71 - input.witness[0].length : 0), 0);
  return Math.ceil((tx.weight + shortfall) / 4);
}

function mempoolTx(node: WalletTestNode, txid: string): { tx: Transaction; fee: bigint } {
  const entry = node.fixture.mempool.get(txid);
  assert.ok(entry, `${txid} is not in the mempool`);
  return { tx: entry.tx, fee: entry.fee };
}

test('sendtoaddress pays, makes change to a fresh change address and pays the fee rate exactly', () =>
  withWalletNode(async (node) => {
    await fund(node);
    const txid = await node.call<string>('sendtoaddress', FOREIGN, 1, 'rent', 'landlord');
    const { tx, fee } = mempoolTx(node, txid);
    // Broadcast with relay, as Core's wallet does: unbroadcast until a peer takes it.
    assert.deepEqual(node.fixture.mempool.unbroadcast(), [txid]);
    assert.equal(fee, feeForSize(FALLBACK, plannedVsize(tx)));
    assert.equal(tx.outputs.length, 2);
    const change = tx.outputs.find((o) => o.value !== 100_000_000n)!;
    const changeInfo = await node.call<Json>('getaddressinfo', scriptToAddress(change.scriptPubKey, REGTEST.address)!);
    assert.deepEqual([changeInfo.ischange, changeInfo.hdkeypath], [true, "m/84'/1'/0'/1/0"]);
    // Own change in the mempool is trusted at once.
    const b = await node.call<{ mine: Json }>('getbalances');
    assert.deepEqual(b.mine, { trusted: Number(12_400_000_000n - fee) / 1e8, untrusted_pending: 0, immature: 1250 });
    const gt = await node.call<Json>('gettransaction', txid);
    assert.deepEqual([gt.amount, gt.fee, gt.comment, gt.to, gt.confirmations, gt.trusted], [-1, -Number(fee) / 1e8, 'rent', 'landlord', 0, true]);
    assert.deepEqual(
      (gt.details as Json[]).map((d) => [d.category, d.address, d.amount]),
      [['send', FOREIGN, -1]],
    );
    assert.equal(tx.inputs[0].sequence, 0xfffffffd);
    // Anti-fee-sniping: the tip height, sometimes up to 99 blocks less.
    assert.ok(tx.locktime <= node.ctx.chain.height && tx.locktime > node.ctx.chain.height - 100);

    // The next send may spend that unconfirmed change.
    const second = await node.call<Json>('sendtoaddress', FOREIGN, 12, '', '', false, true, null, 'unset', true, null, true);
    assert.equal(second.fee_reason, 'Fallback fee');
    await node.mine(1, FOREIGN2);
    assert.equal((await node.call<Json>('gettransaction', txid)).confirmations, 1);
  }));

test('sendtoaddress: explicit fee rates, settxfee, subtracting the fee from the amount', () =>
  withWalletNode(async (node) => {
    await fund(node);
    const a = await node.call<string>('sendtoaddress', FOREIGN, 1, null, null, false, true, null, 'unset', true, 3);
    let { tx, fee } = mempoolTx(node, a);
    assert.equal(fee, feeForSize(3000n, plannedVsize(tx)));
    assert.equal(await node.call('settxfee', 0.0005), true);
    assert.equal((await node.call<Json>('getwalletinfo')).paytxfee, 0.0005);
    const b = await node.call<Json>('sendtoaddress', FOREIGN, 1, null, null, false, true, null, 'unset', true, null, true);
    ({ tx, fee } = mempoolTx(node, b.txid as string));
    assert.equal(fee, feeForSize(50_000n, plannedVsize(tx)));
    assert.equal(b.fee_reason, 'PayTxFee set');
    await node.call('settxfee', 0);

    const c = await node.call<string>('sendtoaddress', FOREIGN2, 2, null, null, true);
    ({ tx, fee } = mempoolTx(node, c));
    const paid = tx.outputs.find((o) => scriptToAddress(o.scriptPubKey, REGTEST.address) === FOREIGN2)!;
    // The recipient pays the fee but for the change output's share (Core's subtractfeefromamount).
    assert.equal(paid.value, 200_000_000n - (fee - feeForSize(FALLBACK, 31)));

    const both = await node.callError('sendtoaddress', FOREIGN, 1, null, null, false, true, 6, 'unset', true, 3);
    assert.equal(both.code, -8);
    const low = await node.callError('sendtoaddress', FOREIGN, 1, null, null, false, true, null, 'unset', true, 0.5);
    assert.deepEqual([low.code, low.message], [-6, 'Fee rate (0.500 units/vB) is lower than the minimum fee rate setting (1.000 units/vB)']);
    assert.equal((await node.callError('settxfee', 0.2)).code, -8);
  }));

test('errors: insufficient funds -6, invalid address -5, bad amounts -3, no fee estimate -6', () =>
  withWalletNode(
    async (node) => {
      const empty = await node.callError('sendtoaddress', FOREIGN, 1);
      assert.deepEqual([empty.code, empty.message], [-6, 'Insufficient funds']);
      await fund(node);
      assert.equal((await node.callError('sendtoaddress', FOREIGN, 126)).code, -6);
      const bad = await node.callError('sendtoaddress', 'csrt1qbogus', 1);
      assert.deepEqual([bad.code, bad.message], [-5, 'Invalid cs address: csrt1qbogus']);
      assert.equal((await node.callError('sendtoaddress', FOREIGN, 0)).code, -3);
      assert.equal((await node.callError('sendtoaddress', FOREIGN, 0.000001)).message, 'Transaction amount too small');
      assert.equal((await node.callError('sendmany', 'x', { [FOREIGN]: 1 })).code, -8);
      assert.equal((await node.callError('sendmany', '', { [FOREIGN]: -1 })).code, -3);
    },
    { fallbackFee: 20_000n },
  ));

test('without a fee estimate and without -fallbackfee sending fails as in Core', () =>
  withWalletNode(
    async (node) => {
      await fund(node);
      const e = await node.callError('sendtoaddress', FOREIGN, 1);
      assert.deepEqual([e.code, e.message], [-6, 'Fee estimation failed. Fallbackfee is disabled. Wait a few blocks or enable -fallbackfee.']);
      assert.match(await node.call<string>('sendtoaddress', FOREIGN, 1, null, null, false, true, null, 'unset', true, 2), /^[0-9a-f]{64}$/);
    },
    { fallbackFee: 0n },
  ));

test('sendmany pays several recipients in one transaction, some of them paying the fee', () =>
  withWalletNode(async (node) => {
    await fund(node);
    const own = await node.call<string>('getnewaddress');
    const txid = await node.call<string>('sendmany', '', { [FOREIGN]: 1, [FOREIGN2]: 2, [own]: 3 }, 1, 'payout', [FOREIGN, FOREIGN2]);
    const { tx, fee } = mempoolTx(node, txid);
    const value = (a: string) => tx.outputs.find((o) => scriptToAddress(o.scriptPubKey, REGTEST.address) === a)!.value;
    assert.equal(value(own), 300_000_000n);
    // As Core: the recipients pay the fee but for the change output's share, which the change pays.
    const changeFee = feeForSize(FALLBACK, 31);
    assert.equal(value(FOREIGN) + value(FOREIGN2), 300_000_000n - (fee - changeFee));
    assert.equal(value(FOREIGN2) - value(FOREIGN), 100_000_000n + ((fee - changeFee) % 2n));
    const entries = (await node.call<Json[]>('listtransactions')).filter((e) => e.txid === txid);
    assert.deepEqual(entries.map((e) => e.category).sort(), ['receive', 'send', 'send', 'send']);
    const dup = await node.callError('sendmany', '', { [FOREIGN]: 1, [FOREIGN.toUpperCase()]: 2 });
    assert.equal(dup.code, -8);
  }));

test('lockunspent keeps a coin out of coin selection, also across a restart', () =>
  withWalletNode(async (node) => {
    await fund(node);
    const coins = await node.call<Json[]>('listunspent');
    assert.equal(coins.length, 10);
    const locked = coins.slice(0, 9).map((c) => ({ txid: c.txid as string, vout: c.vout as number }));
    assert.equal(await node.call('lockunspent', false, locked), true);
    assert.equal((await node.call<Json[]>('listlockunspent')).length, 9);
    assert.equal((await node.call<Json[]>('listunspent')).length, 1);
    // Locked coins still count in the balance, as in Core.
    assert.equal(await node.call('getbalance'), 125);
    assert.equal((await node.callError('sendtoaddress', FOREIGN, 13)).code, -6);
    const again = await node.callError('lockunspent', false, [locked[0]]);
    assert.deepEqual([again.code, again.message], [-8, 'Invalid parameter, output already locked']);

    await node.restart();
    assert.deepEqual(
      (await node.call<Json[]>('listlockunspent')).map((c) => `${c.txid}:${c.vout}`).sort(),
      locked.map((c) => `${c.txid}:${c.vout}`).sort(),
    );
    const txid = await node.call<string>('sendtoaddress', FOREIGN, 5);
    const { tx } = mempoolTx(node, txid);
    const free = coins[9];
    assert.deepEqual(
      tx.inputs.map((i) => Buffer.from(i.prevout.txid).reverse().toString('hex')),
      [free.txid],
    );

    assert.equal(await node.call('lockunspent', true, [locked[0]]), true);
    assert.equal((await node.call<Json[]>('listlockunspent')).length, 8);
    assert.equal(await node.call('lockunspent', true), true);
    assert.deepEqual(await node.call('listlockunspent'), []);
    const unknown = await node.callError('lockunspent', false, [{ txid: '00'.repeat(32), vout: 0 }]);
    assert.equal(unknown.message, 'Invalid parameter, unknown transaction');
  }));

test('fundrawtransaction + signrawtransactionwithwallet + sendrawtransaction', () =>
  withWalletNode(async (node) => {
    await fund(node);
    const raw = await node.call<string>('createrawtransaction', [], { [FOREIGN]: 2 });
    const funded = await node.call<{ hex: string; fee: number; changepos: number }>('fundrawtransaction', raw, { fee_rate: 2 });
    const tx = Transaction.decode(fromHex(funded.hex));
    assert.equal(tx.outputs.length, 2);
    assert.ok(funded.changepos === 0 || funded.changepos === 1);
    const signed = await node.call<{ hex: string; complete: boolean }>('signrawtransactionwithwallet', funded.hex);
    assert.equal(signed.complete, true);
    const txid = await node.call<string>('sendrawtransaction', signed.hex);
    const { tx: sent, fee } = mempoolTx(node, txid);
    assert.equal(Number(fee) / 1e8, funded.fee);
    assert.equal(fee, feeForSize(2000n, plannedVsize(sent)));
    // The wallet learned of its own spend from the mempool.
    assert.equal((await node.call<Json>('gettransaction', txid)).amount, -2);

    const empty = await node.call<string>('createrawtransaction', [], { [FOREIGN]: 500 });
    const e = await node.callError('fundrawtransaction', empty);
    assert.deepEqual([e.code, e.message], [-4, 'Insufficient funds']);
    const unknownOption = await node.callError('fundrawtransaction', raw, { nonsense: 1 });
    assert.equal(unknownOption.code, -8);
  }));

test('signrawtransactionwithkey signs with the given keys only and reports inputs it cannot sign', () =>
  withWalletNode(async (node) => {
    const coin = node.fixture.coin(5);
    const txid = Buffer.from(coin.outpoint.txid).reverse().toString('hex');
    const raw = await node.call<string>('createrawtransaction', [{ txid, vout: 0 }], { [FOREIGN]: 12.4999 });
    const signed = await node.call<{ hex: string; complete: boolean }>('signrawtransactionwithkey', raw, [FIXTURE_KEY_WIF]);
    assert.equal(signed.complete, true);
    assert.match(await node.call<string>('sendrawtransaction', signed.hex), /^[0-9a-f]{64}$/);

    const other = encodeWif({ privateKey: new Uint8Array(32).fill(8), compressed: true }, REGTEST.address);
    const raw2 = await node.call<string>(
      'createrawtransaction',
      [{ txid: Buffer.from(node.fixture.coin(6).outpoint.txid).reverse().toString('hex'), vout: 0 }],
      { [FOREIGN]: 12 },
    );
    const partial = await node.call<{ complete: boolean; errors: Json[] }>('signrawtransactionwithkey', raw2, [other]);
    assert.equal(partial.complete, false);
    // Core's message for a P2WPKH input without its two witness items.
    assert.equal(partial.errors[0].error, 'Witness program hash mismatch');
    assert.equal((await node.callError('signrawtransactionwithkey', raw2, ['nope'])).code, -5);
    assert.equal((await node.callError('signrawtransactionwithkey', raw2, [other], null, 'ALLX')).code, -8);
  }));

test('a replaced wallet transaction can be abandoned; its coins are spendable again', () =>
  withWalletNode(async (node) => {
    await fund(node);
    const txid = await node.call<string>('sendtoaddress', FOREIGN, 1, null, null, false, true, null, 'unset', true, 1);
    const { tx } = mempoolTx(node, txid);
    // Replace it (full RBF) with a spend of the same inputs paying more fee.
    const inputs = tx.inputs.map((i) => ({ txid: Buffer.from(i.prevout.txid).reverse().toString('hex'), vout: i.prevout.vout }));
    const total = tx.outputs.reduce((s, o) => s + o.value, 0n);
    const raw = await node.call<string>('createrawtransaction', inputs, { [FOREIGN2]: Number(total - 100_000n) / 1e8 });
    const signed = await node.call<{ hex: string }>('signrawtransactionwithwallet', raw);
    const replacement = await node.call<string>('sendrawtransaction', signed.hex);
    assert.equal(node.fixture.mempool.has(txid), false);
    assert.deepEqual((await node.call<Json>('gettransaction', txid)).mempoolconflicts, [replacement]);
    assert.equal(await node.call('abandontransaction', txid), null);
    const [send] = (await node.call<Json[]>('listtransactions')).filter((e) => e.txid === txid && e.category === 'send');
    assert.equal(send.abandoned, true);
    assert.equal((await node.callError('abandontransaction', replacement)).message, 'Transaction not eligible for abandonment');
  }));
