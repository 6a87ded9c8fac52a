import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REGTEST, encodeWif, p2wpkhScript, scriptToAddress, toHex } from '@cs/consensus';
import { WalletStore } from '../store.ts';
import { withWalletNode } from '../../../test/wallet-harness.ts';

type Json = Record<string, unknown>;

const FOREIGN = scriptToAddress(p2wpkhScript(new Uint8Array(20).fill(0xee)), REGTEST.address)!;
const FIXTURE_KEY = new Uint8Array(32).fill(7);
const FIXTURE_KEY_WIF = encodeWif({ privateKey: FIXTURE_KEY, compressed: true }, REGTEST.address);

test('encrypt, lock, fail to send, unlock, send; passphrase change; still locked after a restart', () =>
  withWalletNode(async (node) => {
    await node.call('importprivkey', FIXTURE_KEY_WIF);
    const before = await node.call<string>('getnewaddress');
    const wif = await node.call<string>('dumpprivkey', before);
    assert.equal((await node.callError('walletlock')).code, -15);
    assert.equal((await node.callError('walletpassphrase', 'x', 10)).code, -15);
    assert.equal((await node.callError('encryptwallet', '')).code, -8);

    assert.match(await node.call<string>('encryptwallet', 'correct horse'), /^wallet encrypted/);
    assert.equal((await node.callError('encryptwallet', 'again')).code, -15);
    assert.equal((await node.call<Json>('getwalletinfo')).unlocked_until, 0);

    // Secrets at rest are sealed: neither the seed nor the imported key appears in any record.
    const store = new WalletStore(node.fixture.h.db);
    const stored = store.load();
    assert.equal(stored.seed.secret.kind, 'sealed');
    assert.ok([...stored.keys.values()].every((k) => k.record.secret.kind === 'sealed'));
    assert.ok(store.records().every((r) => !r.value.toString('hex').includes(toHex(FIXTURE_KEY))));

    // Locked: addresses still come, keys and sends need the passphrase.
    const after = await node.call<string>('getnewaddress');
    assert.notEqual(after, before);
    const locked = await node.callError('sendtoaddress', FOREIGN, 1);
    assert.deepEqual([locked.code, locked.message], [-13, 'Error: Please enter the wallet passphrase with walletpassphrase first.']);
    assert.equal((await node.callError('dumpprivkey', before)).code, -13);
    assert.equal((await node.callError('importprivkey', FIXTURE_KEY_WIF)).code, -13);
    assert.equal((await node.callError('signrawtransactionwithwallet', '0200000000010000000000000000000000')).code, -22);
    const wrong = await node.callError('walletpassphrase', 'wrong horse', 10);
    assert.deepEqual([wrong.code, wrong.message], [-14, 'Error: The wallet passphrase entered was incorrect.']);
    assert.equal((await node.callError('walletpassphrase', 'correct horse', -1)).code, -8);

    assert.equal(await node.call('walletpassphrase', 'correct horse', 60), null);
    assert.ok(((await node.call<Json>('getwalletinfo')).unlocked_until as number) > 0);
    assert.equal(await node.call('dumpprivkey', before), wif);
    assert.match(await node.call<string>('sendtoaddress', FOREIGN, 1), /^[0-9a-f]{64}$/);
    assert.equal(await node.call('walletlock'), null);
    assert.equal((await node.callError('sendtoaddress', FOREIGN, 1)).code, -13);

    assert.equal((await node.callError('walletpassphrasechange', 'wrong horse', 'battery staple')).code, -14);
    assert.equal(await node.call('walletpassphrasechange', 'correct horse', 'battery staple'), null);
    assert.equal((await node.callError('walletpassphrase', 'correct horse', 10)).code, -14);

    await node.restart();
    assert.equal((await node.callError('sendtoaddress', FOREIGN, 1)).code, -13);
    await node.call('walletpassphrase', 'battery staple', 60);
    assert.equal(await node.call('dumpprivkey', before), wif);
    // A key imported while unlocked is stored sealed too.
    await node.call('importprivkey', encodeWif({ privateKey: new Uint8Array(32).fill(9), compressed: true }, REGTEST.address), '', false);
    assert.ok(store.records().every((r) => !r.value.toString('hex').includes('09'.repeat(32))));
  }));

test('the unlock ends by itself after the timeout', () =>
  withWalletNode(async (node) => {
    await node.call('encryptwallet', 'pass');
    await node.call('walletpassphrase', 'pass', 1);
    assert.equal(node.wallet.encryption.locked, false);
    // The timer fires after a second; a loaded machine may run it late, so wait for it to happen.
    const deadline = Date.now() + 10_000;
    while (!node.wallet.encryption.locked && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal(node.wallet.encryption.locked, true);
  }));
