import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LWMA3_TARGET_SPACING, LWMA3_WINDOW, lwma3NextBits, type LwmaBlock, type LwmaParams } from './lwma.ts';
import { compactToTarget, targetToCompact } from './target.ts';

const T = LWMA3_TARGET_SPACING;
const N = LWMA3_WINDOW;
const params: LwmaParams = { window: N, targetSpacing: T, powLimit: compactToTarget(0x1f07ffff).target };
const START_BITS = 0x1d1b9fa2; // a Flux mainnet ZelHash-era target

/** count blocks of the given bits, the i-th (from 1) solved solvetime(i) seconds after the previous. */
function chain(count: number, bits: number, solvetime: (i: number) => number): LwmaBlock[] {
  const blocks: LwmaBlock[] = [{ time: 1_600_000_000, bits }];
  for (let i = 1; i < count; i++) blocks.push({ time: blocks[i - 1].time + solvetime(i), bits });
  return blocks;
}

const targetOf = (bits: number): bigint => compactToTarget(bits).target;

test('LWMA3: fewer than N+1 blocks give powLimit', () => {
  const powLimitBits = targetToCompact(params.powLimit);
  assert.equal(lwma3NextBits([], params), powLimitBits);
  assert.equal(
    lwma3NextBits(
      chain(N, START_BITS, () => T),
      params,
    ),
    powLimitBits,
  );
  assert.notEqual(
    lwma3NextBits(
      chain(N + 1, START_BITS, () => T),
      params,
    ),
    powLimitBits,
  );
});

test('LWMA3: on-target solvetimes keep the target (up to integer truncation)', () => {
  const before = targetOf(START_BITS);
  const after = targetOf(
    lwma3NextBits(
      chain(N + 1, START_BITS, () => T),
      params,
    ),
  );
  assert.ok(after <= before);
  assert.ok(after * 10000n >= before * 9999n, `${after} vs ${before}`);
  // Only the last N+1 blocks count.
  const longer = chain(3 * N, START_BITS, (i) => (i < 2 * N ? 1 : T));
  assert.equal(
    lwma3NextBits(longer, params),
    lwma3NextBits(
      chain(N + 1, START_BITS, () => T),
      params,
    ),
  );
});

test('LWMA3: faster blocks lower the target, slower blocks raise it, recent blocks weigh most', () => {
  const before = targetOf(START_BITS);
  const fast = targetOf(
    lwma3NextBits(
      chain(N + 1, START_BITS, () => (T * 4) / 5),
      params,
    ),
  );
  const slow = targetOf(
    lwma3NextBits(
      chain(N + 1, START_BITS, () => (T * 5) / 4),
      params,
    ),
  );
  assert.ok(fast * 100n > before * 79n && fast * 100n < before * 80n, '80% of the solvetime: 80% of the target');
  assert.ok(slow * 100n > before * 124n && slow * 100n < before * 125n, '125% of the solvetime: 125% of the target');
  // The same solvetimes, the slow ones last, weigh more than with the slow ones first.
  const slowLast = targetOf(
    lwma3NextBits(
      chain(N + 1, START_BITS, (i) => (i > N / 2 ? 2 * T : T / 2)),
      params,
    ),
  );
  const slowFirst = targetOf(
    lwma3NextBits(
      chain(N + 1, START_BITS, (i) => (i <= N / 2 ? 2 * T : T / 2)),
      params,
    ),
  );
  assert.ok(slowLast > slowFirst);
});

test('LWMA3: a step is clamped to 67%..150% of the last target', () => {
  const last = targetOf(START_BITS);
  const flat = lwma3NextBits(
    chain(N + 1, START_BITS, () => 1),
    params,
  );
  assert.equal(flat, targetToCompact((last * 67n) / 100n));
  const stalled = lwma3NextBits(
    chain(N + 1, START_BITS, () => 100 * T),
    params,
  );
  assert.equal(stalled, targetToCompact((last * 150n) / 100n));
});

test('LWMA3: solvetimes are capped at 6T and never go below one second', () => {
  const capped = lwma3NextBits(
    chain(N + 1, START_BITS, (i) => (i === N ? 50 * T : T)),
    params,
  );
  const sixT = lwma3NextBits(
    chain(N + 1, START_BITS, (i) => (i === N ? 6 * T : T)),
    params,
  );
  assert.equal(capped, sixT);
  // A timestamp before its parent's counts as one second after it (and the next one is measured
  // from there): the same as a chain whose times were in order.
  const blocks = chain(N + 1, START_BITS, () => T);
  const shuffled = blocks.map((b, i) => (i === N - 1 ? { ...b, time: blocks[N - 2].time - 500 } : b));
  const monotone = blocks.map((b, i) => (i === N - 1 ? { ...b, time: blocks[N - 2].time + 1 } : b));
  assert.equal(lwma3NextBits(shuffled, params), lwma3NextBits(monotone, params));
});

test('LWMA3: never easier than powLimit', () => {
  const nearLimit = targetToCompact(params.powLimit);
  const next = lwma3NextBits(
    chain(N + 1, nearLimit, () => 6 * T),
    params,
  );
  assert.equal(next, nearLimit);
  assert.ok(targetOf(next) <= params.powLimit);
});

test('LWMA3: near a test-network-sized powLimit the clamp bounds do not wrap', () => {
  // 2^251 - 1: target × 150 passes 2^256, where fluxd's arith_uint256 would wrap.
  const testnet: LwmaParams = { window: N, targetSpacing: T, powLimit: (1n << 251n) - 1n };
  const easiest = targetToCompact(testnet.powLimit);
  // On time at the easiest target: the average target again (rounded down a hair); slow: the easiest.
  const onTime = targetOf(
    lwma3NextBits(
      chain(N + 1, easiest, () => T),
      testnet,
    ),
  );
  assert.ok(onTime > (testnet.powLimit * 9999n) / 10000n, `on time gives ${onTime} of ${testnet.powLimit}`);
  assert.equal(
    lwma3NextBits(
      chain(N + 1, easiest, () => 6 * T),
      testnet,
    ),
    easiest,
  );
  // Fast blocks: at most 67% of the last target, computed exactly.
  const fast = lwma3NextBits(
    chain(N + 1, easiest, () => 1),
    testnet,
  );
  assert.equal(fast, targetToCompact((targetOf(easiest) * 67n) / 100n));
});
