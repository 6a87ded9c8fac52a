/**
 * Equihash parameter sets and the sizes derived from them.
 *
 * An Equihash instance (n, k) hashes indices 0 .. 2^(n/(k+1)+1) - 1 to n-bit strings and asks for
 * 2^k distinct indices whose strings XOR to zero, arranged as a binary tree whose siblings collide
 * on successive n/(k+1)-bit chunks. The BLAKE2b personalization binds the hashes to the instance.
 */

export interface EquihashParams {
  /** Width in bits of the strings that must XOR to zero. */
  readonly n: number;
  /** Number of collision rounds: a solution has 2^k indices. */
  readonly k: number;
  /** The 8 ASCII characters that open the 16-byte BLAKE2b personalization ('ZcashPoW', 'ZelProof'). */
  readonly personalization: string;
  /** Flux's ZelHash twist: each hash output is the lane-wise prefix sum over its group of 16 (see equihash-hash.ts). */
  readonly twist: boolean;
}

/** Flux ZelHash, used by mainnet and testnet: stock ZelHash GPU miners solve it. */
export const ZELHASH: EquihashParams = Object.freeze({ n: 125, k: 4, personalization: 'ZelProof', twist: true });
/** Zcash's regtest instance: small enough for the built-in CPU solver to mine in milliseconds. */
export const EQUIHASH_48_5: EquihashParams = Object.freeze({ n: 48, k: 5, personalization: 'ZcashPoW', twist: false });
/** Zcash mainnet/testnet instance (also Flux's first era). */
export const EQUIHASH_200_9: EquihashParams = Object.freeze({ n: 200, k: 9, personalization: 'ZcashPoW', twist: false });

/** Everything verification, packing and solving need, computed once per parameter set. */
export interface EquihashLayout {
  readonly params: EquihashParams;
  /** n/(k+1): bits compared per round. */
  readonly collisionBits: number;
  /** collisionBits + 1: width of one packed index. */
  readonly indexBits: number;
  /** 2^indexBits: how many indices exist. */
  readonly indexCount: number;
  /** floor(512/n): indices served by one BLAKE2b output. */
  readonly indicesPerHash: number;
  /** ceil(n/8): bytes of the output slice one index uses (n=125 uses 16 bytes, the last 3 bits unused). */
  readonly chunkBytes: number;
  /** indicesPerHash * chunkBytes: the BLAKE2b digest length. */
  readonly digestBytes: number;
  /** BLAKE2b invocations needed to cover every index (the last one may be partly used). */
  readonly hashCount: number;
  /** 2^k. */
  readonly solutionIndices: number;
  /** 2^k * indexBits / 8: bytes of the minimal (bit-packed) solution. */
  readonly solutionBytes: number;
  /** personalization || le32(n) || le32(k). */
  readonly blake2Personalization: Uint8Array;
}

/** Groups of hash outputs the twist sums over (g with its low 4 bits cleared up to g). */
export const TWIST_GROUP = 16;

const layouts = new WeakMap<EquihashParams, EquihashLayout>();

/**
 * Derives the layout of a parameter set. Unsupported parameters are a configuration error, so this
 * throws a RangeError rather than reporting an invalid solution.
 */
export function equihashLayout(params: EquihashParams): EquihashLayout {
  const cached = layouts.get(params);
  if (cached) return cached;
  const layout = deriveLayout(params);
  layouts.set(params, layout);
  return layout;
}

function deriveLayout(params: EquihashParams): EquihashLayout {
  const { n, k, personalization, twist } = params;
  if (!Number.isInteger(n) || !Number.isInteger(k) || k < 1 || n < 2 || n > 512 || n % (k + 1) !== 0) {
    throw new RangeError(`unsupported Equihash parameters n=${n} k=${k}`);
  }
  const collisionBits = n / (k + 1);
  // Indices are handled as non-negative 32-bit integers; k <= 20 keeps sort keys exact in doubles.
  if (collisionBits + 1 > 31 || k > 20) throw new RangeError(`unsupported Equihash parameters n=${n} k=${k}`);
  const indexBits = collisionBits + 1;
  const solutionIndices = 2 ** k;
  if ((solutionIndices * indexBits) % 8 !== 0) throw new RangeError(`Equihash n=${n} k=${k} has no whole-byte solution`);
  if (!/^[\x20-\x7e]{8}$/.test(personalization)) throw new RangeError('Equihash personalization must be 8 ASCII characters');
  const indicesPerHash = Math.floor(512 / n);
  const chunkBytes = Math.ceil(n / 8);
  const digestBytes = indicesPerHash * chunkBytes;
  // The twist is defined on sixteen 32-bit lanes of a 64-byte output (n=125: 4 chunks of 16 bytes).
  if (twist && (digestBytes !== 64 || chunkBytes !== 16)) {
    throw new RangeError('the ZelHash twist needs 64-byte outputs of 16-byte chunks');
  }
  const indexCount = 2 ** indexBits;

  const blake2Personalization = new Uint8Array(16);
  for (let i = 0; i < 8; i++) blake2Personalization[i] = personalization.charCodeAt(i);
  const view = new DataView(blake2Personalization.buffer);
  view.setUint32(8, n, true);
  view.setUint32(12, k, true);

  return Object.freeze({
    params,
    collisionBits,
    indexBits,
    indexCount,
    indicesPerHash,
    chunkBytes,
    digestBytes,
    hashCount: Math.ceil(indexCount / indicesPerHash),
    solutionIndices,
    solutionBytes: (solutionIndices * indexBits) / 8,
    blake2Personalization,
  });
}

/** Bytes of the minimal solution: 36 for (48,5), 52 for (125,4), 1344 for (200,9). */
export function solutionSize(params: EquihashParams): number {
  return equihashLayout(params).solutionBytes;
}
