import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256d } from '../crypto/hash.ts';
import { fromHex, toHex } from '../encoding/hex.ts';
import { checkEquihash, verifyHeaderSolution } from './equihash.ts';
import { packIndices } from './equihash-encoding.ts';
import { EQUIHASH_200_9, EQUIHASH_48_5, ZELHASH, type EquihashParams } from './equihash-params.ts';
import { mineHeader } from './mining.ts';
import { solveEquihash, solveHeader } from './solver.ts';
import { hashMeetsTarget } from './target.ts';
import { equihashZcash, genesisHeader140, genesisHeaders, zelhashFlux } from './test-vectors.ts';

// Solving (200,9) takes 5 s per input and ZelHash (125,4) about 2 minutes and 3.4 GB: opt in with CS_SLOW_TESTS=1.
const slow = { skip: process.env.CS_SLOW_TESTS !== '1' && 'set CS_SLOW_TESTS=1 to run' };

const zcash = equihashZcash();

/** Asserts that each solution verifies, that it is in canonical order and that none repeats. */
function assertAllValid(params: EquihashParams, input: Uint8Array, nonce: Uint8Array, solutions: number[][]): void {
  const keys = new Set<string>();
  for (const indices of solutions) {
    assert.equal(indices.length, 2 ** params.k);
    assert.equal(checkEquihash(params, input, nonce, packIndices(params, indices)), 'ok');
    keys.add(indices.join(','));
  }
  assert.equal(keys.size, solutions.length);
}

test('(48,5): every solution found for 32 nonces verifies', () => {
  const input = new Uint8Array(108).map((_, i) => (i * 37) & 0xff);
  let total = 0;
  for (let i = 0; i < 32; i++) {
    const nonce = new Uint8Array(32);
    nonce[0] = i;
    nonce[31] = 0x5a;
    const solutions = solveEquihash(EQUIHASH_48_5, input, nonce);
    assertAllValid(EQUIHASH_48_5, input, nonce, solutions);
    total += solutions.length;
  }
  // Wagner's algorithm averages about half a distinct-index solution per nonce at (48,5).
  assert.ok(total >= 4, `only ${total} solutions in 32 nonces`);
});

test('(48,5): the regtest genesis blocks are among the solutions of their headers', () => {
  const v = zcash.block_header_vectors.find((x) => x.id === 'zebra-zcash-regtest-genesis-48_5');
  assert.ok(v?.header_hex);
  const found = solveHeader(EQUIHASH_48_5, fromHex(v.header_hex).subarray(0, 140)).map(toHex);
  assert.ok(found.includes(v.solution_minimal_hex), 'Zcash regtest genesis');

  const flux = genesisHeaders().genesis.find((g) => g.chain === 'flux' && g.network === 'regtest');
  assert.ok(flux);
  const header = genesisHeader140(flux.chainparams_fields);
  assert.ok(solveHeader(EQUIHASH_48_5, header).map(toHex).includes(flux.chainparams_fields.nSolution_hex), 'Flux regtest genesis');
});

/** The librustzcash solution lists of one (n, k), grouped by input and nonce. */
function listedSolutions(n: number): { input: string; nonce: string; solutions: string[] }[] {
  const byInput = new Map<string, { input: string; nonce: string; solutions: string[] }>();
  for (const v of zcash.valid) {
    if (v.n !== n || !v.solution_indices) continue;
    const key = v.input_hex + v.nonce_hex;
    const entry = byInput.get(key) ?? { input: v.input_hex, nonce: v.nonce_hex, solutions: [] };
    entry.solutions.push(v.solution_indices.join(','));
    byInput.set(key, entry);
  }
  return [...byInput.values()];
}

function assertFindsExactly(params: EquihashParams, cases: { input: string; nonce: string; solutions: string[] }[]): void {
  for (const { input, nonce, solutions } of cases) {
    const found = solveEquihash(params, fromHex(input), fromHex(nonce));
    assertAllValid(params, fromHex(input), fromHex(nonce), found);
    assert.deepEqual(found.map((s) => s.join(',')).sort(), [...solutions].sort(), `input ${input} nonce ${nonce}`);
  }
}

test('(96,5): the solver finds exactly the solutions librustzcash lists for each input', () => {
  const cases = listedSolutions(96);
  assert.equal(cases.length, 11);
  assertFindsExactly({ n: 96, k: 5, personalization: 'ZcashPoW', twist: false }, cases);
});

test('mineHeader: stops at the first accepted solution and returns a valid block', () => {
  const template = new Uint8Array(140).fill(0x11);
  template.fill(0, 108);
  // One block hash in four meets this target, the regtest-like case generatetoaddress mines.
  const target = (1n << 254n) - 1n;
  let calls = 0;
  const mined = mineHeader(EQUIHASH_48_5, template, {
    maxNonces: 200,
    accept: (header140, solution) => {
      calls++;
      return hashMeetsTarget(sha256d(new Uint8Array([...header140, solution.length, ...solution])), target);
    },
  });
  assert.ok(mined);
  assert.equal(verifyHeaderSolution(EQUIHASH_48_5, mined.header140, mined.solution), true);
  assert.ok(hashMeetsTarget(sha256d(new Uint8Array([...mined.header140, 36, ...mined.solution])), target));
  assert.deepEqual(mined.header140.subarray(0, 108), template.subarray(0, 108));
  assert.ok(calls >= 1 && mined.noncesTried >= 1);
  // The nonce counts up from the template's as a little-endian integer.
  const nonce = mined.header140.subarray(108);
  assert.equal(nonce[0] + 256 * nonce[1], mined.noncesTried - 1);
  assert.equal(template[108], 0, 'the template is left alone');
});

test('mineHeader: bounded by maxNonces, keeps the nonce prefix before counterOffset', () => {
  const template = new Uint8Array(140);
  template.fill(0xab, 108, 112); // a pool's NONCE_1
  const seen: Uint8Array[] = [];
  const mined = mineHeader(EQUIHASH_48_5, template, {
    maxNonces: 6,
    counterOffset: 4,
    accept: (header140) => {
      seen.push(header140.subarray(108));
      return false;
    },
  });
  assert.equal(mined, null);
  const nonces = new Set(seen.map((n) => toHex(n)));
  assert.ok(nonces.size <= 6);
  for (const n of seen) {
    assert.equal(toHex(n.subarray(0, 4)), 'abababab');
    assert.ok(n[4] < 6 && n.subarray(5).every((b) => b === 0));
  }
  assert.throws(() => mineHeader(EQUIHASH_48_5, template, { maxNonces: 1, counterOffset: 32, accept: () => true }), RangeError);
});

test('(200,9): the solver finds exactly the solutions librustzcash lists for each input', slow, () => {
  const cases = listedSolutions(200);
  assert.equal(cases.length, 5);
  assertFindsExactly(EQUIHASH_200_9, cases);
});

test('ZelHash (125,4): the solver finds both known proofs of Flux block 400000', slow, () => {
  const flux = zelhashFlux();
  const header = fromHex(flux.blocks[0].header140_hex);
  const found = solveHeader(ZELHASH, header).map(toHex);
  assert.ok(found.includes(flux.blocks[0].solution_hex));
  assert.ok(found.includes(flux.extra_valid_solution_block_400000.solution_hex));
  for (const s of found) assert.equal(verifyHeaderSolution(ZELHASH, header, fromHex(s)), true);
});
