import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hash160, p2wpkhScript, publicKeyCreate } from '@cs/consensus';
import { feeForSize } from '../policy/feerate.ts';
import { branchAndBound, knapsack, selectCoins, type Candidate, type SelectionParams } from './coin-selection.ts';
import { eligibilityFilters, isEligible, type CoinStanding } from './eligibility.ts';
import { fundTransaction, type SelectableCoin } from './funding.ts';

const candidate = (amount: bigint, fee = 0n, longTermFee = 0n): Candidate<bigint> => ({ coin: amount, amount, fee, longTermFee });
const amounts = (c: readonly Candidate<bigint>[] | null) => (c ? c.map((x) => x.amount).sort((a, b) => Number(a - b)) : null);

/** A deterministic stand-in for Math.random. */
function seeded(seed = 1): () => number {
  let s = seed;
  return () => {
    s = (s * 16807) % 2147483647;
    return s / 2147483647;
  };
}

test('branch and bound finds a changeless set within the cost of change, or none', () => {
  const pool = [1n, 2n, 3n, 4n, 5n].map((n) => candidate(n * 1000n));
  assert.equal(
    amounts(branchAndBound(pool, 10_000n, 0n))!.reduce((a, b) => a + b),
    10_000n,
  );
  // Without fees every exact set wastes nothing; as Core, the last one found wins the tie.
  assert.equal(
    amounts(branchAndBound(pool, 5_000n, 0n))!.reduce((a, b) => a + b),
    5000n,
  );
  assert.equal(branchAndBound(pool, 15_001n, 0n), null);
  assert.equal(branchAndBound([candidate(4000n), candidate(4000n)], 5000n, 100n), null);
  // Within [target, target + cost of change]: 4000 for 3950, one input wasting less than 1000 + 3000.
  const withFees = [1n, 2n, 3n, 4n, 5n].map((n) => candidate(n * 1000n, 10n, 5n));
  assert.deepEqual(amounts(branchAndBound(withFees, 3950n, 100n)), [4000n]);
});

test('branch and bound prefers fewer inputs when fees are above their long-term level', () => {
  const pool = [candidate(3000n, 50n, 10n), candidate(2000n, 50n, 10n), candidate(5000n, 50n, 10n)];
  assert.deepEqual(amounts(branchAndBound(pool, 5000n, 0n)), [5000n]);
});

test('knapsack: an exact coin, all small coins, or the smallest larger coin', () => {
  const random = seeded();
  assert.deepEqual(amounts(knapsack([candidate(100n), candidate(700n), candidate(300n)], 300n, 50n, random)), [300n]);
  assert.deepEqual(amounts(knapsack([candidate(100n), candidate(200n), candidate(10_000n)], 300n, 5000n, random)), [100n, 200n]);
  assert.deepEqual(amounts(knapsack([candidate(100n), candidate(10_000n), candidate(20_000n)], 300n, 50n, random)), [10_000n]);
  assert.equal(knapsack([candidate(100n)], 300n, 50n, random), null);
});

test('selectCoins keeps the least wasteful result: a changeless set beats one with change', () => {
  const params: SelectionParams = {
    target: 10_000n,
    costOfChange: 500n,
    changeTarget: 50_000n,
    minViableChange: 400n,
    changeFee: 100n,
    subtractFee: false,
    random: seeded(),
  };
  const pool = [candidate(10_200n, 10n, 10n), candidate(100_000n, 10n, 10n)];
  const s = selectCoins(pool, params)!;
  assert.equal(s.algorithm, 'bnb');
  assert.deepEqual(amounts(s.candidates), [10_200n]);
  assert.equal(s.waste, 200n);
  // Recipients paying the fee: knapsack only.
  assert.equal(selectCoins(pool, { ...params, subtractFee: true })!.algorithm, 'knapsack');
});

const KEY = publicKeyCreate(new Uint8Array(32).fill(3), true);
const SCRIPT = p2wpkhScript(hash160(KEY));
const CONFIRMED: CoinStanding = { depth: 10, fromMe: false, ancestors: 0, descendants: 0 };
const coin = (value: bigint, n: number, standing = CONFIRMED): SelectableCoin => ({
  outpoint: { txid: new Uint8Array(32).fill(n), vout: 0 },
  output: { value, scriptPubKey: SCRIPT },
  plan: { kind: 'p2wpkh', publicKey: KEY },
  standing,
});
const ROUNDS = eligibilityFilters({ ancestorLimit: 25, descendantLimit: 25, includeUnsafe: false });

function fund(values: bigint[], pay: bigint, subtractFee = false, candidates = values.map((v, i) => coin(v, i))) {
  return fundTransaction({
    version: 2,
    locktime: 0,
    sequence: 0xfffffffd,
    recipients: [{ script: p2wpkhScript(new Uint8Array(20).fill(9)), amount: pay, subtractFee }],
    preset: [],
    candidates,
    filters: ROUNDS,
    addInputs: true,
    feeRate: 10_000n,
    discardRate: 10_000n,
    longTermRate: 10_000n,
    dustRelayFee: 3000n,
    changeScript: p2wpkhScript(new Uint8Array(20).fill(8)),
    changeSpendWeight: 271,
    random: seeded(7),
  });
}

test('funding: change when it is worth it, and the fee paid matches the rate on the signed size', () => {
  const withChange = fund([1_000_000n, 5_000_000n], 2_000_000n);
  assert.equal(withChange.changePosition >= 0, true);
  assert.equal(withChange.tx.outputs.length, 2);
  // Every input is sized with a 71-byte (low-r) signature; the fee is for that size.
  const signedVsize = Math.ceil((withChange.tx.weight + withChange.coins.length * 107 + 2) / 4);
  assert.equal(withChange.fee, feeForSize(10_000n, signedVsize));

  // A coin just above the payment plus fee: no change, the rest goes to the fee.
  const exact = fund([2_001_500n, 9_000_000n], 2_000_000n);
  assert.equal(exact.changePosition, -1);
  assert.equal(exact.tx.outputs.length, 1);
  assert.equal(exact.fee, 1500n);

  // The recipient pays: it receives the payment less the fee, and no change is made from one exact coin.
  const subtracted = fund([2_000_000n], 2_000_000n, true);
  assert.equal(subtracted.changePosition, -1);
  assert.equal(subtracted.tx.outputs[0].value, 2_000_000n - subtracted.fee);

  assert.throws(() => fund([1000n], 2_000_000n), { kind: 'insufficient-funds', message: 'Insufficient funds' });
  assert.throws(() => fund([1_000_000n], 100n), { kind: 'create-failed', message: 'Transaction amount too small' });
});

test('eligibility rounds: confirmed coins first, then own unconfirmed change by the length of its mempool chain', () => {
  const change = (ancestors: number, descendants = ancestors): CoinStanding => ({ depth: 0, fromMe: true, ancestors, descendants });
  const theirs = (depth: number): CoinStanding => ({ depth, fromMe: false, ancestors: depth === 0 ? 1 : 0, descendants: depth === 0 ? 1 : 0 });
  // The first round whose filter admits the coin (Core's order: (1,6,0), (1,1,0), (0,1,2), (0,1,4), (0,1,12), (0,1,24)).
  const round = (s: CoinStanding, rounds = ROUNDS) => rounds.findIndex((f) => isEligible(s, f));
  assert.equal(round({ depth: 1, fromMe: true, ancestors: 0, descendants: 0 }), 0);
  assert.equal(round(theirs(6)), 0);
  assert.equal(round(theirs(5)), 1);
  assert.equal(round(change(1)), 2);
  assert.equal(round(change(2, 3)), 3);
  assert.equal(round(change(4)), 3);
  assert.equal(round(change(5)), 4);
  assert.equal(round(change(13)), 5);
  assert.equal(round(change(24)), 5);
  // At the limit a spend would break it; others' unconfirmed payments only when asked for.
  assert.equal(round(change(25)), -1);
  assert.equal(round(theirs(0)), -1);
  assert.equal(round(theirs(0), eligibilityFilters({ ancestorLimit: 25, descendantLimit: 25, includeUnsafe: true })), 6);
});

test('funding: a confirmed coin pays before unconfirmed change that would fit better', () => {
  const pay = 1_000_000n;
  // Unconfirmed change just above the payment would be a changeless match; the confirmed 50-coin output is used instead.
  const candidates = [coin(1_001_500n, 1, { depth: 0, fromMe: true, ancestors: 1, descendants: 1 }), coin(5_000_000_000n, 2)];
  const confirmedFirst = fund([], pay, false, candidates);
  assert.deepEqual(
    confirmedFirst.coins.map((c) => c.output.value),
    [5_000_000_000n],
  );
  // Only when the confirmed coins do not cover it does the change help.
  const both = fund([], 5_000_500_000n, false, candidates);
  assert.deepEqual(
    both.coins.map((c) => c.output.value).sort((a, b) => Number(a - b)),
    [1_001_500n, 5_000_000_000n],
  );
  // Change whose mempool chain is at the limit is never spent.
  assert.throws(() => fund([], pay, false, [coin(2_000_000n, 3, { depth: 0, fromMe: true, ancestors: 25, descendants: 25 })]), {
    kind: 'insufficient-funds',
  });
});
