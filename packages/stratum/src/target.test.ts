import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAIN, REGTEST } from '@cs/consensus';
import { UINT256_MAX, difficultyToTarget, scaleTarget, solutionsPerDifficulty, targetFromHex, targetToDifficulty, targetToHex } from './target.ts';

test('difficulty 1 is powLimit on every network', () => {
  assert.equal(difficultyToTarget(1, MAIN.powLimit), MAIN.powLimit);
  assert.equal(difficultyToTarget('1', REGTEST.powLimit), REGTEST.powLimit);
  assert.equal(targetToHex(MAIN.powLimit), `0007${'f'.repeat(60)}`);
});

test('fractional difficulties are exact: powLimit * 10^scale / digits', () => {
  assert.equal(difficultyToTarget('0.5', MAIN.powLimit), MAIN.powLimit * 2n);
  assert.equal(difficultyToTarget('0.001', MAIN.powLimit), MAIN.powLimit * 1000n);
  assert.equal(difficultyToTarget('1e-3', MAIN.powLimit), MAIN.powLimit * 1000n);
  assert.equal(difficultyToTarget('3', MAIN.powLimit), MAIN.powLimit / 3n);
  assert.equal(difficultyToTarget('2.5e2', MAIN.powLimit), MAIN.powLimit / 250n);
  // Below 1/255 miningcore's EncodeTarget gives 0; here it is the exact multiple, capped at 2^256-1.
  assert.equal(difficultyToTarget('0.002', MAIN.powLimit), MAIN.powLimit * 500n);
  assert.equal(difficultyToTarget('1e-9', REGTEST.powLimit), UINT256_MAX);
});

test('bad difficulties are RangeErrors, never a zero target', () => {
  for (const bad of ['0', '-1', 'abc', '', '1.2.3', 'NaN']) assert.throws(() => difficultyToTarget(bad, MAIN.powLimit), RangeError, bad);
  assert.equal(difficultyToTarget('1e80', MAIN.powLimit), 1n);
});

test('targetToDifficulty inverts difficultyToTarget to double precision', () => {
  for (const d of [1, 0.5, 0.001, 3, 1024, 123456.789]) {
    const back = targetToDifficulty(difficultyToTarget(d, MAIN.powLimit), MAIN.powLimit);
    assert.ok(Math.abs(back - d) / d < 1e-12, `${d} -> ${back}`);
  }
  // The easiest share target is 2^256-1: on main that is difficulty 2^-13, whatever is asked below it.
  assert.ok(Math.abs(targetToDifficulty(difficultyToTarget(1e-6, MAIN.powLimit), MAIN.powLimit) * 2 ** 13 - 1) < 1e-12);
  // Regtest's block target is powLimit itself: network difficulty 1.
  assert.equal(targetToDifficulty(REGTEST.powLimit, REGTEST.powLimit), 1);
});

test('hex round trip and strict parsing', () => {
  const t = 0x0f0f0fn << 232n;
  assert.equal(targetFromHex(targetToHex(t)), t);
  assert.throws(() => targetFromHex('0f'), RangeError);
  assert.throws(() => targetToHex(-1n), RangeError);
});

test('scaleTarget moves by the ratio and stays inside 1 .. 2^256-1', () => {
  assert.equal(scaleTarget(1000n, 2, 1), 2000n);
  assert.equal(scaleTarget(1000n, 1, 4), 250n);
  assert.equal(scaleTarget(UINT256_MAX, 10, 1), UINT256_MAX);
  assert.equal(scaleTarget(1n, 1, 10), 1n);
});

test('solutions per difficulty: 8192 on main, as Flux pools count', () => {
  assert.equal(solutionsPerDifficulty(MAIN.powLimit), 8192);
  assert.ok(Math.abs(solutionsPerDifficulty(REGTEST.powLimit) - 17) < 0.1);
});
