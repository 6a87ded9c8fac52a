import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAIN } from '@cs/consensus';
import { UINT256_MAX, difficultyToTarget } from '@cs/stratum';
import { Vardiff, type VardiffConfig } from './vardiff.ts';

const CONFIG: VardiffConfig = {
  targetTime: 15,
  retargetTime: 90,
  variancePercent: 30,
  minTarget: difficultyToTarget('1e6', MAIN.powLimit),
  maxTarget: UINT256_MAX,
  maxFactor: 4,
};

/** Seconds per share of a miner doing `solsPerSecond` at `target`: its expected solutions per share over its rate. */
function interval(target: bigint, solsPerSecond: number): number {
  return Number((1n << 256n) / target) / solsPerSecond;
}

/**
 * The share intervals a steady miner sees over `seconds`: work accrues in 0.05 s steps (a share
 * once a whole one is done), and the pool's idle sweep runs every 5 s, as the server's does.
 */
function simulate(startDifficulty: string, solsPerSecond: number, seconds: number): number[] {
  let target = difficultyToTarget(startDifficulty, MAIN.powLimit);
  const vd = new Vardiff(CONFIG, 0);
  const seen: number[] = [];
  let progress = 0;
  let last = 0;
  for (let step = 1; step * 0.05 <= seconds; step++) {
    const now = step * 0.05;
    progress += 0.05 / interval(target, solsPerSecond);
    if (progress >= 1) {
      progress -= 1;
      seen.push(now - last);
      last = now;
      target = vd.onShare(now, target) ?? target;
    } else if (step % 100 === 0) {
      target = vd.idleSweep(now, target) ?? target;
    }
  }
  return seen;
}

test('vardiff converges toward the target share time from far too easy and far too hard', () => {
  // A 50 Sol/s GPU at difficulty 0.001 (a share every 0.16 s) and a 5 kSol/s rig at difficulty 10,000.
  for (const [diff, rate] of [
    ['0.001', 50],
    ['10000', 5000],
  ] as const) {
    const seen = simulate(diff, rate, 3 * 3600);
    // Steady state: the average of the last 50 intervals within the variance band.
    const last = seen.slice(-50);
    const average = last.reduce((x, y) => x + y, 0) / last.length;
    assert.ok(average >= 15 * 0.7 && average <= 15 * 1.3, `${diff} @ ${rate}: ${average.toFixed(2)} s per share`);
  }
});

test('no change before retargetTime, within the variance, or beyond the clamps', () => {
  const target = difficultyToTarget('1', MAIN.powLimit);
  const vd = new Vardiff(CONFIG, 0);
  assert.equal(vd.onShare(1, target), null, 'too early');
  const steady = new Vardiff(CONFIG, 0);
  let now = 0;
  for (let i = 0; i < 20; i++) assert.equal(steady.onShare((now += 15), target), null, 'on target');
  const capped = new Vardiff({ ...CONFIG, maxTarget: target }, 0);
  assert.equal(capped.onShare(1000, target), null, 'already at the easiest allowed target');
});

test('the idle sweep eases the target of a silent miner, by at most maxFactor', () => {
  const target = difficultyToTarget('1', MAIN.powLimit);
  const vd = new Vardiff(CONFIG, 0);
  assert.equal(vd.idleSweep(30, target), null);
  const eased = vd.idleSweep(600, target);
  assert.ok(eased !== null && eased > target);
  assert.equal(eased, target * 4n);
});
