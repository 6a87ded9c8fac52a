import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromHex, sha256d, toHex } from '@cs/consensus';
import { ExtendedKey, HARDENED, formatPath } from './hd.ts';

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base58check, only to compare against the BIP32 vectors' xprv/xpub strings. */
function base58check(payload: Uint8Array): string {
  const bytes = Buffer.concat([payload, sha256d(payload).subarray(0, 4)]);
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = ALPHABET[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

function serialize(key: ExtendedKey, isPrivate: boolean): string {
  const b = Buffer.alloc(78);
  b.writeUInt32BE(isPrivate ? 0x0488ade4 : 0x0488b21e, 0);
  b[4] = key.depth;
  b.writeUInt32BE(key.parentFingerprint, 5);
  b.writeUInt32BE(key.index, 9);
  b.set(key.chainCode, 13);
  if (isPrivate) b.set(key.privateKey!, 46);
  else b.set(key.publicKey, 45);
  return base58check(b);
}

// BIP32 test vector 1.
const SEED = fromHex('000102030405060708090a0b0c0d0e0f');
const VECTOR: [number[], string, string][] = [
  [
    [],
    'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi',
    'xpub661MyMwAqRbcFtXgS5sYJABqqG9YLmC4Q1Rdap9gSE8NqtwybGhePY2gZ29ESFjqJoCu1Rupje8YtGqsefD265TMg7usUDFdp6W1EGMcet8',
  ],
  [
    [HARDENED],
    'xprv9uHRZZhk6KAJC1avXpDAp4MDc3sQKNxDiPvvkX8Br5ngLNv1TxvUxt4cV1rGL5hj6KCesnDYUhd7oWgT11eZG7XnxHrnYeSvkzY7d2bhkJ7',
    'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw',
  ],
  [
    [HARDENED, 1],
    'xprv9wTYmMFdV23N2TdNG573QoEsfRrWKQgWeibmLntzniatZvR9BmLnvSxqu53Kw1UmYPxLgboyZQaXwTCg8MSY3H2EU4pWcQDnRnrVA1xe8fs',
    'xpub6ASuArnXKPbfEwhqN6e3mwBcDTgzisQN1wXN9BJcM47sSikHjJf3UFHKkNAWbWMiGj7Wf5uMash7SyYq527Hqck2AxYysAA7xmALppuCkwQ',
  ],
  [
    [HARDENED, 1, HARDENED + 2, 2, 1000000000],
    'xprvA41z7zogVVwxVSgdKUHDy1SKmdb533PjDz7J6N6mV6uS3ze1ai8FHa8kmHScGpWmj4WggLyQjgPie1rFSruoUihUZREPSL39UNdE3BBDu76',
    'xpub6H1LXWLaKsWFhvm6RVpEL9P4KfRZSW7abD2ttkWP3SSQvnyA8FSVqNTEcYFgJS2UaFcxupHiYkro49S8yGasTvXEYBVPamhGW6cFJodrTHy',
  ],
];

test('BIP32 test vector 1: private derivation and serialization', () => {
  const master = ExtendedKey.fromSeed(SEED);
  assert.equal(toHex(master.chainCode), '873dff81c02f525623fd1fe5167eac3a55a049de3d314bb42ee227ffed37d508');
  assert.equal(toHex(master.privateKey!), 'e8f32e723decf4051aefac8e2c93c9c5b214313817cdb01a1494b917c8436b35');
  for (const [path, xprv, xpub] of VECTOR) {
    const key = master.derivePath(path);
    assert.equal(serialize(key, true), xprv, formatPath(path));
    assert.equal(serialize(key, false), xpub, formatPath(path));
  }
});

test('public derivation from a neutered parent matches private derivation', () => {
  const account = ExtendedKey.fromSeed(SEED).derivePath([HARDENED + 84, HARDENED + 1, HARDENED]);
  const neutered = ExtendedKey.fromPublic(account.publicKey, account.chainCode, account.depth, account.parentFingerprint, account.index);
  const viaPublic = neutered.derivePath([0, 7]);
  const viaPrivate = account.derivePath([0, 7]);
  assert.deepEqual(viaPublic.publicKey, viaPrivate.publicKey);
  assert.deepEqual(viaPublic.chainCode, viaPrivate.chainCode);
  assert.equal(viaPublic.privateKey, null);
  assert.throws(() => neutered.derive(HARDENED), /private parent/);
});

test('paths print with apostrophes for hardened steps', () => {
  assert.equal(formatPath([HARDENED + 84, HARDENED + 1, HARDENED, 0, 5]), "m/84'/1'/0'/0/5");
  assert.equal(formatPath([]), 'm');
});
