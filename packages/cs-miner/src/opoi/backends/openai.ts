/**
 * Any OpenAI-compatible server (vLLM, llama-server, LM Studio, a hosted API): POST
 * /v1/chat/completions with the prompt as one user message, temperature 0 and a fixed seed; the
 * token count is usage.completion_tokens. The API key, if any, comes from OPENAI_API_KEY.
 */
import { INFERENCE_SEED, postJson, promptText, type Generation, type InferenceBackend } from './backend.ts';

export class OpenAiBackend implements InferenceBackend {
  readonly kind = 'openai';

  constructor(
    /** Up to and without /v1: http://127.0.0.1:8000 */
    private readonly baseUrl: string,
    private readonly model: string,
    private readonly apiKey: string | null,
  ) {}

  async generate(prompt: Uint8Array, maxTokens: number, signal: AbortSignal): Promise<Generation> {
    const body = {
      model: this.model,
      messages: [{ role: 'user', content: promptText(prompt) }],
      max_tokens: maxTokens,
      temperature: 0,
      seed: INFERENCE_SEED,
      stream: false,
    };
    const headers: Record<string, string> = this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {};
    const r = (await postJson(`${this.baseUrl}/v1/chat/completions`, body, signal, headers)) as {
      choices?: { message?: { content?: unknown } }[];
      usage?: { completion_tokens?: unknown };
    };
    const content = r.choices?.[0]?.message?.content;
    if (typeof content !== 'string') throw new Error('openai: the answer has no choices[0].message.content');
    const tokenCount = r.usage?.completion_tokens;
    if (!Number.isSafeInteger(tokenCount) || (tokenCount as number) < 0) throw new Error('openai: the answer has no usage.completion_tokens');
    return { response: Buffer.from(content, 'utf8'), tokenCount: tokenCount as number };
  }

  async close(): Promise<void> {}
}
