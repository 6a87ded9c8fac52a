import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import { blockFromRecord, decodeRecord, encodeRecord, shareFromRecord, shareRecordJson } from './records.ts';
import type { NewShare } from './store.ts';
import { WEIGHT_SCALE } from './weights.ts';

test("a share's hand-written JSON is the generic record's, and reads back as the share", () => {
  const shares: NewShare[] = [
    { address: 'tmQ1yYz3', worker: 'rig-1_a', weight: 2n ** 200n + 7n, difficulty: 0.001, solo: false, time: 1_790_000_000_123 },
    { address: 'odd"\\address\u0001', worker: 'default', weight: 1n, difficulty: 1e21, solo: true, time: 0 },
  ];
  for (const share of shares) {
    const json = shareRecordJson(share);
    assert.equal(json, JSON.stringify(encodeRecord(share)), 'the same text as JSON.stringify(encodeRecord(share))');
    assert.deepEqual(decodeRecord<NewShare>(JSON.parse(json)), share);
    assert.deepEqual(shareFromRecord(JSON.parse(json), REGTEST.powLimit), share);
  }
});

test('records written before weights read back with weights from their work in hashes', () => {
  // Regtest: 2^256 / powLimit is 17 hashes per difficulty unit, so 17 hashes weigh 1.
  const old = { address: 'a', worker: 'w', work: { $big: '17' }, difficulty: 1, solo: false, time: 5 };
  assert.deepEqual(shareFromRecord(old, REGTEST.powLimit), { address: 'a', worker: 'w', weight: WEIGHT_SCALE, difficulty: 1, solo: false, time: 5 });
  const block = blockFromRecord({ hash: 'h', networkWork: { $big: '34' } }, REGTEST.powLimit);
  assert.deepEqual(block, { hash: 'h', networkWeight: 2n * WEIGHT_SCALE });
});
