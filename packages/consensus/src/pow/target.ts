/**
 * Targets, compact `bits`, difficulty and chain work, with Bitcoin Core's arith_uint256 semantics
 * (SetCompact, GetCompact, CheckProofOfWork, GetBlockProof, GetDifficulty). Targets are bigints in
 * 0 .. 2^256-1; hashes are 32 bytes in internal order, i.e. little-endian numbers.
 */

const UINT256_MAX = (1n << 256n) - 1n;

export interface CompactTarget {
  /** The decoded value, wrapped to 256 bits as arith_uint256's shift wraps it. */
  readonly target: bigint;
  /** The sign bit (0x00800000) is set on a non-zero mantissa. */
  readonly negative: boolean;
  /** The value does not fit in 256 bits. */
  readonly overflow: boolean;
}

/**
 * Compact format: exponent byte E and 23-bit mantissa M (bit 23 is a sign) encode M * 256^(E-3).
 * Exactly Core's SetCompact: a mantissa shifted right for E < 3, flags only for non-zero mantissas.
 */
export function compactToTarget(bits: number): CompactTarget {
  const size = (bits >>> 24) & 0xff;
  let word = bits & 0x007fffff;
  let target: bigint;
  if (size <= 3) {
    word >>>= 8 * (3 - size);
    target = BigInt(word);
  } else {
    target = (BigInt(word) << BigInt(8 * (size - 3))) & UINT256_MAX;
  }
  const negative = word !== 0 && (bits & 0x00800000) !== 0;
  const overflow = word !== 0 && (size > 34 || (word > 0xff && size > 33) || (word > 0xffff && size > 32));
  return { target, negative, overflow };
}

/** Core's GetCompact: the shortest encoding, moving the mantissa right a byte when it would read as negative. */
export function targetToCompact(target: bigint, negative = false): number {
  if (target < 0n || target > UINT256_MAX) throw new RangeError('a target is a 256-bit unsigned integer');
  let size = Math.ceil(target.toString(2).length / 8);
  if (target === 0n) size = 0;
  let compact = size <= 3 ? Number(target << BigInt(8 * (3 - size))) : Number((target >> BigInt(8 * (size - 3))) & 0xffffffffn);
  if (compact & 0x00800000) {
    compact >>>= 8;
    size++;
  }
  compact = (compact | (size << 24)) >>> 0;
  if (negative && (compact & 0x007fffff) !== 0) compact = (compact | 0x00800000) >>> 0;
  return compact;
}

/** The 256-bit little-endian number a 32-byte hash (internal byte order) stands for. */
export function hashToBigInt(hash: Uint8Array): bigint {
  if (hash.length !== 32) throw new RangeError('a hash is 32 bytes');
  let value = 0n;
  for (let i = 31; i >= 0; i--) value = (value << 8n) | BigInt(hash[i]);
  return value;
}

/** Whether a hash (internal byte order) is at or below the target. */
export function hashMeetsTarget(hashInternalLE: Uint8Array, target: bigint): boolean {
  return hashToBigInt(hashInternalLE) <= target;
}

/**
 * Core's CheckProofOfWork: bits must decode to a positive, non-overflowing target no easier than
 * powLimit, and the hash must meet it.
 */
export function checkProofOfWork(hashInternalLE: Uint8Array, bits: number, powLimit: bigint): boolean {
  const { target, negative, overflow } = compactToTarget(bits);
  if (negative || overflow || target === 0n || target > powLimit) return false;
  return hashMeetsTarget(hashInternalLE, target);
}

/**
 * Expected hashes to meet the target, 2^256 / (target + 1) (Core's GetBlockProof, which computes it
 * as ~target / (target + 1) + 1 to stay in 256 bits); 0 for bits that decode to no valid target.
 */
export function blockProof(bits: number): bigint {
  const { target, negative, overflow } = compactToTarget(bits);
  if (negative || overflow || target === 0n) return 0n;
  return (UINT256_MAX ^ target) / (target + 1n) + 1n;
}

/** Bitcoin Core's difficulty-1 target, 0x00000000ffff0000...: the reference of its `difficulty` fields. */
export const CORE_DIFF1_BITS = 0x1d00ffff;

/**
 * Difficulty as a double: the reference target over the target of bits, computed on the compact
 * forms exactly as Core's GetDifficulty (mantissa ratio, then one factor 256 per exponent step).
 * The default reference is Core's 0x1d00ffff, so the RPC `difficulty` means what Bitcoin users
 * expect. Zcash and Flux report difficulty relative to their powLimit instead: pass the powLimit's
 * compact form as referenceBits to get their numbers.
 */
export function getDifficulty(bits: number, referenceBits: number = CORE_DIFF1_BITS): number {
  let shift = (bits >>> 24) & 0xff;
  const referenceShift = (referenceBits >>> 24) & 0xff;
  let difficulty = (referenceBits & 0x00ffffff) / (bits & 0x00ffffff);
  while (shift < referenceShift) {
    difficulty *= 256;
    shift++;
  }
  while (shift > referenceShift) {
    difficulty /= 256;
    shift--;
  }
  return difficulty;
}
