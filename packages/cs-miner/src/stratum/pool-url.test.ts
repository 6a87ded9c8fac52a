import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePoolUrl } from './pool-url.ts';

test('pool addresses as miners write them', () => {
  assert.deepEqual(parsePoolUrl('stratum+tcp://pool.example:3333'), {
    tls: false,
    host: 'pool.example',
    port: 3333,
    text: 'stratum+tcp://pool.example:3333',
  });
  assert.deepEqual(parsePoolUrl('stratum+ssl://10.0.0.1:3335/'), { tls: true, host: '10.0.0.1', port: 3335, text: 'stratum+ssl://10.0.0.1:3335' });
  assert.deepEqual(parsePoolUrl('127.0.0.1:3332'), { tls: false, host: '127.0.0.1', port: 3332, text: 'stratum+tcp://127.0.0.1:3332' });
  assert.deepEqual(parsePoolUrl('tls://[::1]:443'), { tls: true, host: '::1', port: 443, text: 'stratum+ssl://[::1]:443' });
  for (const bad of ['http://pool:80', 'pool.example', 'stratum+tcp://pool:0', 'stratum+tcp://pool:70000', 'stratum+tcp://:3333']) {
    assert.throws(() => parsePoolUrl(bad), RangeError, bad);
  }
});
