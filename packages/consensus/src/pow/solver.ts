/**
 * CPU Equihash solver: Wagner's algorithm on typed arrays, for any (n, k) and the ZelHash twist.
 *
 * Level 0 holds one row per index with its k+1 chunk values. Round r (0 .. k-2) bucket-sorts the
 * rows on chunk r (a counting sort over 2^collisionBits buckets), pairs every two rows of a bucket
 * and keeps, for each pair, the XOR of the later chunks and references to the two rows. The last
 * round pairs rows equal on both remaining chunks: each such pair XORs to zero everywhere and
 * unfolds, through the references, into 2^k indices. Candidates with a repeated index are dropped;
 * the rest are put in canonical order (at every node the subtree with the smaller first index on
 * the left), which keeps every collision, so each result passes verifyEquihash.
 *
 * Memory is typed arrays only: level 0 takes (k+1) * 4 bytes per index, each later level
 * (chunks left + 2 references) * 4 bytes per row, references kept to the end; levels hold about as
 * many rows as there are indices. (48,5): kilobytes and well under a millisecond. (125,4): 2^26
 * rows, 3.4 GB peak resident and under two minutes per nonce on one core, half of it BLAKE2b.
 */
import { packIndices, readBitsInto } from './equihash-encoding.ts';
import { EquihashHashStream } from './equihash-hash.ts';
import { equihashLayout, type EquihashLayout, type EquihashParams } from './equihash-params.ts';
import { HEADER_BYTES, HEADER_INPUT_BYTES } from './equihash.ts';

/**
 * Bound on the rows of a level: the larger of a multiple of the index count and a floor. A level of
 * L rows yields about L^2 / 2^(collisionBits+1) pairs, so sizes drift away from the index count
 * round after round: by a fraction of a percent with 2^26 indices, by 2x with (48,5)'s 512, where
 * the floor keeps every pair. Pairs past the bound are dropped, which can only lose solutions.
 */
const MAX_ROWS_FACTOR = 2;
const MIN_MAX_ROWS = 1 << 20;

/**
 * All solutions Wagner's algorithm finds for input || nonce, each as 2^k indices in canonical order.
 * Synchronous: a node or miner runs ZelHash-sized solves in a worker thread.
 */
export function solveEquihash(params: EquihashParams, input: Uint8Array, nonce: Uint8Array): number[][] {
  const layout = equihashLayout(params);
  const maxRows = Math.max(layout.indexCount * MAX_ROWS_FACTOR, MIN_MAX_ROWS);
  const bucketEnds = new Uint32Array(2 ** layout.collisionBits);

  let level = generateLevel0(layout, new EquihashHashStream(layout, input, nonce));
  const refs: PairRefs[] = [];
  for (let r = 0; r < params.k - 1; r++) {
    const next = collide(level, bucketEnds, maxRows);
    refs.push(next.refs);
    level = next.level;
  }
  return finalRound(layout, level, refs, bucketEnds);
}

/** Solutions for a block header's bytes 0..139, packed as they go into the block. */
export function solveHeader(params: EquihashParams, header140: Uint8Array): Uint8Array[] {
  if (header140.length !== HEADER_BYTES) throw new RangeError(`a block header is ${HEADER_BYTES} bytes before its solution`);
  return solveEquihash(params, header140.subarray(0, HEADER_INPUT_BYTES), header140.subarray(HEADER_INPUT_BYTES)).map((indices) =>
    packIndices(params, indices),
  );
}

/**
 * Rows of one level, row-major: row i's chunks not yet collided on are data[i*width .. +width), the
 * first being the one the next round collides on. Keeping a row's chunks together makes the
 * random reads of pairing one cache miss per row.
 */
interface Level {
  readonly data: Uint32Array;
  readonly width: number;
  readonly size: number;
}

/** The two rows of the previous level each row of a level was made from. */
interface PairRefs {
  readonly left: Uint32Array;
  readonly right: Uint32Array;
}

function generateLevel0(layout: EquihashLayout, stream: EquihashHashStream): Level {
  const { indexCount, indicesPerHash, chunkBytes, collisionBits } = layout;
  const width = layout.params.k + 1;
  const data = new Uint32Array(indexCount * width);
  for (let g = 0, index = 0; g < layout.hashCount; g++) {
    const out = stream.output(g);
    for (let slot = 0; slot < indicesPerHash && index < indexCount; slot++, index++) {
      readBitsInto(out, slot * chunkBytes * 8, collisionBits, width, data, index * width);
    }
  }
  return { data, width, size: indexCount };
}

/**
 * Counting sort of a level's rows by their first chunk. Returns the rows in key order; afterwards
 * bucketEnds[b] is the end (exclusive) in that order of the rows with key b, whose start is
 * bucketEnds[b-1] (0 for b = 0).
 */
function bucketSort(level: Level, bucketEnds: Uint32Array): Uint32Array {
  const { data, width, size } = level;
  bucketEnds.fill(0);
  for (let i = 0; i < size; i++) bucketEnds[data[i * width]]++;
  let sum = 0;
  for (let b = 0; b < bucketEnds.length; b++) {
    const c = bucketEnds[b];
    bucketEnds[b] = sum; // start for now; the scatter below advances it to the end
    sum += c;
  }
  const order = new Uint32Array(size);
  for (let i = 0; i < size; i++) order[bucketEnds[data[i * width]]++] = i;
  return order;
}

/** One intermediate round: pairs rows colliding on their first chunk, keeping the XOR of the rest. */
function collide(level: Level, bucketEnds: Uint32Array, maxRows: number): { level: Level; refs: PairRefs } {
  const order = bucketSort(level, bucketEnds);
  const { data, width } = level;
  const nextWidth = width - 1;

  let pairs = 0;
  for (let b = 0, start = 0; b < bucketEnds.length; b++) {
    const t = bucketEnds[b] - start;
    pairs += (t * (t - 1)) / 2;
    start = bucketEnds[b];
  }
  const capacity = Math.min(pairs, maxRows);
  const next = new Uint32Array(capacity * nextWidth);
  const left = new Uint32Array(capacity);
  const right = new Uint32Array(capacity);

  let n = 0;
  fill: for (let b = 0, start = 0; b < bucketEnds.length; b++) {
    const end = bucketEnds[b];
    for (let a = start; a < end - 1; a++) {
      const ra = order[a];
      const baseA = ra * width + 1;
      for (let c = a + 1; c < end; c++) {
        if (n === capacity) break fill;
        const rc = order[c];
        const baseC = rc * width + 1;
        const out = n * nextWidth;
        let nonZero = 0;
        for (let j = 0; j < nextWidth; j++) nonZero |= next[out + j] = data[baseA + j] ^ data[baseC + j];
        // Rows equal on every remaining chunk are the same indices paired two ways: their XOR is
        // zero, it would collide with every other such row and only ever yield repeated indices.
        if (nonZero === 0) continue;
        left[n] = ra;
        right[n] = rc;
        n++;
      }
    }
    start = end;
  }
  return { level: { data: next, width: nextWidth, size: n }, refs: { left, right } };
}

/** Last round: rows equal on both remaining chunks XOR to zero; unfold them into solutions. */
function finalRound(layout: EquihashLayout, level: Level, refs: readonly PairRefs[], bucketEnds: Uint32Array): number[][] {
  const order = bucketSort(level, bucketEnds);
  const data = level.data;
  const count = layout.solutionIndices;
  const solutions: number[][] = [];
  const seen = new Set<string>();
  for (let b = 0, start = 0; b < bucketEnds.length; b++) {
    const end = bucketEnds[b];
    for (let a = start; a < end - 1; a++) {
      for (let c = a + 1; c < end; c++) {
        if (data[order[a] * 2 + 1] !== data[order[c] * 2 + 1]) continue;
        const indices = new Array<number>(count);
        unfold(refs, refs.length, order[a], indices, 0);
        unfold(refs, refs.length, order[c], indices, count / 2);
        if (!allDistinct(indices)) continue;
        canonicalize(indices, 0, count);
        const key = indices.join(',');
        if (seen.has(key)) continue;
        seen.add(key);
        solutions.push(indices);
      }
    }
    start = end;
  }
  return solutions;
}

/** Writes the 2^depth leaf indices of a row of level `depth` into out[at ..]. Level 0 rows are indices. */
function unfold(refs: readonly PairRefs[], depth: number, row: number, out: number[], at: number): void {
  if (depth === 0) {
    out[at] = row;
    return;
  }
  const { left, right } = refs[depth - 1];
  unfold(refs, depth - 1, left[row], out, at);
  unfold(refs, depth - 1, right[row], out, at + 2 ** (depth - 1));
}

function allDistinct(indices: readonly number[]): boolean {
  const sorted = Uint32Array.from(indices).sort();
  for (let i = 1; i < sorted.length; i++) if (sorted[i] === sorted[i - 1]) return false;
  return true;
}

/** Swaps sibling subtrees so that each left subtree starts with the smaller index. */
function canonicalize(indices: number[], start: number, length: number): void {
  if (length === 1) return;
  const half = length / 2;
  canonicalize(indices, start, half);
  canonicalize(indices, start + half, half);
  if (indices[start] > indices[start + half]) {
    const leftHalf = indices.slice(start, start + half);
    for (let i = 0; i < half; i++) {
      indices[start + i] = indices[start + half + i];
      indices[start + half + i] = leftHalf[i];
    }
  }
}
