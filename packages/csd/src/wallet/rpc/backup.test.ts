import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REGTEST, encodeWif, hash160, p2shScript, scriptToAddress } from '@cs/consensus';
import { withWalletNode } from '../../../test/wallet-harness.ts';

type Json = Record<string, unknown>;

const FIXTURE_KEY_WIF = encodeWif({ privateKey: new Uint8Array(32).fill(7), compressed: true }, REGTEST.address);

test('backupwallet writes a copy that restorewallet loads into a new wallet, keys, history and counters included', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-wallet-backup-'));
  const file = join(dir, 'wallet.bak');
  const addresses: string[] = [];
  const keys: string[] = [];
  try {
    await withWalletNode(async (node) => {
      for (let i = 0; i < 3; i++) addresses.push(await node.call<string>('getnewaddress'));
      for (const a of addresses) keys.push(await node.call<string>('dumpprivkey', a));
      await node.call('importprivkey', FIXTURE_KEY_WIF, 'fixture');
      await node.call('lockunspent', false, [{ txid: (await node.call<Json[]>('listunspent'))[0].txid as string, vout: 0 }]);
      assert.equal(await node.call('backupwallet', file), null);
      // A directory as destination gets the default file name.
      assert.equal(await node.call('backupwallet', dir), null);
      const e = await node.callError('restorewallet', '', file);
      assert.equal(e.code, -36);
    });
    await withWalletNode(async (node) => {
      assert.equal((await node.callError('restorewallet', '', join(dir, 'missing'))).code, -8);
      writeFileSync(join(dir, 'junk'), 'not a backup');
      const junk = await node.callError('restorewallet', '', join(dir, 'junk'));
      assert.deepEqual([junk.code, junk.message], [-4, 'Wallet file verification failed: not a csd wallet backup']);

      assert.deepEqual(await node.call('restorewallet', '', file), { name: '' });
      assert.equal(await node.call('getbalance'), 125);
      for (let i = 0; i < 3; i++) assert.equal(await node.call('dumpprivkey', addresses[i]), keys[i]);
      assert.equal((await node.call<Json[]>('listlockunspent')).length, 1);
      const next = await node.call<string>('getnewaddress');
      assert.equal((await node.call<Json>('getaddressinfo', next)).hdkeypath, "m/84'/1'/0'/0/3");
      assert.deepEqual((await node.call<Json>('getaddressinfo', addresses[0])).labels, ['']);
      await node.restart();
      assert.equal(await node.call('getbalance'), 125);
    });
    await withWalletNode(async (node) => {
      assert.deepEqual(await node.call('restorewallet', '', join(dir, 'wallet.backup')), { name: '' });
      assert.equal(await node.call('dumpprivkey', addresses[2]), keys[2]);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('signmessage and verifymessage with legacy and bech32 addresses', () =>
  withWalletNode(async (node) => {
    for (const type of ['bech32', 'legacy']) {
      const address = await node.call<string>('getnewaddress', '', type);
      const sig = await node.call<string>('signmessage', address, 'hello cs');
      assert.equal(Buffer.from(sig, 'base64').length, 65);
      assert.equal(await node.call('verifymessage', address, sig, 'hello cs'), true);
      assert.equal(await node.call('verifymessage', address, sig, 'hello CS'), false);
      const other = await node.call<string>('getnewaddress', '', type);
      assert.equal(await node.call('verifymessage', other, sig, 'hello cs'), false);
    }
    const address = await node.call<string>('getnewaddress');
    assert.equal((await node.callError('verifymessage', address, 'not base64!', 'm')).code, -3);
    const p2sh = scriptToAddress(p2shScript(hash160(Uint8Array.of(0x51))), REGTEST.address)!;
    assert.equal((await node.callError('verifymessage', p2sh, 'AAAA', 'm')).code, -3);
    const noKey = await node.callError('signmessage', p2sh, 'm');
    assert.deepEqual([noKey.code, noKey.message], [-3, 'Address does not refer to key']);
    assert.equal((await node.callError('signmessage', 'nonsense', 'm')).code, -5);
    await node.call('encryptwallet', 'pw');
    assert.equal((await node.callError('signmessage', address, 'm')).code, -13);
  }));
