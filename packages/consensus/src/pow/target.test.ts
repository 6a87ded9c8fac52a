import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hashFromHex } from '../encoding/hex.ts';
import {
  CORE_DIFF1_BITS,
  blockProof,
  checkProofOfWork,
  compactToTarget,
  getDifficulty,
  hashMeetsTarget,
  hashToBigInt,
  targetToCompact,
} from './target.ts';

// Bitcoin Core's arith_uint256_tests "bignum_SetCompact": bits, decoded value, GetCompact(negative), flags.
const CORE_SET_COMPACT: [number, bigint, number, boolean, boolean][] = [
  [0x00000000, 0n, 0x00000000, false, false],
  [0x00123456, 0n, 0x00000000, false, false],
  [0x01003456, 0n, 0x00000000, false, false],
  [0x02000056, 0n, 0x00000000, false, false],
  [0x03000000, 0n, 0x00000000, false, false],
  [0x04000000, 0n, 0x00000000, false, false],
  [0x00923456, 0n, 0x00000000, false, false],
  [0x01803456, 0n, 0x00000000, false, false],
  [0x02800056, 0n, 0x00000000, false, false],
  [0x03800000, 0n, 0x00000000, false, false],
  [0x04800000, 0n, 0x00000000, false, false],
  [0x01123456, 0x12n, 0x01120000, false, false],
  [0x01fedcba, 0x7en, 0x01fe0000, true, false],
  [0x02123456, 0x1234n, 0x02123400, false, false],
  [0x03123456, 0x123456n, 0x03123456, false, false],
  [0x04123456, 0x12345600n, 0x04123456, false, false],
  [0x04923456, 0x12345600n, 0x04923456, true, false],
  [0x05009234, 0x92340000n, 0x05009234, false, false],
  [0x20123456, 0x123456n << 232n, 0x20123456, false, false],
];

test("compact bits: Bitcoin Core's SetCompact/GetCompact cases", () => {
  for (const [bits, target, compact, negative, overflow] of CORE_SET_COMPACT) {
    const decoded = compactToTarget(bits);
    const label = `0x${bits.toString(16).padStart(8, '0')}`;
    assert.equal(decoded.target, target, label);
    assert.equal(decoded.negative, negative, label);
    assert.equal(decoded.overflow, overflow, label);
    assert.equal(targetToCompact(decoded.target, decoded.negative), compact, label);
  }
  assert.equal(compactToTarget(0xff123456).overflow, true);
  // The overflow edges: a 1-, 2- and 3-byte mantissa fits up to exponents 34, 33 and 32.
  assert.equal(compactToTarget(0x220000ff).overflow, false);
  assert.equal(compactToTarget(0x230000ff).overflow, true);
  assert.equal(compactToTarget(0x2100ffff).overflow, false);
  assert.equal(compactToTarget(0x2200ffff).overflow, true);
  assert.equal(compactToTarget(0x207fffff).overflow, false);
  assert.equal(compactToTarget(0x217fffff).overflow, true);
});

test('compact bits: GetCompact of well-known targets and a round trip', () => {
  assert.equal(targetToCompact(0xffffn << 208n), 0x1d00ffff);
  // A mantissa with its top bit set moves one byte right (0x80 would read as the sign).
  assert.equal(targetToCompact(0x80n), 0x02008000);
  assert.equal(targetToCompact(0x7fn), 0x017f0000);
  for (const bits of [0x1d00ffff, 0x1f07ffff, 0x200f0f0f, 0x1d1b9fa2, 0x1c0fffff, 0x207fffff, 0x1b0404cb]) {
    assert.equal(targetToCompact(compactToTarget(bits).target), bits);
  }
  assert.throws(() => targetToCompact(1n << 256n), RangeError);
  assert.throws(() => targetToCompact(-1n), RangeError);
});

test('hashes are little-endian numbers compared to the target', () => {
  const hash = hashFromHex('000000105e37a8d520bac14db76904d3b4d4775e93e30e8af93fc63d05742008');
  assert.equal(hashToBigInt(hash), 0x000000105e37a8d520bac14db76904d3b4d4775e93e30e8af93fc63d05742008n);
  const target = compactToTarget(0x1d1b9fa2).target; // Flux block 1134187 and its bits
  assert.equal(hashMeetsTarget(hash, target), true);
  assert.equal(hashMeetsTarget(hash, hashToBigInt(hash)), true, 'equal to the target is enough');
  assert.equal(hashMeetsTarget(hash, hashToBigInt(hash) - 1n), false);
});

test("checkProofOfWork: Core's range checks on bits", () => {
  const powLimit = compactToTarget(0x1f07ffff).target;
  const low = new Uint8Array(32); // hash 0 meets any positive target
  assert.equal(checkProofOfWork(low, 0x1f07ffff, powLimit), true);
  assert.equal(checkProofOfWork(low, 0x1f08ffff, powLimit), false, 'easier than powLimit');
  assert.equal(checkProofOfWork(low, 0x1f87ffff, powLimit), false, 'negative');
  assert.equal(checkProofOfWork(low, 0x1f000000, powLimit), false, 'zero');
  assert.equal(checkProofOfWork(low, 0xff07ffff, 1n << 256n), false, 'overflow');
  const high = new Uint8Array(32).fill(0xff);
  assert.equal(checkProofOfWork(high, 0x1f07ffff, powLimit), false);
});

test("getDifficulty: Core's GetDifficulty values, and a powLimit reference", () => {
  // Bitcoin Core's blockchain_tests get_difficulty_for_very_low_target and neighbours.
  const cases: [number, number][] = [
    [0x1f111111, 0.000001],
    [0x1ef88f6f, 0.000016],
    [0x1df88f6f, 0.004023],
    [0x1cf88f6f, 1.029916],
    [0x12345678, 5.913134931067755e24],
  ];
  for (const [bits, expected] of cases) {
    const d = getDifficulty(bits);
    assert.ok(Math.abs(d - expected) <= 0.00001 * Math.max(1, expected), `0x${bits.toString(16)}: ${d}`);
  }
  assert.equal(getDifficulty(CORE_DIFF1_BITS), 1);
  // Zcash/Flux style: relative to powLimit 0x1f07ffff; the block-1134187 bits read as about 19k there.
  assert.equal(getDifficulty(0x1f07ffff, 0x1f07ffff), 1);
  assert.equal(getDifficulty(0x1d1b9fa2, 0x1f07ffff), (0x07ffff / 0x1b9fa2) * 65536);
});

test('blockProof: 2^256 / (target + 1), zero for invalid bits', () => {
  assert.equal(blockProof(0x1d00ffff), 0x100010001n);
  for (const bits of [0x1f07ffff, 0x200f0f0f, 0x1d1b9fa2, 0x03000001]) {
    const target = compactToTarget(bits).target;
    assert.equal(blockProof(bits), (1n << 256n) / (target + 1n));
  }
  assert.equal(blockProof(0x00000000), 0n);
  assert.equal(blockProof(0x04923456), 0n);
  assert.equal(blockProof(0xff123456), 0n);
});
