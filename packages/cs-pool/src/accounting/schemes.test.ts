import assert from 'node:assert/strict';
import { test } from 'node:test';
import { feeOf, pplnsCredits, propCredits, soloCredits, splitByWeight } from './schemes.ts';

const total = (m: Map<string, bigint>) => [...m.values()].reduce((a, b) => a + b, 0n);

test('splits are exact: flooring leftovers go to the heaviest, nothing is lost', () => {
  const c = splitByWeight(
    100n,
    new Map([
      ['a', 1n],
      ['b', 1n],
      ['c', 1n],
    ]),
  );
  assert.equal(total(c), 100n);
  assert.deepEqual([...c.values()].sort(), [33n, 33n, 34n]);
  assert.equal(splitByWeight(0n, new Map([['a', 1n]])).size, 0);
  assert.equal(splitByWeight(5n, new Map()).size, 0);
});

test('fee in basis points, rounded down', () => {
  assert.equal(feeOf(1_250_000_000n, 100), 12_500_000n);
  assert.equal(feeOf(999n, 150), 14n);
  assert.equal(feeOf(1000n, 0), 0n);
});

test('PPLNS: the window counts the newest shares, the crossing share only partly, older ones not at all', () => {
  const shares = [
    { address: 'new', weight: 3n },
    { address: 'mid', weight: 4n },
    { address: 'old', weight: 5n },
  ];
  // Window 5: 'new' 3 and 2 of 'mid'.
  assert.deepEqual(
    pplnsCredits(1000n, shares, 5n),
    new Map([
      ['new', 600n],
      ['mid', 400n],
    ]),
  );
  // A window larger than all shares (a young pool): everything is split, nothing stays undistributed.
  const all = pplnsCredits(1000n, shares, 1000n);
  assert.equal(total(all), 1000n);
  assert.equal(all.get('old'), 416n + 1n);
});

test('PROP sums shares per address; SOLO gives everything to the finder', () => {
  const c = propCredits(900n, [
    { address: 'a', weight: 1n },
    { address: 'b', weight: 1n },
    { address: 'a', weight: 1n },
  ]);
  assert.deepEqual(
    c,
    new Map([
      ['a', 600n],
      ['b', 300n],
    ]),
  );
  assert.deepEqual(soloCredits(77n, 'f'), new Map([['f', 77n]]));
});
