import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PerformanceHistory } from './performance.ts';

const HOUR = 3_600_000;
const T0 = Date.UTC(2024, 0, 1);
const pool = (h: number) => ({ poolHashrate: h, connectedMiners: 3, validSharesPerSecond: 1.5, networkHashrate: 100, networkDifficulty: 2 });

test('pool samples average per hour and per day, as date_trunc and AVG would; older than the range are left out', () => {
  const history = new PerformanceHistory();
  history.record(T0 + 10, pool(10), []);
  history.record(T0 + 20, pool(20), []);
  history.record(T0 + HOUR + 5, pool(40), []);
  const now = T0 + 2 * HOUR;
  assert.deepEqual(
    history.poolStats(now, 'day', 'hour').map((s) => [s.created, s.poolHashrate, s.connectedMiners, s.validSharesPerSecond]),
    [
      [T0, 15, 3, 1],
      [T0 + HOUR, 40, 3, 1],
    ],
  );
  assert.deepEqual(
    history.poolStats(now, 'day', 'day').map((s) => [s.created, s.poolHashrate]),
    [[T0, (10 + 20 + 40) / 3]],
    'a day averages every sample in it',
  );
  assert.deepEqual(history.poolStats(T0 + 26 * HOUR, 'day', 'hour'), [], 'a day later the day range is empty');
  assert.equal(history.poolStats(T0 + 26 * HOUR, 'month', 'hour').length, 2, 'the month range still has them');
});

test("a miner's samples per worker, in 3-minute, hourly and daily buckets", () => {
  const history = new PerformanceHistory();
  const w = (worker: string, hashrate: number) => ({ address: 'a', worker, hashrate, sharesPerSecond: hashrate / 10 });
  history.record(T0, pool(0), [w('rig1', 10), w('rig2', 30)]);
  history.record(T0 + 60_000, pool(0), [w('rig1', 20)]);
  history.record(T0 + 4 * 60_000, pool(0), [w('rig1', 50)]);
  const now = T0 + 5 * 60_000;
  assert.deepEqual(history.minerSamples('a', 'hour', now), [
    { created: T0, workers: { rig1: { hashrate: 15, sharesPerSecond: 1.5 }, rig2: { hashrate: 30, sharesPerSecond: 3 } } },
    { created: T0 + 180_000, workers: { rig1: { hashrate: 50, sharesPerSecond: 5 } } },
  ]);
  assert.deepEqual(history.minerSamples('a', 'day', now), [
    { created: T0, workers: { rig1: { hashrate: (10 + 20 + 50) / 3, sharesPerSecond: 8 / 3 }, rig2: { hashrate: 30, sharesPerSecond: 3 } } },
  ]);
  assert.deepEqual(history.minerSamples('b', 'day', now), []);
  assert.equal(history.minerSamples('a', 'hour', T0 + 2 * HOUR).length, 0, 'an hour later, nothing in the last hour');
});
