/**
 * Equihash solution verification, for any (n, k), personalization and the ZelHash twist.
 *
 * A solution is valid when its 2^k indices, read as the leaves of a complete binary tree, satisfy
 * at every internal node of height r (1..k): the two children's accumulated XORs agree on chunk
 * r-1 (collision), the left child's first index is below the right child's (canonical order), and
 * the children share no index; and the root's XOR is zero on the last chunk. Nodes are checked in
 * depth-first post-order and each node reports its first failing rule in that order, as
 * librustzcash does, so the reason for a rejection matches its error kinds.
 *
 * Verification never throws on a malformed solution: every failure is a result code.
 */
import { readBits, readBitsInto } from './equihash-encoding.ts';
import { EquihashHashStream } from './equihash-hash.ts';
import { equihashLayout, type EquihashLayout, type EquihashParams } from './equihash-params.ts';

export type EquihashCheck =
  | 'ok'
  | 'invalid-solution-size' // not exactly solutionSize(params) bytes
  | 'invalid-header-size' // header form only: not 140 bytes
  | 'no-collision' // siblings differ on the chunk of their round (librustzcash Collision)
  | 'bad-ordering' // right sibling's first index below the left's (OutOfOrder)
  | 'duplicate-indices' // siblings share an index (DuplicateIdxs)
  | 'nonzero-final'; // the root does not XOR to zero (NonZeroRootHash)

/** Header bytes hashed as Equihash input: version .. bits (0..107), then the 32-byte nonce (108..139). */
export const HEADER_INPUT_BYTES = 108;
export const HEADER_NONCE_BYTES = 32;
export const HEADER_BYTES = HEADER_INPUT_BYTES + HEADER_NONCE_BYTES;

/** Per-layout buffers, reused across calls: verification is synchronous, so they are never shared. */
interface Scratch {
  readonly indices: Uint32Array;
  /** (k+1) chunk values per leaf; a node's running XOR lives in the row of its first leaf. */
  readonly rows: Uint32Array;
  /** g * 2^k + position: sorting these visits leaves in hash order while remembering where each goes. */
  readonly order: Float64Array;
}

const scratches = new WeakMap<EquihashLayout, Scratch>();

function scratchFor(layout: EquihashLayout): Scratch {
  let s = scratches.get(layout);
  if (!s) {
    const count = layout.solutionIndices;
    s = {
      indices: new Uint32Array(count),
      rows: new Uint32Array(count * (layout.params.k + 1)),
      order: new Float64Array(count),
    };
    scratches.set(layout, s);
  }
  return s;
}

/**
 * Checks a minimal solution for input || nonce (for a block header: bytes 0..107 and 108..139) and
 * returns 'ok' or why it is invalid. Only unsupported params throw (RangeError, from equihashLayout).
 */
export function checkEquihash(params: EquihashParams, input: Uint8Array, nonce: Uint8Array, solution: Uint8Array): EquihashCheck {
  const layout = equihashLayout(params);
  if (!(solution instanceof Uint8Array) || solution.length !== layout.solutionBytes) return 'invalid-solution-size';
  const s = scratchFor(layout);
  const count = layout.solutionIndices;
  for (let p = 0; p < count; p++) s.indices[p] = readBits(solution, p * layout.indexBits, layout.indexBits);
  fillLeafRows(layout, new EquihashHashStream(layout, input, nonce), s);
  return checkTree(layout, s);
}

export function verifyEquihash(params: EquihashParams, input: Uint8Array, nonce: Uint8Array, solution: Uint8Array): boolean {
  return checkEquihash(params, input, nonce, solution) === 'ok';
}

/** Checks the solution of a block header given as its 140 bytes (version .. nonce). */
export function checkHeaderSolution(params: EquihashParams, header140: Uint8Array, solution: Uint8Array): EquihashCheck {
  if (!(header140 instanceof Uint8Array) || header140.length !== HEADER_BYTES) return 'invalid-header-size';
  return checkEquihash(params, header140.subarray(0, HEADER_INPUT_BYTES), header140.subarray(HEADER_INPUT_BYTES), solution);
}

export function verifyHeaderSolution(params: EquihashParams, header140: Uint8Array, solution: Uint8Array): boolean {
  return checkHeaderSolution(params, header140, solution) === 'ok';
}

/** Expands every leaf's hash slice into its chunk values, computing each needed output once. */
function fillLeafRows(layout: EquihashLayout, stream: EquihashHashStream, s: Scratch): void {
  const { indicesPerHash, chunkBytes, collisionBits } = layout;
  const count = layout.solutionIndices;
  const chunks = layout.params.k + 1;
  const { indices, rows, order } = s;
  for (let p = 0; p < count; p++) order[p] = Math.floor(indices[p] / indicesPerHash) * count + p;
  // Increasing g lets the stream reuse an output (same g) or a twist prefix sum (same group of 16).
  order.sort();
  for (let q = 0; q < count; q++) {
    const p = order[q] % count;
    const index = indices[p];
    const out = stream.output((order[q] - p) / count);
    readBitsInto(out, (index % indicesPerHash) * chunkBytes * 8, collisionBits, chunks, rows, p * chunks);
  }
}

function checkTree(layout: EquihashLayout, s: Scratch): EquihashCheck {
  const { k } = layout.params;
  const chunks = k + 1;
  const count = layout.solutionIndices;
  const { indices, rows } = s;
  for (let leaf = 0; leaf < count; leaf++) {
    // After leaf p, post-order completes one node per trailing one bit of p: heights 1, 2, ...
    for (let r = 1; r <= k && ((leaf + 1) & ((1 << r) - 1)) === 0; r++) {
      const half = 1 << (r - 1);
      const left = leaf + 1 - 2 * half;
      const right = left + half;
      if (rows[left * chunks + r - 1] !== rows[right * chunks + r - 1]) return 'no-collision';
      if (indices[right] < indices[left]) return 'bad-ordering';
      for (let a = left; a < right; a++) {
        const ia = indices[a];
        for (let b = right; b < right + half; b++) if (indices[b] === ia) return 'duplicate-indices';
      }
      for (let j = r; j < chunks; j++) rows[left * chunks + j] ^= rows[right * chunks + j];
    }
  }
  return rows[k] === 0 ? 'ok' : 'nonzero-final';
}
