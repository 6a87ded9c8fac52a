// What the reference miner achieves, from one run (ratios, since absolute rates on a shared
// machine are noise):
//  - the Equihash (48,5) solver on one thread against the bare BLAKE2b hashing of the same nonces
//    (the index hashes every solve starts from, computed the way the solver computes them): how
//    many times the hashing alone the whole solve costs, with the solver's Sol/s per thread;
//  - mining on every core through cs-miner's solver threads, alone and while the embedded engine
//    (llama.cpp, the miner's default -llama-threads) generates without pause on a generated
//    model: the share of the hashrate mining keeps (goal >= 0.50 on 2 cores), with the tokens/s
//    inference gets beside mining against inference alone.
//   node --conditions=@cs/source --import tsx bench/miner.ts
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { EQUIHASH_48_5, HEADER_INPUT_BYTES, REGTEST, equihashLayout, solveHeader } from '@cs/consensus';
import { EquihashHashStream } from '../packages/consensus/src/pow/equihash-hash.ts';
import { tinyLlamaGguf } from '../packages/cs-miner/src/gguf/tiny-llama.ts';
import { LlamaBackend } from '../packages/cs-miner/src/opoi/backends/llama.ts';
import { SolverPool } from '../packages/cs-miner/src/solver/solver-pool.ts';

const PARAMS = EQUIHASH_48_5;
const SOLVER_ROUNDS = 9;
const NONCES_PER_ROUND = 40;
/** Seconds per mining window; windows alternate alone / with inference. */
const WINDOW_S = 6;
const WINDOWS = 3;
/**
 * A model big enough that llama.cpp's matrix work, not the JavaScript around it, is what each
 * token costs (about 7 M parameters, F32), as it is with a real model.
 */
const BENCH_MODEL = { layers: 6, embedding: 384, heads: 6, feedForward: 1024, context: 512 };
const PROMPT = Buffer.from('Explain in one paragraph why the sky is blue on a clear day.');
const TOKENS_PER_GENERATION = 64;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function headers(count: number): Uint8Array[] {
  return Array.from({ length: count }, () => new Uint8Array(randomBytes(140)));
}

/** The solver against the hashing it starts from, on the same nonces, alternating which goes first. */
function benchSolver(): { ratio: number; solsPerSecond: number; noncesPerSecond: number } {
  const layout = equihashLayout(PARAMS);
  let solutions = 0;
  const solveAll = (hs: Uint8Array[]) => {
    for (const h of hs) solutions += solveHeader(PARAMS, h).length;
  };
  const hashAll = (hs: Uint8Array[]) => {
    for (const h of hs) {
      const stream = new EquihashHashStream(layout, h.subarray(0, HEADER_INPUT_BYTES), h.subarray(HEADER_INPUT_BYTES));
      for (let g = 0; g < layout.hashCount; g++) stream.output(g);
    }
  };
  const warm = headers(10);
  solveAll(warm);
  hashAll(warm);
  solutions = 0;
  const ratios: number[] = [];
  let solveMs = 0;
  for (let round = 0; round < SOLVER_ROUNDS; round++) {
    const hs = headers(NONCES_PER_ROUND);
    const time = (fn: () => void) => {
      const start = performance.now();
      fn();
      return performance.now() - start;
    };
    let solve: number;
    let hash: number;
    if (round % 2) {
      solve = time(() => solveAll(hs));
      hash = time(() => hashAll(hs));
    } else {
      hash = time(() => hashAll(hs));
      solve = time(() => solveAll(hs));
    }
    ratios.push(solve / hash);
    solveMs += solve;
  }
  const nonces = SOLVER_ROUNDS * NONCES_PER_ROUND;
  return { ratio: median(ratios), solsPerSecond: (solutions * 1000) / solveMs, noncesPerSecond: (nonces * 1000) / solveMs };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Generates without pause until `stop()`; counts the tokens. */
function inferenceLoop(backend: LlamaBackend): { stop: () => Promise<number> } {
  let running = true;
  let tokens = 0;
  const done = (async () => {
    while (running) tokens += (await backend.generate(PROMPT, TOKENS_PER_GENERATION, new AbortController().signal)).tokenCount;
  })();
  return {
    stop: async () => {
      running = false;
      await done;
      return tokens;
    },
  };
}

async function benchMiningWithInference(): Promise<{
  kept: number;
  alone: number;
  beside: number;
  tokensAlone: number;
  tokensBeside: number;
  threads: number;
  llamaThreads: number;
}> {
  const cores = availableParallelism();
  // The miner's defaults: -threads = every core, -llama-threads = half of them.
  const threads = cores;
  const llamaThreads = Math.max(1, Math.floor(cores / 2));
  const dir = mkdtempSync(join(tmpdir(), 'cs-miner-bench-'));
  const modelPath = join(dir, 'bench.gguf');
  writeFileSync(modelPath, tinyLlamaGguf(3, BENCH_MODEL));
  const backend = await LlamaBackend.open(modelPath, { threads: llamaThreads, contextSize: 512, gpu: 'false' });
  const solver = new SolverPool(
    threads,
    100,
    () => {},
    (message) => {
      throw new Error(`a solver thread failed: ${message}`);
    },
  );
  try {
    // Inference alone first: its rate beside mining is compared with this.
    const alone = inferenceLoop(backend);
    await sleep(WINDOW_S * 1000);
    const tokensAlone = (await alone.stop()) / WINDOW_S;

    const header140 = new Uint8Array(randomBytes(140));
    // Every solution is a share at the easiest target; the shares are dropped.
    solver.mine({ kind: 'job', jobId: 'bench', params: PARAMS, header140, nonce1Length: 4, target: REGTEST.powLimit });
    await sleep(2000);
    const window = async (withInference: boolean) => {
      const loop = withInference ? inferenceLoop(backend) : null;
      const before = solver.solutions();
      const start = performance.now();
      await sleep(WINDOW_S * 1000);
      const solutions = Number(solver.solutions() - before);
      const seconds = (performance.now() - start) / 1000;
      const tokens = loop ? await loop.stop() : 0;
      return { rate: solutions / seconds, tokens: tokens / seconds };
    };
    const aloneRates: number[] = [];
    const besideRates: number[] = [];
    const besideTokens: number[] = [];
    for (let i = 0; i < WINDOWS; i++) {
      aloneRates.push((await window(false)).rate);
      const w = await window(true);
      besideRates.push(w.rate);
      besideTokens.push(w.tokens);
    }
    const a = median(aloneRates);
    const b = median(besideRates);
    return { kept: b / a, alone: a, beside: b, tokensAlone, tokensBeside: median(besideTokens), threads, llamaThreads };
  } finally {
    await solver.close();
    await backend.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

const s = benchSolver();
process.stdout.write(
  `solver (${PARAMS.n},${PARAMS.k}), one thread: ${s.solsPerSecond.toFixed(1)} Sol/s per thread (${s.noncesPerSecond.toFixed(1)} nonces/s); ` +
    `a solve costs ${s.ratio.toFixed(2)}x the bare BLAKE2b hashing of the same nonce\n`,
);
const m = await benchMiningWithInference();
process.stdout.write(
  `mining on ${m.threads} solver threads: ${m.alone.toFixed(1)} Sol/s alone, ${m.beside.toFixed(1)} Sol/s while llama.cpp (-llama-threads=${m.llamaThreads}) generates: ` +
    `kept ${m.kept.toFixed(2)} of the hashrate (goal >= 0.50 on 2 cores)\n` +
    `inference: ${m.tokensAlone.toFixed(1)} tokens/s alone, ${m.tokensBeside.toFixed(1)} tokens/s beside mining: ratio ${(m.tokensBeside / m.tokensAlone).toFixed(2)}\n`,
);
