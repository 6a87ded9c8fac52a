import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PoolStats } from './stats.ts';

test('valid shares of one second share one window entry; the window drops old seconds; hashrate sums the rest', () => {
  const stats = new PoolStats(10_000, 2);
  const w = stats.worker('addr', 'rig');
  assert.equal(stats.worker('addr', 'rig'), w, 'one entry per worker');
  stats.share(w, 'valid', 1, 5_000);
  stats.share(w, 'valid', 2, 5_999);
  stats.share(w, 'valid', 4, 6_000);
  stats.share(w, 'stale', 0, 6_001);
  assert.deepEqual(w.recent, [
    [5_000, 3],
    [6_000, 4],
  ]);
  assert.deepEqual([w.valid, w.stale, w.lastShare], [3, 1, 6_000]);
  // Sol/s: summed difficulty x solutions per difficulty over the 10 s window.
  assert.equal(stats.hashrate(w, 14_000), ((3 + 4) * 2) / 10);
  assert.equal(stats.hashrate(w, 15_500), (4 * 2) / 10);
  assert.equal(stats.poolHashrate(16_500), 0);
});
