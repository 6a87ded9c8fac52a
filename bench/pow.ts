/**
 * Proof-of-work benchmarks.
 *
 * (b) ZelHash verification of the real Flux mainnet headers against the bare BLAKE2b work it
 *     performs: the same invocations (the personalized base state absorbing the 140-byte header,
 *     then one clone-and-finalize per output g the solution needs, twist prefixes included), done
 *     the same way. The ratio is verification's overhead; the goal is <= 1.3.
 * (c) Median time of a (48,5) solve (regtest mining) over random headers.
 *
 * Run: node --conditions=@cs/source --import tsx bench/pow.ts
 */
import { randomBytes } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { blake2b } from '@noble/hashes/blake2.js';
import { fromHex } from '../packages/consensus/src/encoding/hex.ts';
import {
  EQUIHASH_48_5,
  HEADER_INPUT_BYTES,
  ZELHASH,
  equihashLayout,
  solveHeader,
  unpackIndices,
  verifyHeaderSolution,
  type EquihashLayout,
} from '../packages/consensus/src/pow/index.ts';
import { TWIST_GROUP } from '../packages/consensus/src/pow/equihash-params.ts';
import { zelhashFlux } from '../packages/consensus/src/pow/test-vectors.ts';
import { median } from './lib/stats.ts';

const RATIO_ROUNDS = 41;
const REPS_PER_ROUND = 20;
const SOLVE_HEADERS = 50;

interface Case {
  readonly header: Uint8Array;
  readonly solution: Uint8Array;
  /** Every output g the verifier hashes for this solution, in the order it hashes them. */
  readonly hashed: Uint32Array;
}

/** The g values ZelHash verification hashes: for each group of 16 in use, its start up to the largest g used. */
function hashedOutputs(layout: EquihashLayout, solution: Uint8Array): Uint32Array {
  const highest = new Map<number, number>();
  for (const index of unpackIndices(layout.params, solution)) {
    const g = Math.floor(index / layout.indicesPerHash);
    const group = g - (g % TWIST_GROUP);
    highest.set(group, Math.max(highest.get(group) ?? 0, g));
  }
  const out: number[] = [];
  for (const [group, last] of [...highest].sort((a, b) => a[0] - b[0])) for (let g = group; g <= last; g++) out.push(g);
  return Uint32Array.from(out);
}

function bareBlake2b(layout: EquihashLayout, c: Case, out: Uint8Array): void {
  const base = blake2b.create({ dkLen: layout.digestBytes, personalization: layout.blake2Personalization });
  base.update(c.header.subarray(0, HEADER_INPUT_BYTES)).update(c.header.subarray(HEADER_INPUT_BYTES));
  const work = blake2b.create({ dkLen: layout.digestBytes });
  const gBytes = new Uint8Array(4);
  const gView = new DataView(gBytes.buffer);
  for (const g of c.hashed) {
    gView.setUint32(0, g, true);
    base._cloneInto(work);
    work.update(gBytes);
    work.digestInto(out);
  }
}

function timeIt(fn: () => void, reps: number): number {
  const start = performance.now();
  for (let i = 0; i < reps; i++) fn();
  return (performance.now() - start) / reps;
}

interface ZelhashResult {
  readonly ratio: number;
  readonly verifyMs: number;
  readonly bareMs: number;
  readonly blake2bPerHeader: number;
}

function benchZelhash(): ZelhashResult {
  const layout = equihashLayout(ZELHASH);
  const cases: Case[] = zelhashFlux().blocks.map((b) => {
    const solution = fromHex(b.solution_hex);
    return { header: fromHex(b.header140_hex), solution, hashed: hashedOutputs(layout, solution) };
  });
  const out = new Uint8Array(layout.digestBytes);
  const verifyAll = (): void => {
    for (const c of cases) if (!verifyHeaderSolution(ZELHASH, c.header, c.solution)) throw new Error('a Flux header failed to verify');
  };
  const bareAll = (): void => {
    for (const c of cases) bareBlake2b(layout, c, out);
  };
  for (let i = 0; i < 50; i++) {
    verifyAll();
    bareAll();
  }
  const ratios: number[] = [];
  const verifyTimes: number[] = [];
  const bareTimes: number[] = [];
  for (let round = 0; round < RATIO_ROUNDS; round++) {
    // Alternate which side runs first so that neither always inherits the other's warm caches.
    let v: number;
    let b: number;
    if (round % 2) {
      v = timeIt(verifyAll, REPS_PER_ROUND);
      b = timeIt(bareAll, REPS_PER_ROUND);
    } else {
      b = timeIt(bareAll, REPS_PER_ROUND);
      v = timeIt(verifyAll, REPS_PER_ROUND);
    }
    ratios.push(v / b);
    verifyTimes.push(v / cases.length);
    bareTimes.push(b / cases.length);
  }
  const blake2bPerHeader = cases.reduce((sum, c) => sum + c.hashed.length + 1, 0) / cases.length;
  return { ratio: median(ratios), verifyMs: median(verifyTimes), bareMs: median(bareTimes), blake2bPerHeader };
}

function benchSolve(): number {
  for (let i = 0; i < 5; i++) solveHeader(EQUIHASH_48_5, new Uint8Array(randomBytes(140)));
  const times: number[] = [];
  for (let i = 0; i < SOLVE_HEADERS; i++) {
    const header = new Uint8Array(randomBytes(140));
    const start = performance.now();
    solveHeader(EQUIHASH_48_5, header);
    times.push(performance.now() - start);
  }
  return median(times);
}

export async function benchPow(): Promise<{ zelhashRatio: number; solveMedianMs: number }> {
  const zelhash = benchZelhash();
  return { zelhashRatio: zelhash.ratio, solveMedianMs: benchSolve() };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const zelhash = benchZelhash();
  console.log(
    `zelhash verify / bare blake2b: ${zelhash.ratio.toFixed(2)} (goal <= 1.3)` +
      ` [verify ${zelhash.verifyMs.toFixed(3)} ms, bare ${zelhash.bareMs.toFixed(3)} ms per header,` +
      ` ${zelhash.blake2bPerHeader.toFixed(1)} BLAKE2b invocations per header, median of ${RATIO_ROUNDS} rounds]`,
  );
  console.log(`(48,5) solve median: ${benchSolve().toFixed(2)} ms over ${SOLVE_HEADERS} random headers (goal: well under 1 s)`);
}
