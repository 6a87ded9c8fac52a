import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PagingError, pageOf } from './paging.ts';

const rows = Array.from({ length: 40 }, (_, i) => i);
const q = (s: string) => new URLSearchParams(s);

test('page and pageSize cut a list; without them it comes whole', () => {
  assert.equal(pageOf(rows, q('')), rows);
  assert.deepEqual(pageOf(rows, q('page=1&pageSize=10')), [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]);
  assert.deepEqual(pageOf(rows, q('page=3&pageSize=12')), [36, 37, 38, 39]);
  assert.deepEqual(pageOf(rows, q('page=9&pageSize=10')), []);
  assert.deepEqual(pageOf(rows, q('pageSize=3')), [0, 1, 2], 'page 0 by default');
  assert.deepEqual(pageOf(rows, q('page=2')), rows.slice(30), 'pageSize 15 by default: page 2 is rows 30 to 39');
});

test('anything but whole numbers in range is refused', () => {
  for (const bad of ['page=-1', 'page=x', 'pageSize=0', 'pageSize=1001', 'page=1.5', 'pageSize=']) {
    assert.throws(() => pageOf(rows, q(bad)), PagingError, bad);
  }
});
