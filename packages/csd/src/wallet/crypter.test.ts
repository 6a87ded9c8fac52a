import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createMasterKey, decryptMasterKey, encryptMasterKey, open, seal } from './crypter.ts';

test('the master key opens only with its passphrase; a new passphrase keeps the same key', async () => {
  const { masterKey, record } = await createMasterKey('correct horse');
  assert.equal(record.kdf.n, 1 << 15);
  assert.deepEqual(await decryptMasterKey(record, 'correct horse'), masterKey);
  assert.equal(await decryptMasterKey(record, 'wrong horse'), null);
  const changed = await encryptMasterKey(masterKey, 'battery staple');
  assert.notDeepEqual(changed.kdf.salt, record.kdf.salt);
  assert.deepEqual(await decryptMasterKey(changed, 'battery staple'), masterKey);
  assert.equal(await decryptMasterKey(changed, 'correct horse'), null);
});

test('sealed secrets are authenticated: another key, another label or a flipped bit fails to open', () => {
  const key = new Uint8Array(32).fill(1);
  const secret = new Uint8Array(32).fill(2);
  const box = seal(key, secret, Buffer.from('seed'));
  assert.deepEqual(open(key, box, Buffer.from('seed')), secret);
  assert.equal(open(new Uint8Array(32).fill(3), box, Buffer.from('seed')), null);
  assert.equal(open(key, box, Buffer.from('key')), null);
  const tampered = { ...box, data: box.data.map((b, i) => (i === 0 ? b ^ 1 : b)) };
  assert.equal(open(key, tampered, Buffer.from('seed')), null);
  // A fresh nonce each time: the same secret never seals to the same bytes.
  assert.notDeepEqual(seal(key, secret, Buffer.from('seed')).data, box.data);
});
