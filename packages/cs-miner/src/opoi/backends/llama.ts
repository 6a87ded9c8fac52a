/**
 * The embedded engine: llama.cpp in this process through node-llama-cpp, on its prebuilt binaries
 * (`build: "never"`: nothing is compiled or downloaded; a machine without a matching binary gets
 * an error at start-up). One GGUF model per backend, one context, one job at a time (answers and
 * audits wait in one queue), each on a fresh context sequence, greedy decoding (temperature 0) and
 * a fixed seed: the same prompt gives the same answer on the same build. Generation runs on
 * llama.cpp's own threads (`threads`), so the miner's event loop and solver threads keep going.
 *
 * The file's SHA-256 and size are computed when it is opened: they are what a VERIFIABLE
 * request's manifest names, and the only way this backend is chosen for one.
 */
import { ggufFileIdentity, type FileIdentity } from '@cs/runtime/file-hash';
import type { OpoiAuditReport, OpoiAuditTask, OpoiManifest } from '@cs/stratum';
import { INFERENCE_SEED, ManifestRuleError, promptText, type Generation, type VerifiableBackend, type VerifiableGeneration } from './backend.ts';
import { replayAudit } from './llama-audit.ts';

import type { LlamaContext, LlamaModel, LlamaSequence, Token } from './llama-types.ts';

type NodeLlamaCpp = typeof import('node-llama-cpp');

export interface LlamaSettings {
  /** CPU threads llama.cpp evaluates with. */
  readonly threads: number;
  /** Context size in tokens: prompt plus answer must fit. */
  readonly contextSize: number;
  /**
   * Tokens evaluated in one batch; 0 or absent = the context size, so that an audit replays prompt
   * and answer in a single prefill pass.
   */
  readonly batchSize?: number;
  /** 'false' (CPU only), 'auto', 'cuda', 'vulkan' or 'metal': which prebuilt binary to load. */
  readonly gpu: 'false' | 'auto' | 'cuda' | 'vulkan' | 'metal';
}

/**
 * node-llama-cpp is an optional dependency of cs-miner (docs/miner.md, "Installing"): a node-only
 * install leaves it out, and only a miner that serves a llama: model loads it.
 */
async function loadBinding(): Promise<NodeLlamaCpp> {
  try {
    return await import('node-llama-cpp');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
    throw new Error(
      'the embedded engine is not installed: it is the optional dependency node-llama-cpp of cs-miner, left out by `npm ci -w` and ' +
        '`--omit=optional` installs. Run `npm ci` (or `npm install node-llama-cpp@3.22.1`) in the repository, or serve the model ' +
        'through an ollama: or openai: backend instead (docs/miner.md)',
    );
  }
}

export class LlamaBackend implements VerifiableBackend {
  readonly kind = 'llama';
  /** Answers and audits run one after another on the single sequence. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
    /** The GGUF file's SHA-256 and size, as manifests name it. */
    readonly file: FileIdentity,
    /** Every token id the vocabulary marks as end of generation (llama_vocab_is_eog). */
    readonly eogTokens: readonly Token[],
    readonly vocabularySize: number,
  ) {}

  /** Loads the model file now, so that a bad path or file is a start-up error, not a failed assignment. */
  static async open(modelPath: string, settings: LlamaSettings): Promise<LlamaBackend> {
    const file = await ggufFileIdentity(modelPath);
    const lib = await loadBinding();
    const llama = await lib.getLlama({ build: 'never', gpu: settings.gpu === 'false' ? false : settings.gpu, logLevel: lib.LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath });
    const context = await model.createContext({
      contextSize: settings.contextSize,
      batchSize: settings.batchSize || settings.contextSize,
      threads: settings.threads,
      sequences: 1,
    });
    // The vocabulary's size is the length of one full logits vector; node-llama-cpp has no getter for it.
    const sequence = context.getSequence();
    let vocabularySize: number;
    try {
      const [out] = await sequence.controlledEvaluate([[model.tokens.bos ?? (0 as Token), { generateNext: { logits: true } }]]);
      vocabularySize = out?.next.logits?.size ?? 0;
    } finally {
      sequence.dispose();
    }
    const eog: Token[] = [];
    for (let t = 0; t < vocabularySize; t++) if (model.isEogToken(t as Token)) eog.push(t as Token);
    return new LlamaBackend(model, context, file, eog, vocabularySize);
  }

  /** OPEN work: the prompt with the GGUF's own BOS rule, greedy, as text. */
  generate(prompt: Uint8Array, maxTokens: number, signal: AbortSignal): Promise<Generation> {
    return this.enqueue(async () => {
      const input = this.model.tokenize(promptText(prompt));
      if (this.model.tokens.shouldPrependBosToken && this.model.tokens.bos !== null) input.unshift(this.model.tokens.bos);
      const ids = await this.decode(input, maxTokens, signal);
      return { response: this.text(ids), tokenCount: ids.length };
    });
  }

  /** VERIFIABLE work: the prompt tokenized under the manifest's rule, greedy, with the token ids. */
  generateVerifiable(prompt: Uint8Array, manifest: OpoiManifest, maxTokens: number, signal: AbortSignal): Promise<VerifiableGeneration> {
    return this.enqueue(async () => {
      const ids = await this.decode(this.promptTokens(prompt, manifest), maxTokens, signal);
      return { response: this.text(ids), tokenCount: ids.length, tokenIds: ids };
    });
  }

  /** Replays an answer under its manifest (llama-audit.ts). The caller has checked that this file is the manifest's. */
  audit(task: OpoiAuditTask): Promise<OpoiAuditReport> {
    return this.enqueue(() =>
      this.withSequence((sequence) =>
        replayAudit({ sequence, model: this.model, eogTokens: this.eogTokens, vocabularySize: this.vocabularySize }, task, (prompt) =>
          this.promptTokens(prompt, task.manifest),
        ),
      ),
    );
  }

  isEogToken(token: number): boolean {
    return this.model.isEogToken(token as Token);
  }

  /** The UTF-8 bytes of token ids as this vocabulary spells them (bytes that are not UTF-8 become U+FFFD). */
  text(ids: readonly number[]): Uint8Array {
    return Buffer.from(this.model.detokenize(ids as Token[]), 'utf8');
  }

  /**
   * The manifest's tokenization rule (docs/protocol.md §11.1, "Model manifests"): BOS as the
   * metadata says, never or always; special-token text parsed or not. A chat template is refused:
   * docs/miner.md, "Chat templates", says why.
   */
  promptTokens(prompt: Uint8Array, manifest: OpoiManifest): Token[] {
    const refusal = this.refusal(manifest);
    if (refusal) throw new ManifestRuleError(refusal);
    const input = this.model.tokenize(promptText(prompt), manifest.parseSpecial);
    const bos = this.model.tokens.bos;
    const prepend = manifest.bos === 'always' || (manifest.bos === 'metadata' && this.model.tokens.shouldPrependBosToken);
    if (prepend) {
      if (bos === null) throw new ManifestRuleError(`manifest '${manifest.modelId}' prepends BOS, but the vocabulary has none`);
      input.unshift(bos);
    }
    return input;
  }

  refusal(manifest: OpoiManifest): string | null {
    if (manifest.chatTemplateSha256 === null) return null;
    return `manifest '${manifest.modelId}' applies a chat template, which cs-miner does not replay (docs/miner.md, "Chat templates")`;
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const run = this.queue.then(job);
    this.queue = run.catch(() => {});
    return run;
  }

  private async withSequence<T>(use: (sequence: LlamaSequence) => Promise<T>): Promise<T> {
    const sequence = this.context.getSequence();
    try {
      return await use(sequence);
    } finally {
      sequence.dispose();
    }
  }

  /**
   * Evaluates the prompt and samples greedily, one token at a time, up to maxTokens or the
   * model's end of generation: counting here is what makes token_count exact. Temperature 0 is
   * llama.cpp's greedy sampler over the logits in token-id order, which keeps the first of equal
   * maxima: ties go to the lowest token id, as the manifest's rule says.
   */
  private decode(input: Token[], maxTokens: number, signal: AbortSignal): Promise<number[]> {
    signal.throwIfAborted();
    const { contextSize } = this.context;
    if (input.length + maxTokens > contextSize) {
      throw new Error(`the prompt's ${input.length} tokens plus max_tokens ${maxTokens} do not fit the context of ${contextSize} (-llama-context)`);
    }
    return this.withSequence(async (sequence) => {
      const generated: number[] = [];
      for await (const token of sequence.evaluate(input, { temperature: 0, seed: INFERENCE_SEED })) {
        signal.throwIfAborted();
        if (this.model.isEogToken(token)) break;
        generated.push(token);
        if (generated.length >= maxTokens) break;
      }
      return generated;
    });
  }

  async close(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
  }
}
