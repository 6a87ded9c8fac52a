import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PoolStats } from './stats.ts';

test('valid shares of one second share one window entry; the window drops old seconds; hashrate sums the rest', () => {
  const stats = new PoolStats(10_000, 2);
  const w = stats.worker('addr', 'rig', 0);
  assert.equal(stats.worker('addr', 'rig', 4_000), w, 'one entry per worker');
  stats.share(w, 'valid', 1, 5_000);
  stats.share(w, 'valid', 2, 5_999);
  stats.share(w, 'valid', 4, 6_000);
  stats.share(w, 'stale', 0, 6_001);
  assert.deepEqual(w.recent, [
    [5_000, 3, 2],
    [6_000, 4, 1],
  ]);
  assert.deepEqual([w.valid, w.stale, w.lastShare], [3, 1, 6_000]);
  // Sol/s: summed difficulty x solutions per difficulty over the 10 s window.
  assert.equal(stats.hashrate(w, 14_000), ((3 + 4) * 2) / 10);
  assert.equal(stats.sharesPerSecond(w, 14_000), 3 / 10, 'valid shares over the same time');
  assert.equal(stats.hashrate(w, 15_500), (4 * 2) / 10);
  assert.equal(stats.poolHashrate(16_500), 0);
});

test('hashrate is over the time observed: since the first login until a whole window has passed', () => {
  // The case: 31 Sol/s for 24 s read as 1.23 over a 600 s window.
  const stats = new PoolStats(600_000, 1);
  const w = stats.worker('addr', 'rig', 1_000_000);
  for (let s = 1; s <= 24; s++) stats.share(w, 'valid', 31, 1_000_000 + s * 1000);
  assert.equal(stats.hashrate(w, 1_024_000), 31);
  assert.equal(stats.hashrate(w, 1_600_000), (31 * 24) / 600, 'a window later, the window');
  // A first share a moment after the login is measured over a second at least, not a burst.
  const fresh = stats.worker('addr', 'new', 2_000_000);
  stats.share(fresh, 'valid', 5, 2_000_010);
  assert.equal(stats.hashrate(fresh, 2_000_010), 5);
  assert.equal(stats.poolHashrate(2_000_010), 5, "the first worker's shares have left its window");
});

test('a disconnected worker leaves the live list and stays in the history', () => {
  const stats = new PoolStats(600_000, 1);
  const a = stats.worker('addr', 'a', 0);
  const b = stats.worker('addr', 'b', 0);
  stats.connect(a);
  stats.connect(a);
  stats.connect(b);
  stats.disconnect(a, 50);
  assert.deepEqual(
    stats.live().map((w) => w.worker),
    ['a', 'b'],
    'one of its two connections is still up',
  );
  stats.disconnect(a, 70);
  assert.deepEqual(
    stats.live().map((w) => w.worker),
    ['b'],
  );
  assert.deepEqual([a.connected, a.disconnected], [0, 70]);
  assert.deepEqual(
    [...stats.workers.values()].map((w) => w.worker),
    ['a', 'b'],
  );
  stats.connect(a);
  assert.equal(a.disconnected, 0, 'back online');
});
