/**
 * The embedded engine: llama.cpp in this process through node-llama-cpp, on its prebuilt binaries
 * (`build: "never"`: nothing is compiled or downloaded; a machine without a matching binary gets
 * an error at start-up). One GGUF model per backend, one context, one assignment at a time (the
 * next waits), each on a fresh context sequence, greedy decoding (temperature 0) and a fixed seed:
 * the same prompt gives the same answer on the same build. Generation runs on llama.cpp's own
 * threads (`threads`), so the miner's event loop and solver threads keep going.
 */
import { INFERENCE_SEED, promptText, type Generation, type InferenceBackend } from './backend.ts';

type NodeLlamaCpp = typeof import('node-llama-cpp');
type Token = import('node-llama-cpp').Token;
type LlamaModel = Awaited<ReturnType<Awaited<ReturnType<NodeLlamaCpp['getLlama']>>['loadModel']>>;
type LlamaContext = Awaited<ReturnType<LlamaModel['createContext']>>;

export interface LlamaSettings {
  /** CPU threads llama.cpp evaluates with. */
  readonly threads: number;
  /** Context size in tokens: prompt plus answer must fit. */
  readonly contextSize: number;
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

export class LlamaBackend implements InferenceBackend {
  readonly kind = 'llama';
  /** Assignments run one after another on the single sequence. */
  private queue: Promise<unknown> = Promise.resolve();

  private constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaContext,
  ) {}

  /** Loads the model file now, so that a bad path or file is a start-up error, not a failed assignment. */
  static async open(modelPath: string, settings: LlamaSettings): Promise<LlamaBackend> {
    const lib = await loadBinding();
    const llama = await lib.getLlama({ build: 'never', gpu: settings.gpu === 'false' ? false : settings.gpu, logLevel: lib.LlamaLogLevel.error });
    const model = await llama.loadModel({ modelPath });
    const context = await model.createContext({ contextSize: settings.contextSize, threads: settings.threads, sequences: 1 });
    return new LlamaBackend(model, context);
  }

  generate(prompt: Uint8Array, maxTokens: number, signal: AbortSignal): Promise<Generation> {
    const run = this.queue.then(() => this.run(prompt, maxTokens, signal));
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Evaluates the prompt and samples greedily, one token at a time, up to maxTokens or the
   * model's end of generation: counting here is what makes token_count exact.
   */
  private async run(prompt: Uint8Array, maxTokens: number, signal: AbortSignal): Promise<Generation> {
    signal.throwIfAborted();
    const { model, context } = this;
    const input = model.tokenize(promptText(prompt));
    if (model.tokens.shouldPrependBosToken && model.tokens.bos !== null) input.unshift(model.tokens.bos);
    if (input.length + maxTokens > context.contextSize) {
      throw new Error(
        `the prompt's ${input.length} tokens plus max_tokens ${maxTokens} do not fit the context of ${context.contextSize} (-llama-context)`,
      );
    }
    const sequence = context.getSequence();
    try {
      const generated: Token[] = [];
      for await (const token of sequence.evaluate(input, { temperature: 0, seed: INFERENCE_SEED })) {
        signal.throwIfAborted();
        if (model.isEogToken(token)) break;
        generated.push(token);
        if (generated.length >= maxTokens) break;
      }
      return { response: Buffer.from(model.detokenize(generated), 'utf8'), tokenCount: generated.length };
    } finally {
      sequence.dispose();
    }
  }

  async close(): Promise<void> {
    await this.context.dispose();
    await this.model.dispose();
  }
}
