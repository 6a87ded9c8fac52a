import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BasicAuth } from './auth.ts';
import { basicAuth } from './test-client.ts';

test('Basic credentials are checked as Core does', () => {
  const auth = new BasicAuth([
    { user: 'alice', password: 'pw' },
    { user: '__cookie__', password: 'ab'.repeat(32) },
  ]);
  assert.ok(auth.check(basicAuth('alice', 'pw')));
  assert.ok(auth.check(`Basic   ${Buffer.from('alice:pw').toString('base64')}  `), 'surrounding blanks are trimmed');
  assert.ok(auth.check(basicAuth('__cookie__', 'ab'.repeat(32))));
  assert.ok(auth.check(basicAuth('alice', 'pw')), 'a remembered header still passes');
  for (const header of [
    basicAuth('alice', 'pw '),
    basicAuth('alice', 'p'),
    basicAuth('alice:pw', ''),
    'Basic',
    `basic ${Buffer.from('alice:pw').toString('base64')}`,
    `Basic ${Buffer.from('alice:pw').toString('base64')}!`,
    `Basic ${Buffer.from('alice:pw').toString('base64').replace(/=+$/, '')}`,
  ]) {
    assert.equal(auth.check(header), false, header);
  }
});

test('configurations that could never authenticate are refused', () => {
  assert.throws(() => new BasicAuth([]));
  assert.throws(() => new BasicAuth([{ user: 'a:b', password: 'c' }]));
  assert.throws(() => new BasicAuth([{ user: 'a', password: '' }]));
});
