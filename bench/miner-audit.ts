// cs-miner's audits of VERIFIABLE answers, measured on the embedded engine (docs/miner.md, "Audits: the figures"):
//   node --conditions=@cs/source --import tsx bench/miner-audit.ts [cost|fp|detect|all] [trials=100] [fp-answers=500]
// - cost: audit time ÷ generation time for the same answer, on the tiny model and the larger one
//   (8 layers, 32,000 tokens), answers of 16, 64 and 256 tokens, 2 CPU threads. Goal ≤ 0.2.
// - fp: honest answers audited by engines with other thread counts, batch sizes and context sizes
//   than the executor's; how many argmaxes float noise flipped at tolerance 0, the largest gap, and
//   the false positives at the recommended tolerance. Goal: none in ≥ 500.
// - detect: each cheat of the detection matrix caught in ≥ 99% of trials, on both models.
// Every ratio is measured in the same run on the same machine: it is noisy, so read the ratios, not the times.
import { availableParallelism } from 'node:os';
import type { Token } from 'node-llama-cpp';
import { fileMatchesManifest, type OpoiAuditReport, type OpoiManifest } from '@cs/stratum';
import { cachedModel, LARGE_LLAMA, seededRandom, TINY_LLAMA } from '../packages/cs-miner/src/gguf/index.ts';
import type { TinyLlamaShape } from '../packages/cs-miner/src/gguf/tiny-llama.ts';
import type { VerifiableGeneration } from '../packages/cs-miner/src/opoi/backends/backend.ts';
import { LlamaBackend, type LlamaSettings } from '../packages/cs-miner/src/opoi/backends/llama.ts';
import { corruptTokenIds, type CorruptMode } from '../packages/cs-miner/src/opoi/corrupt.ts';

const THREADS = 2;
/** The tolerance docs/miner.md recommends for manifests: 0.1 logit (see the fp section's figures). */
const TOLERANCE = 6554;
const DETECT_TOKENS = 16;
const FP_TOKENS = 12;
const COST_GOAL = 0.2;
const DETECT_GOAL = 0.99;

const [section = 'all', trialsText = '100', fpText = '500'] = process.argv.slice(2);
const TRIALS = Number(trialsText);
const FP_ANSWERS = Number(fpText);

interface ModelUnderTest {
  readonly name: string;
  readonly shape: TinyLlamaShape;
  readonly seed: number;
  /** Same shape, another seed: "another model file". */
  readonly otherSeed: number;
}

const MODELS: readonly ModelUnderTest[] = [
  { name: 'tiny (2 layers, 260 tokens)', shape: TINY_LLAMA, seed: 7, otherSeed: 8 },
  { name: 'larger (8 layers, 32,000 tokens)', shape: LARGE_LLAMA, seed: 1, otherSeed: 2 },
];

function executorSettings(shape: TinyLlamaShape): LlamaSettings {
  return { threads: THREADS, contextSize: Math.min(shape.context, 1024), gpu: 'false' };
}

function manifestOf(b: LlamaBackend, tolerance = TOLERANCE): OpoiManifest {
  return {
    modelId: 'bench',
    ggufSha256: b.file.sha256,
    ggufSize: b.file.size,
    bos: 'metadata',
    parseSpecial: false,
    chatTemplateSha256: null,
    tolerance,
  };
}

/**
 * Prompts of the diversity real requests have: questions, instructions and requests for text about
 * many subjects, of varied length and ending (most end alike, in "?" or "."), which is what makes
 * "the answer to another prompt" hard for a model that reads only the last tokens.
 */
function prompts(count: number, seed: number): Buffer[] {
  const random = seededRandom(seed);
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
  const forms = [
    'What is {s}?',
    'Explain {s} in simple terms.',
    'Write a short poem about {s}.',
    'Why does {s} matter {w}?',
    'Give three facts about {s}.',
    'How would you describe {s} to a child?',
    'Summarize the history of {s} in two sentences.',
    'What are the main arguments for and against {s}?',
    'Translate "{s}" into French.',
    'List the steps to learn about {s} {w}.',
    'Is {s} overrated? Answer briefly.',
    'Compare {s} with {t}.',
  ];
  const subjects = [
    'the moon',
    'photosynthesis',
    'a black hole',
    'the French revolution',
    'inflation',
    'prime numbers',
    'the ocean',
    'democracy',
    'machine learning',
    'the water cycle',
    'jazz music',
    'the Roman empire',
    'vaccines',
    'climate change',
    'chess openings',
    'bread baking',
    'quantum computing',
    'the stock market',
    'volcanoes',
    'honey bees',
    'the printing press',
    'electric cars',
    'meditation',
    'the Silk Road',
  ];
  const when = ['today', 'in 2030', 'for students', 'in a small town', 'at work', 'for beginners'];
  return Array.from({ length: count }, () =>
    Buffer.from(pick(forms).replace('{s}', pick(subjects)).replace('{t}', pick(subjects)).replace('{w}', pick(when))),
  );
}

function task(b: LlamaBackend, prompt: Buffer, ids: readonly number[], maxTokens: number, manifest = manifestOf(b), text = b.text(ids)) {
  return { auditId: 'bench', requestId: '00000000-0000-4000-8000-000000000000', manifest, prompt, tokenIds: ids, text, maxTokens };
}

const never = new AbortController().signal;
const ms = (t0: number) => performance.now() - t0;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');

async function cost(): Promise<boolean> {
  console.log(`\n== cost: audit time / generation time, same answer, ${THREADS} CPU threads (goal <= ${COST_GOAL})`);
  let ok = true;
  for (const m of MODELS) {
    const b = await LlamaBackend.open(cachedModel(m.seed, m.shape), executorSettings(m.shape));
    const manifest = manifestOf(b);
    const prompt = prompts(1, 99)[0];
    for (const n of [16, 64, 256]) {
      const ratios: number[] = [];
      let gen = 0;
      let aud = 0;
      let got = 0;
      for (let r = 0; r < 3; r++) {
        let t0 = performance.now();
        const g = await b.generateVerifiable(prompt, manifest, n, never);
        const tg = ms(t0);
        t0 = performance.now();
        const report = await b.audit(task(b, prompt, g.tokenIds, n, manifest, g.response));
        const ta = ms(t0);
        if (report.verdict !== 'valid') throw new Error(`an honest answer audited ${report.verdict}: ${report.reason}`);
        ratios.push(ta / tg);
        gen += tg;
        aud += ta;
        got = g.tokenCount;
      }
      const ratio = median(ratios);
      ok &&= ratio <= COST_GOAL;
      console.log(
        `${m.name.padEnd(34)} ${String(n).padStart(3)} tokens (${got} generated): generation ${(gen / 3).toFixed(1)} ms, audit ${(aud / 3).toFixed(1)} ms, ratio ${ratio.toFixed(3)} ${verdict(ratio <= COST_GOAL)}`,
      );
    }
    await b.close();
  }
  return ok;
}

/** Auditors that differ from the executor (2 threads, the context's own batch): threads, batch sizes across llama.cpp's SIMD paths, context sizes. */
const AUDITORS: readonly (Omit<LlamaSettings, 'gpu'> & { readonly batchSize: number })[] = [
  { threads: 1, contextSize: 256, batchSize: 256 },
  { threads: 2, contextSize: 512, batchSize: 16 },
  { threads: 1, contextSize: 384, batchSize: 32 },
  { threads: 2, contextSize: 1024, batchSize: 64 },
  { threads: 1, contextSize: 512, batchSize: 8 },
];

async function falsePositives(): Promise<boolean> {
  const m = MODELS[0];
  console.log(
    `\n== false positives: ${FP_ANSWERS} honest answers of ${FP_TOKENS} tokens (${m.name}), each audited by one of ${AUDITORS.length} differently set engines`,
  );
  const started = performance.now();
  const path = cachedModel(m.seed, m.shape);
  const executor = await LlamaBackend.open(path, executorSettings(m.shape));
  const auditors = await Promise.all(AUDITORS.map((s) => LlamaBackend.open(path, { ...s, gpu: 'false' })));
  const exact = manifestOf(executor, 0);
  const tolerant = manifestOf(executor);
  let flipped = 0;
  let largestGap = 0;
  let falsePositive = 0;
  for (const [i, prompt] of prompts(FP_ANSWERS, 5).entries()) {
    const g = await executor.generateVerifiable(prompt, exact, FP_TOKENS, never);
    const auditor = auditors[i % auditors.length];
    const atZero = await auditor.audit(task(executor, prompt, g.tokenIds, FP_TOKENS, exact, g.response));
    if (atZero.verdict === 'failed') throw new Error(atZero.reason);
    if (atZero.verdict === 'valid') continue;
    flipped++;
    if (atZero.evidence?.claimedLogit != null) largestGap = Math.max(largestGap, atZero.evidence.argmaxLogit - atZero.evidence.claimedLogit);
    const atTolerance = await auditor.audit(task(executor, prompt, g.tokenIds, FP_TOKENS, tolerant, g.response));
    if (atTolerance.verdict !== 'valid') falsePositive++;
  }
  await Promise.all([executor, ...auditors].map((b) => b.close()));
  const seconds = ms(started) / 1000;
  console.log(`argmax flipped by float noise (invalid at tolerance 0): ${flipped} of ${FP_ANSWERS}; largest gap ${largestGap.toFixed(6)} logit`);
  const ok = falsePositive === 0 && FP_ANSWERS >= 500;
  console.log(
    `false positives at tolerance ${TOLERANCE} (${(TOLERANCE / 65536).toFixed(4)} logit): ${falsePositive} of ${FP_ANSWERS} ${verdict(ok)}; ${seconds.toFixed(0)} s`,
  );
  return ok;
}

type Cheat = { readonly name: string; caught: number; trials: number; smallestGap: number };

async function detect(): Promise<boolean> {
  console.log(
    `\n== detection: ${TRIALS} trials per cheat, answers of ${DETECT_TOKENS} tokens, tolerance ${TOLERANCE} (goal >= ${DETECT_GOAL * 100}%)`,
  );
  let ok = true;
  for (const m of MODELS) {
    const started = performance.now();
    const settings = executorSettings(m.shape);
    const b = await LlamaBackend.open(cachedModel(m.seed, m.shape), settings);
    const other = await LlamaBackend.open(cachedModel(m.otherSeed, m.shape), settings);
    const sampler = await Sampler.open(cachedModel(m.seed, m.shape), settings);
    const manifest = manifestOf(b);
    const random = seededRandom(11);
    const ps = prompts(TRIALS, 3);
    const honest: VerifiableGeneration[] = [];
    for (const p of ps) honest.push(await b.generateVerifiable(p, manifest, DETECT_TOKENS, never));
    const cheats: Cheat[] = [
      'another model file (identity)',
      'another model file (replayed)',
      'one token changed',
      'truncated',
      'answer to another prompt',
      'random tokens',
      'sampled at temperature 0.7',
    ].map((name) => ({
      name,
      caught: 0,
      trials: 0,
      smallestGap: Number.POSITIVE_INFINITY,
    }));
    const count = (c: Cheat, r: OpoiAuditReport) => {
      c.trials++;
      if (r.verdict === 'failed') throw new Error(r.reason);
      if (r.verdict !== 'invalid') return;
      c.caught++;
      const e = r.evidence;
      if (e?.claimedLogit != null) c.smallestGap = Math.min(c.smallestGap, e.argmaxLogit - e.claimedLogit);
    };
    const corrupt = async (c: Cheat, mode: CorruptMode, i: number) => {
      const ids = corruptTokenIds(mode, honest[i].tokenIds, b, random);
      count(c, await b.audit(task(b, ps[i], ids, DETECT_TOKENS)));
    };
    let identical = 0;
    for (let i = 0; i < TRIALS; i++) {
      // The file: a miner routes by SHA-256 and size, so the other file is never used for this manifest...
      cheats[0].trials++;
      if (!fileMatchesManifest(other.file, manifest)) cheats[0].caught++;
      // ...and an honest answer replayed on the wrong file anyway is found invalid.
      count(cheats[1], await other.audit(task(other, ps[i], honest[i].tokenIds, DETECT_TOKENS, manifest, honest[i].response)));
      await corrupt(cheats[2], 'token', i);
      await corrupt(cheats[3], 'truncate', i);
      const j = (i + 1) % TRIALS;
      count(cheats[4], await b.audit(task(b, ps[i], honest[j].tokenIds, DETECT_TOKENS, manifest, honest[j].response)));
      await corrupt(cheats[5], 'random', i);
      const sampled = await sampler.sample(b.promptTokens(ps[i], manifest), DETECT_TOKENS, 0.7, i + 1);
      if (sampled.join() === honest[i].tokenIds.join()) {
        identical++;
        continue;
      }
      count(cheats[6], await b.audit(task(b, ps[i], sampled, DETECT_TOKENS)));
    }
    console.log(`${m.name}: ${((performance.now() - started) / 1000).toFixed(0)} s`);
    for (const c of cheats) {
      const rate = c.caught / c.trials;
      ok &&= rate >= DETECT_GOAL;
      const gap = Number.isFinite(c.smallestGap) ? `, smallest deciding gap ${c.smallestGap.toFixed(3)} logit` : '';
      console.log(`  ${c.name.padEnd(32)} caught ${c.caught}/${c.trials} = ${(rate * 100).toFixed(2)}%${gap} ${verdict(rate >= DETECT_GOAL)}`);
    }
    console.log(`  (temperature 0.7 gave the greedy answer itself in ${identical} trials: not a cheat, not counted)`);
    await Promise.all([b.close(), other.close(), sampler.close()]);
  }
  return ok;
}

/** Sampling at a temperature, straight on node-llama-cpp: the cheat of a miner that does not decode greedily. */
class Sampler {
  private constructor(
    private readonly model: Awaited<ReturnType<Awaited<ReturnType<typeof import('node-llama-cpp').getLlama>>['loadModel']>>,
    private readonly context: Awaited<ReturnType<Sampler['model']['createContext']>>,
  ) {}

  static async open(path: string, s: LlamaSettings): Promise<Sampler> {
    const { getLlama, LlamaLogLevel } = await import('node-llama-cpp');
    const llama = await getLlama({ build: 'never', gpu: false, logLevel: LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath: path });
    return new Sampler(model, await model.createContext({ contextSize: s.contextSize, threads: s.threads, sequences: 1 }));
  }

  async sample(input: Token[], maxTokens: number, temperature: number, seed: number): Promise<number[]> {
    const sequence = this.context.getSequence();
    try {
      const out: number[] = [];
      for await (const t of sequence.evaluate(input, { temperature, seed })) {
        if (this.model.isEogToken(t) || out.push(t) >= maxTokens) break;
      }
      return out;
    } finally {
      sequence.dispose();
    }
  }

  async close(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
  }
}

console.log(`cs-miner audits: ${availableParallelism()} cores, engine threads ${THREADS}`);
const results: boolean[] = [];
if (section === 'cost' || section === 'all') results.push(await cost());
if (section === 'fp' || section === 'all') results.push(await falsePositives());
if (section === 'detect' || section === 'all') results.push(await detect());
console.log(`\n${results.every(Boolean) ? 'all goals met' : 'some goals missed'}`);
