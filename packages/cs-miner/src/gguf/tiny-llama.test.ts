import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tinyLlamaGguf } from './tiny-llama.ts';

test('one seed, one file; another seed, other weights with the same layout', () => {
  const a = tinyLlamaGguf(1);
  assert.deepEqual(tinyLlamaGguf(1), a);
  const b = tinyLlamaGguf(2);
  assert.equal(b.length, a.length);
  assert.notDeepEqual(b, a);
  // GGUF v3: magic, version, tensor count (2 per model + 9 per layer), metadata count.
  assert.equal(a.toString('latin1', 0, 4), 'GGUF');
  assert.equal(a.readUInt32LE(4), 3);
  assert.equal(a.readBigUInt64LE(8), 3n + 2n * 9n);
  assert.equal(a.readBigUInt64LE(16), 22n);
});
