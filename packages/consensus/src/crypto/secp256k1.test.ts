import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256d } from './hash.ts';
import { ecdsaSign, ecdsaSignLowR, ecdsaVerify, publicKeyCreate, signatureToDER } from './secp256k1.ts';
import { fromHex, toHex } from '../encoding/hex.ts';

// Bitcoin Core key_tests.cpp: strSecret1 (5HxWvvfubhXpYYpS3tJkw6fq9jE9j18THftkZjHHfmFiWtmAbrj).
const KEY1 = fromHex('12b004fff7f4b69ef8650e767f18f11ede158148b425660723b9f9a66e61f747');
const message = (text: string) => sha256d(new TextEncoder().encode(text));

test("low-r signing reproduces Core's deterministic signature when RFC 6979 already gives a low r", () => {
  const sig = ecdsaSignLowR(message('Very deterministic message'), KEY1);
  assert.equal(
    toHex(signatureToDER(sig)),
    '304402205dbbddda71772d95ce91cd2d14b592cfbc1dd0aabd6a394b6c2d377bbe59d31d022014ddda21494a4e221f0824f0b8b924c43fa43c0ad57dccdaa11f81a6bd4582f6',
  );
});

test('low-r signing grinds high r away: every signature is valid, deterministic and at most 70 bytes of DER', () => {
  const pub = publicKeyCreate(KEY1, true);
  let ground = 0;
  let short = 0;
  // Core's key_signature_tests: 256 messages, none above 70 bytes, some below.
  for (let i = 0; i < 256; i++) {
    const hash = message(`A message to be signed${i}`);
    const sig = ecdsaSignLowR(hash, KEY1);
    assert.ok(sig[0] < 0x80, `message ${i}: r has its top bit set`);
    assert.ok(ecdsaVerify(sig, hash, pub), `message ${i}: does not verify`);
    assert.deepEqual(ecdsaSignLowR(hash, KEY1), sig);
    const der = signatureToDER(sig);
    assert.ok(der.length <= 70 && der[3] <= 32, `message ${i}: ${der.length} bytes`);
    if (der.length < 70) short++;
    const plain = ecdsaSign(hash, KEY1).signature;
    if (plain[0] >= 0x80) ground++;
    else assert.deepEqual(sig, plain, 'a low r from plain RFC 6979 is kept');
  }
  assert.ok(ground > 64, `only ${ground} of 256 plain signatures had a high r`);
  assert.ok(short > 0);
});

test('ecdsaVerify is a plain false for anything the native verifier cannot take or parse', () => {
  const hash = message('a message');
  const pub = publicKeyCreate(KEY1, true);
  const sig = ecdsaSign(hash, KEY1).signature;
  assert.equal(ecdsaVerify(sig, hash, pub), true, 'the valid signature');
  assert.equal(ecdsaVerify(sig.subarray(0, 63), hash, pub), false, '63-byte signature');
  assert.equal(ecdsaVerify(sig, hash.subarray(0, 31), pub), false, '31-byte message');
  assert.equal(ecdsaVerify(sig, hash, pub.subarray(0, 32)), false, '32-byte key');
  assert.equal(ecdsaVerify(sig, hash, Uint8Array.from([0x02, ...new Uint8Array(32).fill(0xff)])), false, 'key off the curve');
  assert.equal(ecdsaVerify(new Uint8Array(64).fill(0xff), hash, pub), false, 'r and s above the order');
  assert.equal(ecdsaVerify(sig, message('another message'), pub), false, 'another message');
});
