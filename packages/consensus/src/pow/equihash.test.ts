import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256d } from '../crypto/hash.ts';
import { DecodeError } from '../encoding/errors.ts';
import { fromHex, hashToHex, toHex } from '../encoding/hex.ts';
import { checkEquihash, checkHeaderSolution, verifyEquihash, verifyHeaderSolution, type EquihashCheck } from './equihash.ts';
import { packBits, packIndices, readBitsInto, unpackBits, unpackIndices } from './equihash-encoding.ts';
import { EquihashHashStream } from './equihash-hash.ts';
import { EQUIHASH_200_9, EQUIHASH_48_5, ZELHASH, equihashLayout, solutionSize, type EquihashParams } from './equihash-params.ts';
import { equihashZcash, genesisHeader140, genesisHeaders, zelhashFlux, type IndexVector } from './test-vectors.ts';

const zcash = equihashZcash();
const flux = zelhashFlux();

const paramsOf = (v: { n: number; k: number; personalization: string }): EquihashParams => ({
  n: v.n,
  k: v.k,
  personalization: v.personalization,
  twist: false,
});

const solutionOf = (v: IndexVector): Uint8Array =>
  v.solution_indices ? packIndices(paramsOf(v), v.solution_indices) : fromHex(v.solution_minimal_hex ?? '');

/** librustzcash's error kinds, as the reasons checkEquihash gives for them. */
const LIBRUSTZCASH_KIND: Record<string, EquihashCheck> = {
  Collision: 'no-collision',
  OutOfOrder: 'bad-ordering',
  DuplicateIdxs: 'duplicate-indices',
  NonZeroRootHash: 'nonzero-final',
};

function flipBit(bytes: Uint8Array, bit: number): Uint8Array {
  const copy = bytes.slice();
  copy[bit >>> 3] ^= 0x80 >>> (bit & 7);
  return copy;
}

test('layouts: sizes derived from (n, k) match the vector files', () => {
  assert.equal(solutionSize(EQUIHASH_48_5), 36);
  assert.equal(solutionSize(ZELHASH), 52);
  assert.equal(solutionSize(EQUIHASH_200_9), 1344);
  assert.equal(solutionSize({ n: 96, k: 5, personalization: 'ZcashPoW', twist: false }), 68);
  assert.equal(solutionSize({ n: 144, k: 5, personalization: 'ZcashPoW', twist: false }), 100);

  const z = equihashLayout(ZELHASH);
  const p = flux.params;
  assert.equal(z.digestBytes, p.blake2b_digest_len);
  assert.equal(z.indicesPerHash, p.indices_per_hash);
  assert.equal(z.collisionBits, p.collision_bit_length);
  assert.equal(z.solutionIndices, p.solution_indices);
  assert.equal(z.solutionBytes, p.solution_bytes);
  assert.equal(z.chunkBytes, 16);
  assert.equal(toHex(z.blake2Personalization), p.personalization_hex);

  const examples = [...zcash.conventions.blake2b_personalization.matchAll(/\((\d+),(\d+)\) ([0-9a-f]{32})/g)];
  assert.equal(examples.length, 4);
  for (const [, n, k, hex] of examples) {
    const layout = equihashLayout({ n: Number(n), k: Number(k), personalization: 'ZcashPoW', twist: false });
    assert.equal(toHex(layout.blake2Personalization), hex);
  }
  // The conventions' digest length formula, (512/n)*((n+7)/8) in integer arithmetic.
  for (const [n, k, digest] of [
    [200, 9, 50],
    [96, 5, 60],
    [48, 5, 60],
    [144, 5, 54],
    [125, 4, 64],
  ]) {
    assert.equal(equihashLayout({ n, k, personalization: 'ZcashPoW', twist: false }).digestBytes, digest);
  }
});

test('layouts: unsupported parameters are a RangeError', () => {
  const bad: EquihashParams[] = [
    { n: 100, k: 5, personalization: 'ZcashPoW', twist: false }, // 100 is not a multiple of 6
    { n: 48, k: 0, personalization: 'ZcashPoW', twist: false },
    { n: 48, k: 5, personalization: 'Zcash', twist: false },
    { n: 48, k: 5, personalization: 'ZcashPoW', twist: true }, // the twist is defined for 64-byte outputs
    { n: 192, k: 5, personalization: 'ZcashPoW', twist: false }, // 33-bit indices
  ];
  for (const params of bad) assert.throws(() => equihashLayout(params), RangeError);
});

test('every valid librustzcash/zcash vector verifies', () => {
  for (const v of zcash.valid) {
    assert.equal(v.expected_valid, true);
    const result = checkEquihash(paramsOf(v), fromHex(v.input_hex), fromHex(v.nonce_hex), solutionOf(v));
    assert.equal(result, 'ok', v.id);
  }
  const covered = new Set(zcash.valid.map((v) => `${v.n},${v.k}`));
  assert.deepEqual([...covered].sort(), ['144,5', '200,9', '96,5']);
});

test('every invalid vector fails, for the reason librustzcash gives', () => {
  assert.equal(zcash.invalid.length, 9);
  for (const v of zcash.invalid) {
    assert.equal(v.expected_valid, false);
    const expected = LIBRUSTZCASH_KIND[v.expected_error_librustzcash ?? ''];
    assert.ok(expected, `${v.id}: unknown error kind`);
    assert.equal(checkEquihash(paramsOf(v), fromHex(v.input_hex), fromHex(v.nonce_hex), solutionOf(v)), expected, v.id);
  }
});

test('all bits of a minimal solution matter', () => {
  const v = zcash.valid.find((x) => x.id === 'lrz-valid-96_5-minimal-all_bits_matter');
  assert.ok(v?.solution_minimal_hex);
  const params = paramsOf(v);
  const input = fromHex(v.input_hex);
  const nonce = fromHex(v.nonce_hex);
  const solution = fromHex(v.solution_minimal_hex);
  assert.equal(verifyEquihash(params, input, nonce, solution), true);
  for (let bit = 0; bit < solution.length * 8; bit++) {
    assert.equal(verifyEquihash(params, input, nonce, flipBit(solution, bit)), false, `bit ${bit}`);
  }
});

test('solution packing: Zcash minimal-representation vectors', () => {
  const vectors = zcash.encoding_vectors.minimal_solution_representation;
  assert.equal(vectors.length, 4);
  for (const v of vectors) {
    const bits = v.collision_bit_len + 1;
    assert.equal(toHex(packBits(v.indices, bits)), v.minimal_hex, v.case);
    assert.deepEqual(unpackBits(fromHex(v.minimal_hex), bits, v.indices.length), v.indices, v.case);
  }
});

test('bit packing: Zcash ExpandArray/CompressArray vectors', () => {
  const vectors = zcash.encoding_vectors.expand_compress_arrays;
  assert.equal(vectors.length, 5);
  for (const v of vectors) {
    // Expanded form: each value as a big-endian word of ceil(bit_len/8) + byte_pad bytes.
    const width = Math.ceil(v.bit_len / 8) + v.byte_pad;
    const expanded = fromHex(v.expanded_hex);
    const values: number[] = [];
    for (let at = 0; at < expanded.length; at += width) {
      values.push(expanded.subarray(at, at + width).reduce((acc, byte) => acc * 256 + byte, 0));
    }
    assert.equal(toHex(packBits(values, v.bit_len)), v.compact_hex, v.case);
    assert.deepEqual(unpackBits(fromHex(v.compact_hex), v.bit_len, values.length), values, v.case);
  }
});

test('packIndices / unpackIndices round-trip and reject wrong sizes', () => {
  const v = zcash.valid[0];
  const params = paramsOf(v);
  const indices = v.solution_indices ?? [];
  const packed = packIndices(params, indices);
  assert.equal(packed.length, 68);
  assert.deepEqual(unpackIndices(params, packed), indices);
  assert.throws(() => unpackIndices(params, packed.subarray(1)), DecodeError);
  assert.throws(() => packIndices(params, indices.slice(1)), RangeError);
  assert.throws(() => packIndices(params, [...indices.slice(1), 2 ** 17]), RangeError);
});

test('malformed solutions and headers are results, never exceptions', () => {
  const v = zcash.valid[0];
  const params = paramsOf(v);
  const input = fromHex(v.input_hex);
  const nonce = fromHex(v.nonce_hex);
  const packed = solutionOf(v);
  for (const bad of [new Uint8Array(0), packed.subarray(1), new Uint8Array(69), new Uint8Array(1344)]) {
    assert.equal(checkEquihash(params, input, nonce, bad), 'invalid-solution-size');
  }
  assert.equal(checkEquihash(params, input, nonce, new Uint8Array(68)), 'duplicate-indices');
  assert.equal(checkEquihash(params, input, nonce, new Uint8Array(68).fill(0xff)), 'duplicate-indices');
  assert.equal(checkHeaderSolution(ZELHASH, new Uint8Array(139), new Uint8Array(52)), 'invalid-header-size');
  assert.equal(verifyHeaderSolution(ZELHASH, new Uint8Array(140), new Uint8Array(52)), false);
  for (let i = 0; i < 200; i++) {
    const random = new Uint8Array(52).map((_, j) => (i * 131 + j * 17 + ((i * j) >> 2)) & 0xff);
    assert.equal(verifyHeaderSolution(ZELHASH, new Uint8Array(140), random), false);
  }
});

test('real Zcash headers and genesis blocks verify; their hashes match', () => {
  assert.equal(zcash.block_header_vectors.length, 8);
  for (const v of zcash.block_header_vectors) {
    const params = paramsOf(v);
    const input = fromHex(v.input_hex);
    const nonce = fromHex(v.nonce_hex);
    const solution = fromHex(v.solution_minimal_hex);
    assert.equal(verifyEquihash(params, input, nonce, solution), v.expected_valid, v.id);
    const header140 = fromHex(v.header140_hex ?? (v.header_hex ?? '').slice(0, 280));
    assert.equal(toHex(header140), v.input_hex + v.nonce_hex, v.id);
    assert.equal(verifyHeaderSolution(params, header140, solution), v.expected_valid, v.id);
    if (v.header_hex) {
      assert.equal(v.header_hex, v.input_hex + v.nonce_hex + (v.solution_compactsize_hex ?? '') + v.solution_minimal_hex, v.id);
      assert.equal(hashToHex(sha256d(fromHex(v.header_hex))), v.block_hash, v.id);
    }
  }
});

test('Flux mainnet ZelHash headers verify with the twist and fail without it', () => {
  const noTwist: EquihashParams = { ...ZELHASH, twist: false };
  assert.equal(flux.blocks.length, 3);
  for (const b of flux.blocks) {
    const header140 = fromHex(b.header140_hex);
    const solution = fromHex(b.solution_hex);
    assert.equal(b.header_hex, `${b.header140_hex}34${b.solution_hex}`);
    assert.equal(hashToHex(sha256d(fromHex(b.header_hex))), b.hash, `hash of ${b.height}`);
    assert.equal(checkHeaderSolution(ZELHASH, header140, solution), 'ok', `${b.height} with the twist`);
    assert.equal(verifyHeaderSolution(noTwist, header140, solution), false, `${b.height} without the twist`);
    // The stock Zcash (125,4) personalization is not ZelHash either.
    assert.equal(verifyHeaderSolution({ ...ZELHASH, personalization: 'ZcashPoW' }, header140, solution), false);
  }
  const extra = flux.extra_valid_solution_block_400000;
  assert.equal(verifyHeaderSolution(ZELHASH, fromHex(extra.header140_hex), fromHex(extra.solution_hex)), true);
  assert.equal(verifyHeaderSolution(noTwist, fromHex(extra.header140_hex), fromHex(extra.solution_hex)), false);
});

test('ZelHash: every single-bit change of a header or its solution is rejected', () => {
  const b = flux.blocks[0];
  const header140 = fromHex(b.header140_hex);
  const solution = fromHex(b.solution_hex);
  for (let bit = 0; bit < solution.length * 8; bit++) {
    assert.equal(verifyHeaderSolution(ZELHASH, header140, flipBit(solution, bit)), false, `solution bit ${bit}`);
  }
  for (let bit = 0; bit < header140.length * 8; bit++) {
    assert.equal(verifyHeaderSolution(ZELHASH, flipBit(header140, bit), solution), false, `header bit ${bit}`);
  }
});

test('ZelHash twist: the first 256 expanded rows of block 400000', () => {
  const v = flux.twist_generation_vector_block_400000;
  const layout = equihashLayout(ZELHASH);
  const header = fromHex(v.header140_hex);
  const stream = new EquihashHashStream(layout, header.subarray(0, 108), header.subarray(108));
  const values = new Uint32Array(layout.params.k + 1);
  const rows = new Uint8Array(v.rows * v.row_bytes);
  const view = new DataView(rows.buffer);
  for (let i = 0; i < v.rows; i++) {
    const out = stream.output(Math.floor(i / layout.indicesPerHash));
    readBitsInto(out, (i % layout.indicesPerHash) * layout.chunkBytes * 8, layout.collisionBits, values.length, values, 0);
    values.forEach((value, j) => view.setUint32(i * v.row_bytes + j * 4, value, false));
  }
  assert.equal(toHex(rows), v.expected_rows_hex);
});

test('ZelHash twist: outputs do not depend on the order they are asked for', () => {
  const layout = equihashLayout(ZELHASH);
  const header = fromHex(flux.blocks[1].header140_hex);
  const forwards = new EquihashHashStream(layout, header.subarray(0, 108), header.subarray(108));
  const expected = Array.from({ length: 40 }, (_, g) => toHex(forwards.output(g)));
  const shuffled = new EquihashHashStream(layout, header.subarray(0, 108), header.subarray(108));
  for (const g of [37, 5, 5, 16, 15, 0, 39, 31, 17, 3]) assert.equal(toHex(shuffled.output(g)), expected[g], `g=${g}`);
  // Group starts are untwisted, and the last 3 bits of every 16-byte chunk are cleared.
  const plain = new EquihashHashStream(equihashLayout({ ...ZELHASH, twist: false }), header.subarray(0, 108), header.subarray(108));
  const g16 = plain.output(16).slice();
  for (const i of [15, 31, 47, 63]) g16[i] &= 0xf8;
  assert.equal(expected[16], toHex(g16));
  for (const hex of expected) for (const i of [15, 31, 47, 63]) assert.equal(fromHex(hex)[i] & 7, 0);
});

test('other Flux mainnet header (200,9 era) verifies and hashes', () => {
  for (const h of flux.other_flux_mainnet_headers) {
    const raw = fromHex(h.header_hex);
    const sizeBytes = h.solution_compactsize_hex.length / 2;
    const solution = raw.subarray(140 + sizeBytes);
    assert.equal(solution.length, solutionSize(EQUIHASH_200_9));
    assert.equal(verifyHeaderSolution(EQUIHASH_200_9, raw.subarray(0, 140), solution), true, `${h.height}`);
    assert.equal(hashToHex(sha256d(raw)), h.hash);
  }
});

test('genesis headers: Zcash raw headers and Flux headers rebuilt from chainparams verify and hash', () => {
  const entries = genesisHeaders().genesis;
  assert.equal(entries.length, 6);
  for (const g of entries) {
    const f = g.chainparams_fields;
    const params: EquihashParams = { n: g.n, k: g.k, personalization: 'ZcashPoW', twist: false };
    const solution = fromHex(f.nSolution_hex);
    const header140 = genesisHeader140(f);
    const len = solution.length;
    const sizePrefix = len < 0xfd ? Uint8Array.of(len) : Uint8Array.of(0xfd, len & 0xff, len >> 8); // compactsize
    const full = new Uint8Array([...header140, ...sizePrefix, ...solution]);
    if (g.header_hex) assert.equal(toHex(full), g.header_hex, `${g.chain} ${g.network}`);
    assert.equal(hashToHex(sha256d(full)), g.hash, `${g.chain} ${g.network} hash`);
    assert.equal(verifyHeaderSolution(params, header140, solution), true, `${g.chain} ${g.network} solution`);
  }
});
