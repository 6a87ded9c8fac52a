import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Nonce1Allocator } from './nonce1.ts';

test('NONCE_1 is 4 bytes with the instance byte first, unique among live connections', () => {
  const n = new Nonce1Allocator(0xab);
  const seen = new Set<string>();
  for (let i = 0; i < 1000; i++) {
    const s = n.acquire(null, 0);
    assert.equal(s.nonce1.length, 4);
    assert.equal(s.nonce1[0], 0xab);
    assert.equal(s.sessionId, Buffer.from(s.nonce1).toString('hex'));
    assert.ok(!seen.has(s.sessionId));
    seen.add(s.sessionId);
  }
});

test('sessions resume until they expire; unknown and live ids get a new NONCE_1', () => {
  const n = new Nonce1Allocator(1);
  const a = n.acquire(null, 0);
  assert.notEqual(n.acquire(a.sessionId, 0).sessionId, a.sessionId, 'still live');
  n.release(a.sessionId, 1000);
  assert.equal(n.acquire(a.sessionId, 500).sessionId, a.sessionId, 'resumed');
  n.release(a.sessionId, 1000);
  n.expire(1000);
  assert.notEqual(n.acquire(a.sessionId, 1000).sessionId, a.sessionId, 'expired');
  assert.notEqual(n.acquire('deadbeef', 0).sessionId, 'deadbeef');
});
