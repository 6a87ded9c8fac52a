import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hash160, publicKeyCreate } from '@cs/consensus';
import { decodeBase64Strict, recoverMessageKey, signMessage, verifyMessage } from './message.ts';

const MAGIC = 'cs Signed Message:\n';
const KEY = new Uint8Array(32).fill(0x21);

test('signed messages recover the signing key, compressed or not, and nothing else', () => {
  for (const compressed of [true, false]) {
    const pub = publicKeyCreate(KEY, compressed);
    const sig = decodeBase64Strict(signMessage(KEY, compressed, MAGIC, 'pay the miners'))!;
    assert.equal(sig.length, 65);
    assert.equal(sig[0] >= 31, compressed);
    assert.deepEqual(recoverMessageKey(sig, MAGIC, 'pay the miners'), pub);
    assert.equal(verifyMessage(sig, hash160(pub), MAGIC, 'pay the miners'), true);
    assert.equal(verifyMessage(sig, hash160(pub), MAGIC, 'pay the miner'), false);
    // The magic string is part of the digest: Bitcoin's prefix gives another key.
    assert.equal(verifyMessage(sig, hash160(pub), 'Bitcoin Signed Message:\n', 'pay the miners'), false);
  }
  assert.equal(decodeBase64Strict('not base64!'), null);
  assert.equal(recoverMessageKey(new Uint8Array(64), MAGIC, 'x'), null);
});
