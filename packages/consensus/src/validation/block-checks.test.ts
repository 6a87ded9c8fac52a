import { test } from 'node:test';
import assert from 'node:assert/strict';
import { assembleBlock, coinbaseTx, mine, withWitnessCommitment } from '../../test/blocks.ts';
import { REGTEST } from '../params/networks.ts';
import { Block } from '../primitives/block.ts';
import { BlockHeader } from '../primitives/header.ts';
import { Transaction } from '../primitives/tx.ts';
import { bip34HeightPush, checkBlock, checkBlockHeader, contextualCheckBlock, contextualCheckBlockHeader } from './block-checks.ts';
import { ValidationError } from './errors.ts';

const params = REGTEST;
const HEIGHT = 7;

/** An ordinary spend with a witness: one input (an arbitrary prevout), one output. */
function spend(seed: number, opts: { witness?: boolean; locktime?: number; sequence?: number } = {}): Transaction {
  return new Transaction({
    version: 2,
    inputs: [
      {
        prevout: { txid: new Uint8Array(32).fill(seed), vout: 0 },
        scriptSig: new Uint8Array(0),
        sequence: opts.sequence ?? 0xffffffff,
        witness: opts.witness ? [Uint8Array.of(1, 2, 3)] : [],
      },
    ],
    outputs: [{ value: 1000n, scriptPubKey: Uint8Array.of(0x51) }],
    locktime: opts.locktime ?? 0,
  });
}

function rejects(fn: () => void, reason: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ValidationError, String(e));
    assert.equal(e.reason, reason);
    return true;
  });
}

const bodyOnly = { checkPoW: false } as const;
const validTxs = () => withWitnessCommitment([coinbaseTx(HEIGHT, 5000n), spend(1, { witness: true }), spend(2)]);
const valid = mine(assembleBlock(validTxs()), params);

test('a well-formed mined block passes every context-free and contextual check', () => {
  checkBlock(valid, params);
  contextualCheckBlock(valid, HEIGHT, valid.header.time - 1);
  contextualCheckBlockHeader(
    valid.header,
    { expectedBits: params.powLimitBits, medianTimePast: valid.header.time - 1, now: valid.header.time },
    params,
  );
  // And survives a serialization round trip unchanged.
  assert.equal(Block.decode(valid.encode()).header.hashHex, valid.header.hashHex);
});

test('header rules: version, reserved field, solution, target', () => {
  const h = valid.header;
  rejects(() => checkBlockHeader(new BlockHeader({ ...h, version: 3 }), params), 'version-too-low');
  rejects(() => checkBlockHeader(new BlockHeader({ ...h, reserved: new Uint8Array(32).fill(1) }), params), 'bad-reserved-field');
  const flipped = h.solution.slice();
  flipped[5] ^= 0x10;
  rejects(() => checkBlockHeader(new BlockHeader({ ...h, solution: flipped }), params), 'invalid-solution');
  rejects(() => checkBlockHeader(new BlockHeader({ ...h, solution: h.solution.subarray(1) }), params), 'invalid-solution');
  // A valid solution whose hash misses a hard target.
  const hard = mine(assembleBlock(validTxs(), { bits: 0x1d00ffff }), params, false);
  rejects(() => checkBlockHeader(hard.header, params), 'high-hash');
  // A target easier than powLimit is refused even when the hash meets it.
  const easy = mine(assembleBlock(validTxs(), { bits: 0x207fffff }), params);
  rejects(() => checkBlockHeader(easy.header, params), 'high-hash');
  // Changing the nonce keeps the solution's shape but not its validity.
  const nonce = h.nonce.slice();
  nonce[0] ^= 1;
  rejects(() => checkBlockHeader(new BlockHeader({ ...h, nonce }), params), 'invalid-solution');
});

test('merkle rules: wrong root, and the duplicate-transaction mutation', () => {
  rejects(() => checkBlock(assembleBlock(validTxs(), { merkleRoot: new Uint8Array(32).fill(9) }), params, bodyOnly), 'bad-txnmrklroot');
  const txs = [coinbaseTx(HEIGHT, 5000n), spend(1), spend(2)];
  const mutated = assembleBlock([...txs, txs[2]], { merkleRoot: assembleBlock(txs).header.merkleRoot });
  assert.throws(
    () => checkBlock(mutated, params, bodyOnly),
    (e: unknown) => e instanceof ValidationError && e.reason === 'bad-txns-duplicate' && e.corruptionPossible,
  );
});

test('size and coinbase rules', () => {
  rejects(() => checkBlock(assembleBlock([]), params, bodyOnly), 'bad-blk-length');
  rejects(() => checkBlock(assembleBlock([spend(1)]), params, bodyOnly), 'bad-cb-missing');
  rejects(() => checkBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), coinbaseTx(HEIGHT + 1, 1n)]), params, bodyOnly), 'bad-cb-multiple');
  const shortCb = new Transaction({ ...coinbaseTx(HEIGHT, 1n), inputs: [{ ...coinbaseTx(HEIGHT, 1n).inputs[0], scriptSig: Uint8Array.of(0x57) }] });
  rejects(() => checkBlock(assembleBlock([shortCb]), params, bodyOnly), 'bad-cb-length');
  // An oversized block: one transaction whose stripped size alone exceeds the weight limit.
  const huge = new Transaction({ ...spend(3), outputs: [{ value: 1n, scriptPubKey: new Uint8Array(1_000_001) }] });
  rejects(() => checkBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), huge]), params, bodyOnly), 'bad-blk-length');
});

test('transaction rules surface with their own reasons', () => {
  const dupInputs = new Transaction({ ...spend(1), inputs: [spend(1).inputs[0], spend(1).inputs[0]] });
  rejects(() => checkBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), dupInputs]), params, bodyOnly), 'bad-txns-inputs-duplicate');
  const negative = new Transaction({ ...spend(1), outputs: [{ value: -1n, scriptPubKey: Uint8Array.of(0x51) }] });
  rejects(() => checkBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), negative]), params, bodyOnly), 'bad-txns-vout-negative');
  const nullPrevout = new Transaction({
    ...spend(1),
    inputs: [{ ...spend(1).inputs[0], prevout: { txid: new Uint8Array(32), vout: 0xffffffff } }, spend(2).inputs[0]],
  });
  rejects(() => checkBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), nullPrevout]), params, bodyOnly), 'bad-txns-prevout-null');
});

test('legacy sigop limit', () => {
  // 1,001 OP_CHECKMULTISIG count 20 each without context: 20,020 sigops, x4 > 80,000.
  const heavy = new Transaction({ ...spend(1), outputs: [{ value: 1n, scriptPubKey: new Uint8Array(1001).fill(0xae) }] });
  rejects(() => checkBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), heavy]), params, bodyOnly), 'bad-blk-sigops');
  const light = new Transaction({ ...spend(1), outputs: [{ value: 1n, scriptPubKey: new Uint8Array(1000).fill(0xae) }] });
  checkBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), light]), params, bodyOnly);
});

test('witness commitment rules', () => {
  rejects(() => checkBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), spend(1, { witness: true })]), params, bodyOnly), 'unexpected-witness');
  const txs = validTxs();
  const badNonce = new Transaction({ ...txs[0], inputs: [{ ...txs[0].inputs[0], witness: [new Uint8Array(31)] }] });
  rejects(() => checkBlock(assembleBlock([badNonce, ...txs.slice(1)]), params, bodyOnly), 'bad-witness-nonce-size');
  // Swap the witness of the spend after committing: the commitment no longer matches.
  const changed = new Transaction({ ...txs[1], inputs: [{ ...txs[1].inputs[0], witness: [Uint8Array.of(9)] }] });
  rejects(() => checkBlock(assembleBlock([txs[0], changed, txs[2]]), params, bodyOnly), 'bad-witness-merkle-match');
  // Without witness data a commitment is optional.
  checkBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), spend(1)]), params, bodyOnly);
});

test('contextual rules: difficulty, time window, BIP34 height, finality', () => {
  const h = valid.header;
  const ctx = { expectedBits: params.powLimitBits, medianTimePast: h.time - 1, now: h.time };
  rejects(() => contextualCheckBlockHeader(h, { ...ctx, expectedBits: 0x1f07ffff }, params), 'bad-diffbits');
  rejects(() => contextualCheckBlockHeader(h, { ...ctx, medianTimePast: h.time }, params), 'time-too-old');
  rejects(() => contextualCheckBlockHeader(h, { ...ctx, now: h.time - params.maxFutureBlockTime - 1 }, params), 'time-too-new');
  contextualCheckBlockHeader(h, { ...ctx, now: h.time - params.maxFutureBlockTime }, params);

  rejects(() => contextualCheckBlock(valid, HEIGHT + 1, h.time), 'bad-cb-height');
  const nonFinal = spend(5, { locktime: HEIGHT + 1, sequence: 0 });
  rejects(() => contextualCheckBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), nonFinal]), HEIGHT, h.time), 'bad-txns-nonfinal');
  // The same locktime is fine once the height passes it, or when every input is final.
  contextualCheckBlock(assembleBlock([coinbaseTx(HEIGHT + 2, 1n), nonFinal]), HEIGHT + 2, h.time);
  contextualCheckBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), spend(5, { locktime: HEIGHT + 1 })]), HEIGHT, h.time);
  // Time locks compare against the median time past.
  const timeLocked = spend(6, { locktime: 1795200000, sequence: 0 });
  rejects(() => contextualCheckBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), timeLocked]), HEIGHT, 1795200000), 'bad-txns-nonfinal');
  contextualCheckBlock(assembleBlock([coinbaseTx(HEIGHT, 1n), timeLocked]), HEIGHT, 1795200001);
});

test('BIP34 height pushes are minimal script numbers', () => {
  const hex = (n: number) => Buffer.from(bip34HeightPush(n)).toString('hex');
  assert.equal(hex(1), '51');
  assert.equal(hex(16), '60');
  assert.equal(hex(17), '0111');
  assert.equal(hex(127), '017f');
  assert.equal(hex(128), '028000');
  assert.equal(hex(255), '02ff00');
  assert.equal(hex(256), '020001');
  assert.equal(hex(65536), '03000001');
});
