import assert from 'node:assert/strict';
import { Socket } from 'node:net';
import { test } from 'node:test';
import { JobAudience } from './audience.ts';
import { Connection } from './connection.ts';

const PORT = { solo: false, difficulty: '1' };

/** A connection (on an unconnected socket: nothing is written here) whose first authorize fixed `payout`. */
function authorized(payout: string | null): Connection {
  const c = new Connection(new Socket(), '127.0.0.1', PORT, 1n, null, 0);
  c.payout = payout;
  return c;
}

test('pool miners are listed by socket, solo miners by connection, each once', () => {
  const audience = new JobAudience();
  const [a, b] = [authorized(''), authorized('')];
  const solo = authorized('t1solo');
  for (const c of [a, b, solo, a, solo]) audience.add(c);
  assert.deepEqual(audience.pool, [a.socket, b.socket]);
  assert.deepEqual([...audience.solo], [solo]);
  assert.throws(() => audience.add(authorized(null)), /once its payout is fixed/);
});

test('a closed connection leaves; the last pool socket takes its place', () => {
  const audience = new JobAudience();
  const miners = [authorized(''), authorized(''), authorized(''), authorized('')];
  const solo = authorized('t1solo');
  for (const c of [...miners, solo]) audience.add(c);
  audience.remove(miners[1]);
  assert.deepEqual(audience.pool, [miners[0].socket, miners[3].socket, miners[2].socket]);
  // The moved entry is found at its new place: removing it takes the right socket out.
  audience.remove(miners[3]);
  assert.deepEqual(audience.pool, [miners[0].socket, miners[2].socket]);
  audience.remove(miners[2]);
  audience.remove(miners[2]);
  audience.remove(solo);
  assert.deepEqual(audience.pool, [miners[0].socket]);
  assert.equal(audience.solo.size, 0);
  audience.remove(miners[0]);
  assert.equal(audience.pool.length, 0);
});

test('a connection that ended or closed while its authorize waited for the node never joins', () => {
  const audience = new JobAudience();
  const [pool, solo] = [authorized(''), authorized('t1solo')];
  pool.closed = true;
  solo.closed = true;
  audience.add(pool);
  audience.add(solo);
  assert.equal(audience.pool.length, 0);
  assert.equal(audience.solo.size, 0);
});
