import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeRecord, encodeRecord, shareRecordJson } from './records.ts';
import type { NewShare } from './store.ts';

test("a share's hand-written JSON is the generic record's, and reads back as the share", () => {
  const shares: NewShare[] = [
    { address: 'tmQ1yYz3', worker: 'rig-1_a', work: 2n ** 200n + 7n, difficulty: 0.001, solo: false, time: 1_790_000_000_123 },
    { address: 'odd"\\address\u0001', worker: 'default', work: 1n, difficulty: 1e21, solo: true, time: 0 },
  ];
  for (const share of shares) {
    const json = shareRecordJson(share);
    assert.equal(json, JSON.stringify(encodeRecord(share)), 'the same text as JSON.stringify(encodeRecord(share))');
    assert.deepEqual(decodeRecord<NewShare>(JSON.parse(json)), share);
  }
});
