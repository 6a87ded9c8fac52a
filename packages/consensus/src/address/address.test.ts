import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { bech32 } from '@scure/base';
import { hash160 } from '../crypto/hash.ts';
import { fromHex, toHex } from '../encoding/hex.ts';
import { AddressError, addressToScript, decodeAddress, encodeDestination, scriptToAddress, type AddressPrefixes } from './address.ts';
import { decodeWif, encodeWif } from './wif.ts';

const vectors = JSON.parse(readFileSync(new URL('./bip173-vectors.json', import.meta.url), 'utf8')) as {
  validBech32: string[];
  invalidBech32: [string, string][];
  validAddresses: [string, string][];
  bip173V1PlusRejectedByBip350: [string, string][];
  invalidAddresses: [string, string][];
};

// Bitcoin's own prefixes, so that the public vectors apply unchanged.
const btcMain: AddressPrefixes = { pubkeyHash: 0x00, scriptHash: 0x05, wif: 0x80, bech32: 'bc' };
const btcTest: AddressPrefixes = { pubkeyHash: 0x6f, scriptHash: 0xc4, wif: 0xef, bech32: 'tb' };
const netFor = (a: string) => (a.toLowerCase().startsWith('tb1') ? btcTest : btcMain);

test('BIP173 valid bech32 strings decode', () => {
  for (const s of vectors.validBech32) assert.ok(bech32.decodeUnsafe(s, 90), s);
});

test('BIP173 invalid bech32 strings are rejected', () => {
  for (const [s, why] of vectors.invalidBech32) assert.equal(bech32.decodeUnsafe(s, 90), undefined, why);
});

test('BIP173 valid segwit addresses map to their scripts and back', () => {
  for (const [addr, script] of vectors.validAddresses) {
    const net = netFor(addr);
    assert.equal(toHex(addressToScript(addr, net)), script, addr);
    assert.equal(scriptToAddress(fromHex(script), net), addr.toLowerCase());
  }
});

test('BIP173 v1+ bech32 addresses are rejected under BIP350 (they need bech32m)', () => {
  for (const [addr, script] of vectors.bip173V1PlusRejectedByBip350) {
    assert.throws(() => decodeAddress(addr, netFor(addr)), /Bech32m/, addr);
    // Re-encoding the same program yields the bech32m form, which does decode to the script.
    const m = scriptToAddress(fromHex(script), netFor(addr));
    assert.ok(m);
    assert.equal(toHex(addressToScript(m, netFor(addr))), script);
  }
});

test('BIP173 invalid segwit addresses are rejected', () => {
  for (const [addr, why] of vectors.invalidAddresses) {
    assert.throws(() => decodeAddress(addr, btcMain), AddressError, `${addr}: ${why}`);
    assert.throws(() => decodeAddress(addr, btcTest), AddressError, `${addr}: ${why}`);
  }
});

test('base58check P2PKH and P2SH addresses', () => {
  // Bitcoin wiki, "Technical background of version 1 Bitcoin addresses".
  const pubkey = fromHex('0250863ad64a87ae8a2fe83c1af1a8403cb53f53e486d8511dad8a04887e5b2352');
  const hash = hash160(pubkey);
  assert.equal(toHex(hash), 'f54a5851e9372b87810a8e60cdd2e7cfd80b6e31');
  assert.equal(encodeDestination({ type: 'pubkeyhash', hash }, btcMain), '1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAs');
  const p2pkh = decodeAddress('1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAs', btcMain);
  assert.equal(p2pkh.type, 'pubkeyhash');
  assert.equal(toHex(addressToScript('1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAs', btcMain)), '76a914f54a5851e9372b87810a8e60cdd2e7cfd80b6e3188ac');
  const p2sh = decodeAddress('3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', btcMain);
  assert.equal(p2sh.type, 'scripthash');
  assert.equal(encodeDestination(p2sh, btcMain), '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy');
  // Right checksum, wrong network.
  assert.throws(() => decodeAddress('1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAs', btcTest), /unsupported Base58/);
  // One character changed breaks the checksum.
  assert.throws(() => decodeAddress('1PMycacnJaSqwwJqjawXBErnLsZ7RkXUAt', btcMain), /checksum/);
  assert.throws(() => decodeAddress('', btcMain));
});

test('scripts without an address form have none', () => {
  assert.equal(scriptToAddress(fromHex('6a0401020304'), btcMain), null); // OP_RETURN
  assert.equal(scriptToAddress(fromHex('51'), btcMain), null);
});

test('WIF round trip (Bitcoin wiki example) and rejection of bad keys', () => {
  const wif = '5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTJ';
  const key = decodeWif(wif, btcMain);
  assert.equal(toHex(key.privateKey), '0c28fca386c7a227600b2fe50b7cae11ec86d3bf1fbe471be89827e19d72aa1d');
  assert.equal(key.compressed, false);
  assert.equal(encodeWif(key, btcMain), wif);
  const compressed = encodeWif({ ...key, compressed: true }, btcMain);
  assert.equal(decodeWif(compressed, btcMain).compressed, true);
  assert.throws(() => decodeWif(wif, btcTest), /Invalid private key/);
  assert.throws(() => decodeWif('5HueCGU8rMjxEXxiPuD5BDku4MkFqeZyd4dZ1jvhTVqvbTLvyTK', btcMain));
  const zero = encodeWif({ privateKey: new Uint8Array(32), compressed: true }, btcMain);
  assert.throws(() => decodeWif(zero, btcMain), /range/);
});
