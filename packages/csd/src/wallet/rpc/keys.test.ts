import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REGTEST, encodeWif, hash160, p2pkhScript, p2wpkhScript, publicKeyCreate, scriptToAddress, toHex } from '@cs/consensus';
import { withWalletNode } from '../../../test/wallet-harness.ts';

type Info = Record<string, unknown>;

const KEY = new Uint8Array(32).fill(0x42);
const PUB = publicKeyCreate(KEY, true);
const WIF = encodeWif({ privateKey: KEY, compressed: true }, REGTEST.address);
const KEY_P2WPKH = scriptToAddress(p2wpkhScript(hash160(PUB)), REGTEST.address)!;
const KEY_P2PKH = scriptToAddress(p2pkhScript(hash160(PUB)), REGTEST.address)!;

test('getnewaddress hands out BIP84 bech32 and BIP44 legacy addresses, never the same one twice, also across restarts', () =>
  withWalletNode(async (node) => {
    const a = await node.call<string>('getnewaddress');
    const b = await node.call<string>('getnewaddress', 'savings');
    const legacy = await node.call<string>('getnewaddress', '', 'legacy');
    assert.match(a, /^csrt1q/);
    assert.notEqual(a, b);
    assert.match(legacy, /^c/);

    const info = await node.call<Info>('getaddressinfo', a);
    assert.equal(info.ismine, true);
    assert.equal(info.solvable, true);
    assert.equal(info.iswatchonly, false);
    assert.equal(info.iswitness, true);
    assert.equal(info.witness_version, 0);
    assert.equal(info.hdkeypath, "m/84'/1'/0'/0/0");
    assert.equal(info.ischange, false);
    assert.deepEqual(info.labels, ['']);
    assert.equal((await node.call<Info>('getaddressinfo', b)).hdkeypath, "m/84'/1'/0'/0/1");
    assert.deepEqual((await node.call<Info>('getaddressinfo', b)).labels, ['savings']);
    const legacyInfo = await node.call<Info>('getaddressinfo', legacy);
    assert.equal(legacyInfo.hdkeypath, "m/44'/1'/0'/0/0");
    assert.equal(legacyInfo.iswitness, false);

    const change = await node.call<string>('getrawchangeaddress');
    const changeInfo = await node.call<Info>('getaddressinfo', change);
    assert.equal(changeInfo.hdkeypath, "m/84'/1'/0'/1/0");
    assert.equal(changeInfo.ischange, true);
    assert.deepEqual(changeInfo.labels, []);

    await node.restart();
    const c = await node.call<string>('getnewaddress');
    assert.equal((await node.call<Info>('getaddressinfo', c)).hdkeypath, "m/84'/1'/0'/0/2");
    assert.ok(![a, b].includes(c));
  }));

test('getnewaddress: address types and labels are checked as in Core', () =>
  withWalletNode(async (node) => {
    const e1 = await node.callError('getnewaddress', '', 'p2sh-segwit');
    assert.deepEqual([e1.code, e1.message], [-12, 'Error: No p2sh-segwit addresses available.']);
    const e2 = await node.callError('getnewaddress', '', 'nonsense');
    assert.deepEqual([e2.code, e2.message], [-5, "Unknown address type 'nonsense'"]);
    assert.equal((await node.callError('getnewaddress', '*')).code, -11);
    const other = await node.callError('getaddressinfo', 'notanaddress');
    assert.equal(other.code, -5);
    // Another wallet's address is valid but not ours.
    const foreign = await node.call<Info>('getaddressinfo', scriptToAddress(p2wpkhScript(new Uint8Array(20).fill(9)), REGTEST.address)!);
    assert.deepEqual([foreign.ismine, foreign.iswatchonly, foreign.labels], [false, false, []]);
  }));

test('importprivkey makes both addresses of the key the wallet’s; dumpprivkey gives the key back', () =>
  withWalletNode(async (node) => {
    assert.equal(await node.call('importprivkey', WIF, 'imported', false), null);
    for (const address of [KEY_P2WPKH, KEY_P2PKH]) {
      const info = await node.call<Info>('getaddressinfo', address);
      assert.equal(info.ismine, true, address);
      assert.equal(info.pubkey, toHex(PUB));
      assert.equal(info.hdkeypath, undefined);
    }
    assert.deepEqual((await node.call<Info>('getaddressinfo', KEY_P2WPKH)).labels, ['imported']);
    assert.equal(await node.call('dumpprivkey', KEY_P2PKH), WIF);
    assert.equal(await node.call('dumpprivkey', KEY_P2WPKH), WIF);
    // An HD key dumps too, and imports back as the same key.
    const hd = await node.call<string>('getnewaddress');
    const hdWif = await node.call<string>('dumpprivkey', hd);
    assert.equal(await node.call('importprivkey', hdWif, '', false), null);
    assert.equal((await node.call<Info>('getaddressinfo', hd)).hdkeypath, "m/84'/1'/0'/0/0");

    const bad = await node.callError('importprivkey', 'garbage');
    assert.deepEqual([bad.code, bad.message], [-5, 'Invalid private key encoding']);
    const unknown = await node.callError('dumpprivkey', scriptToAddress(p2wpkhScript(new Uint8Array(20).fill(3)), REGTEST.address)!);
    assert.equal(unknown.code, -4);
    assert.equal((await node.callError('dumpprivkey', 'nonsense')).code, -5);

    await node.restart();
    assert.equal(await node.call('dumpprivkey', KEY_P2WPKH), WIF);
  }));

test('importaddress watches an address without its key', () =>
  withWalletNode(async (node) => {
    const watched = scriptToAddress(p2wpkhScript(new Uint8Array(20).fill(5)), REGTEST.address)!;
    assert.equal(await node.call('importaddress', watched, 'cold', false), null);
    const info = await node.call<Info>('getaddressinfo', watched);
    assert.deepEqual([info.ismine, info.iswatchonly, info.solvable, info.labels], [false, true, false, ['cold']]);
    const mine = await node.call<string>('getnewaddress');
    const e = await node.callError('importaddress', mine);
    assert.deepEqual([e.code, e.message], [-4, 'The wallet already contains the private key for this address or script']);
    assert.equal((await node.callError('importaddress', 'zz')).code, -5);
  }));

test('calls for another wallet name are refused with -18', () =>
  withWalletNode(async (node) => {
    assert.match(await node.callAt<string>('/wallet/', 'getnewaddress'), /^csrt1/);
    await assert.rejects(node.callAt('/wallet/other', 'getnewaddress'), { code: -18, message: 'Requested wallet does not exist or is not loaded' });
  }));

test('every wallet method documents itself; help lists them under == Wallet ==', () =>
  withWalletNode(async (node) => {
    const index = node.registry.help();
    const section = index.split('== Wallet ==')[1]?.split('==')[0] ?? '';
    const names = section
      .split('\n')
      .map((l) => l.split(' ')[0])
      .filter(Boolean);
    assert.equal(names.length, 32, names.join(' '));
    for (const name of names) assert.match(node.registry.help(name), new RegExp(`^${name}( |\\n)`));
  }));
