/**
 * An Ollama server: POST /api/generate without streaming, raw prompt (no template), temperature 0
 * and a fixed seed; the token count is Ollama's eval_count.
 */
import { INFERENCE_SEED, postJson, promptText, type Generation, type InferenceBackend } from './backend.ts';

export class OllamaBackend implements InferenceBackend {
  readonly kind = 'ollama';

  constructor(
    private readonly baseUrl: string,
    private readonly model: string,
  ) {}

  async generate(prompt: Uint8Array, maxTokens: number, signal: AbortSignal): Promise<Generation> {
    const body = {
      model: this.model,
      prompt: promptText(prompt),
      raw: true,
      stream: false,
      options: { num_predict: maxTokens, temperature: 0, top_k: 1, seed: INFERENCE_SEED },
    };
    const r = (await postJson(`${this.baseUrl}/api/generate`, body, signal)) as { response?: unknown; eval_count?: unknown; error?: unknown };
    if (typeof r.error === 'string') throw new Error(`ollama: ${r.error}`);
    if (typeof r.response !== 'string') throw new Error('ollama: the answer has no response text');
    // Ollama leaves eval_count out when nothing was generated.
    const tokenCount = r.eval_count ?? 0;
    if (!Number.isSafeInteger(tokenCount) || (tokenCount as number) < 0) throw new Error('ollama: eval_count is not a token count');
    return { response: Buffer.from(r.response, 'utf8'), tokenCount: tokenCount as number };
  }

  async close(): Promise<void> {}
}
