import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatList, splitFormat } from './format.ts';

test('splitFormat: the suffix of the last segment picks the format, JSON without one', () => {
  assert.deepEqual(splitFormat('chaininfo'), { path: 'chaininfo', format: 'json' });
  assert.deepEqual(splitFormat('chaininfo.json'), { path: 'chaininfo', format: 'json' });
  assert.deepEqual(splitFormat('block/notxdetails/ab.bin'), { path: 'block/notxdetails/ab', format: 'bin' });
  assert.deepEqual(splitFormat('headers/5/ab.hex'), { path: 'headers/5/ab', format: 'hex' });
  assert.deepEqual(splitFormat('tx/ab.xml'), { path: 'tx/ab', format: null });
  // A dot before the last segment is not a suffix.
  assert.deepEqual(splitFormat('a.b/c'), { path: 'a.b/c', format: 'json' });
  assert.equal(formatList(['json', 'bin', 'hex']), '.json, .bin, .hex');
});
