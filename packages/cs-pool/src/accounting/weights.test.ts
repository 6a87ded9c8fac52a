import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAIN, REGTEST, TEST } from '@cs/consensus';
import { UINT256_MAX, difficultyToTarget, parseDecimal } from '@cs/stratum';
import { WEIGHT_SCALE, pplnsWindow, weightOfLegacyWork, weightOfTarget } from './weights.ts';

/** d exactly, in weight units (d has at most 40 decimals here). */
const units = (d: string) => {
  const { digits, scale } = parseDecimal(d);
  return (digits * WEIGHT_SCALE) / 10n ** scale;
};

test('a decimal difficulty comes back exactly as its weight, on every network, whatever its target floors away', () => {
  const decimals = ['0.1', '0.3', '0.5', '0.05', '0.001', '0.0123456789', '1', '1.7', '3', '7.25', '1000', '123456.789', '1e9', '99999999999999'];
  for (const net of [MAIN, TEST, REGTEST]) {
    for (const d of decimals) {
      const target = difficultyToTarget(d, net.powLimit);
      // A target capped at 2^256 - 1 (regtest's 0.001) is not the decimal's: it weighs what it is.
      if (target === UINT256_MAX) continue;
      assert.equal(weightOfTarget(target, net.powLimit), units(d), `${net.name} ${d}`);
    }
  }
});

test('any other target is its difficulty rounded to the nearest 10^-40', () => {
  const p = REGTEST.powLimit;
  // Capped: every hash is a share, worth 1 / 17 of difficulty 1 on regtest (powLimit = (2^256 - 1) / 17).
  assert.equal(weightOfTarget(UINT256_MAX, p), (WEIGHT_SCALE + 8n) / 17n);
  for (const target of [p * 3n + 12_345n, p / 7n, (p * 1_000_003n) / 999_999n, 1n << 200n]) {
    const w = weightOfTarget(target, p);
    // |w - p·S/t| <= 1/2  <=>  |2·w·t - 2·p·S| <= t
    const diff = 2n * w * target - 2n * p * WEIGHT_SCALE;
    assert.ok(diff <= target && -diff <= target, `target ${target}`);
  }
});

test('the PPLNS window is the factor, a decimal, times the network difficulty, rounded', () => {
  assert.equal(pplnsWindow(units('1.5'), '2'), units('3'));
  assert.equal(pplnsWindow(units('1.5'), 2.5), units('3.75'));
  assert.equal(pplnsWindow(3n, '0.5'), 2n, 'halves round up');
  assert.equal(pplnsWindow(units('0.0001'), '0.01'), units('0.000001'));
});

test('work in hashes from records before weights converts at 2^256 / powLimit hashes per difficulty', () => {
  // Main: 8192 hashes per difficulty unit (powLimit = 2^243 - 1), so 8192 hashes weigh 1 (to 10^-36).
  const w = weightOfLegacyWork(8192n, MAIN.powLimit);
  assert.ok(w <= WEIGHT_SCALE && WEIGHT_SCALE - w < 10n ** 4n);
});
