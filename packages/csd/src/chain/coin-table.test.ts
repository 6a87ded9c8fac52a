import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoinTable, KEY_BYTES } from './coin-table.ts';

/** A small deterministic generator, so that a failure replays. */
function xorshift(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

test('the coin table agrees with a Map through random sets, deletes, growth and wrap-around', () => {
  const random = xorshift(7);
  const table = new CoinTable();
  const model = new Map<string, { state: number; value: string }>();
  // Few distinct keys, so that sets replace, deletes hit, and probe runs wrap past the last slot.
  const keys = Array.from({ length: 3000 }, () => Uint8Array.from({ length: KEY_BYTES }, () => Math.floor(random() * 256)));
  // Some keys share their txid and differ only in the output index, as a transaction's outputs do.
  for (let i = 1; i < 300; i++) keys[i] = Uint8Array.from([...keys[0].subarray(0, 32), 0, 0, i >> 8, i & 0xff]);
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
  for (let step = 0; step < 200_000; step++) {
    const key = keys[Math.floor(random() * (step < 100_000 ? keys.length : 1200))];
    const r = random();
    if (r < 0.45) {
      // Values up to 80 bytes: past the 50 a slot holds.
      const value = Uint8Array.from({ length: Math.floor(random() * 80) }, () => Math.floor(random() * 256));
      const state = 1 + Math.floor(random() * 255);
      assert.equal(table.set(key, state, value), model.get(hex(key))?.state ?? 0, `set at step ${step}`);
      model.set(hex(key), { state, value: hex(value) });
    } else if (r < 0.7) {
      assert.equal(table.delete(key), model.delete(hex(key)), `delete at step ${step}`);
    } else if (r < 0.9) {
      // Few states, so that deleteIf matches as often as it does not.
      const state = 1 + Math.floor(random() * 2);
      const had = model.get(hex(key))?.state ?? 0;
      assert.equal(table.deleteIf(key, state), had, `deleteIf at step ${step}`);
      if (had === state) model.delete(hex(key));
    } else if (model.has(hex(key))) {
      const state = 1 + Math.floor(random() * 2);
      table.setState(key, state);
      model.get(hex(key))!.state = state;
    }
    if (step % 997 === 0 || step === 199_999) {
      assert.equal(table.size, model.size, `size at step ${step}`);
      for (const k of keys) {
        const want = model.get(hex(k));
        assert.equal(table.find(k), want?.state ?? 0, `state at step ${step}`);
        assert.equal(table.value(k) && hex(table.value(k)!), want?.value, `value at step ${step}`);
      }
      const seen = new Map<string, { state: number; value: string }>();
      table.forEach((k, state, value) => seen.set(hex(k), { state, value: hex(value) }));
      assert.deepEqual(seen, model, `forEach at step ${step}`);
    }
  }
  assert.ok(table.bytes > 0);
  table.clear();
  assert.equal(table.size, 0);
  assert.equal(table.find(keys[0]), 0, 'cleared');
});

test('the coin table refuses to change the state of a key it does not hold', () => {
  assert.throws(() => new CoinTable().setState(new Uint8Array(KEY_BYTES), 1), /does not hold/);
});

test('a bounded coin table stops growing at its bound, reports itself full, and grows past it only when it must', () => {
  const table = new CoinTable(88 * 3000);
  const key = (n: number) => {
    const k = new Uint8Array(KEY_BYTES).fill(n % 251);
    new DataView(k.buffer).setUint32(32, n);
    return k;
  };
  const value = new Uint8Array(30).fill(7);
  let n = 0;
  while (!table.full) table.set(key(n++), 1, value);
  assert.equal(table.bytes, 88 * 3000, 'grown to its bound and no further');
  assert.equal(n, 2401, 'full once fuller than four fifths');
  // Another block's coins still go in; near the last empty slots it grows anyway.
  for (let i = 0; i < 2000; i++) table.set(key(n++), 1, value);
  assert.ok(table.bytes > 88 * 3000, 'grown past its bound rather than run out of slots');
  assert.equal(table.size, n);
  for (let i = 0; i < n; i++) assert.equal(table.find(key(i)), 1, `entry ${i} still found`);
});

test('a coin table reserved for n entries takes them without growing, keeps what it held, and stays within its bound', () => {
  const key = (n: number) => {
    const k = new Uint8Array(KEY_BYTES).fill(n % 253);
    new DataView(k.buffer).setUint32(32, n);
    return k;
  };
  const value = new Uint8Array(20).fill(9);
  const table = new CoinTable();
  for (let i = 0; i < 500; i++) table.set(key(i), 1, value);
  table.reserve(50_000);
  const reserved = table.bytes;
  assert.ok(reserved >= (50_000 / 0.5) * 88, 'room for 50,000 at half full');
  for (let i = 500; i < 50_000; i++) table.set(key(i), 2, value);
  assert.equal(table.bytes, reserved, 'no growth while filling');
  for (let i = 0; i < 50_000; i++) assert.equal(table.find(key(i)), i < 500 ? 1 : 2, `entry ${i}`);
  table.reserve(10);
  assert.equal(table.bytes, reserved, 'never shrinks');
  const bounded = new CoinTable(88 * 3000);
  bounded.reserve(1_000_000);
  assert.equal(bounded.bytes, 88 * 3000, 'held to its bound');
});
