import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EQUIHASH_200_9, EQUIHASH_48_5, ZELHASH, solveHeader, toHex } from '@cs/consensus';
import { parseSubmit } from './methods.ts';
import { algorithmByName, notifyAlgorithm, parseSetExtranonce, parseSetTarget, shareHash, submitParams } from './miner.ts';
import { targetToHex } from './target.ts';

test("notify's trailing algorithm fields pick the parameter set; none means the miner's default", () => {
  const head = ['1', '04000000', '', '', '', '', '', true];
  assert.equal(notifyAlgorithm([...head, '125_4', 'ZelProof']), ZELHASH);
  assert.equal(notifyAlgorithm([...head, '48_5', 'ZcashPoW']), EQUIHASH_48_5);
  assert.equal(notifyAlgorithm([...head, '200_9']), EQUIHASH_200_9);
  assert.equal(notifyAlgorithm(head), null);
  assert.throws(() => notifyAlgorithm([...head, '144_5', 'BgoldPoW']), RangeError);
  assert.throws(() => notifyAlgorithm([...head, '125_4', 'ZcashPoW']), RangeError);
  assert.equal(algorithmByName('125_4'), ZELHASH);
  assert.throws(() => algorithmByName('96_5'), /unknown algorithm/);
});

test('set_target and set_extranonce parameters', () => {
  assert.equal(parseSetTarget([targetToHex(123n)]), 123n);
  assert.deepEqual([...parseSetExtranonce(['a1b2c3d4', 4])], [0xa1, 0xb2, 0xc3, 0xd4]);
  for (const bad of [[''], ['abc'], ['zz'], [7], ['00'.repeat(32)]]) assert.throws(() => parseSetExtranonce(bad), RangeError, JSON.stringify(bad));
});

test('a solved header becomes the submit the pool reads back: TIME and NONCE_2 as in the header, the solution with its compactSize', () => {
  const header = new Uint8Array(140);
  header.fill(7, 0, 100);
  header.set([0x10, 0x20, 0x30, 0x40], 100); // time
  header.set([0xaa, 0xbb, 0xcc, 0xdd], 108); // NONCE_1
  // This header has solutions (the solver is deterministic).
  const [solution] = solveHeader(EQUIHASH_48_5, header);
  const params = submitParams('addr.rig', 'job7', header, 4, solution);
  const read = parseSubmit(params);
  assert.deepEqual([read.worker, read.jobId, read.time], ['addr.rig', 'job7', '10203040']);
  assert.equal(read.nonce2, toHex(header.subarray(112)));
  // (48,5) solutions are 2^5 indices of 9 bits, 36 bytes: compactSize 0x24.
  assert.equal(solution.length, 36);
  assert.equal(read.solution, `24${toHex(solution)}`);
  assert.equal(shareHash(header, solution).length, 32);
});
