/** What every inference backend offers: one prompt in, the response bytes and the tokens generated out. */

export interface Generation {
  readonly response: Uint8Array;
  /** Tokens the model actually generated (the prompt not included). */
  readonly tokenCount: number;
}

export interface InferenceBackend {
  /** For logs and the status line: "llama", "ollama", "openai". */
  readonly kind: string;
  /**
   * Runs the prompt with greedy decoding and a fixed seed, at most maxTokens tokens. Rejects with
   * an Error saying what went wrong; stops early when `signal` aborts (the assignment timed out).
   */
  generate(prompt: Uint8Array, maxTokens: number, signal: AbortSignal): Promise<Generation>;
  close(): Promise<void>;
}

/** The prompt as text for backends that take strings: it must be UTF-8. */
export function promptText(prompt: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(prompt);
  } catch {
    throw new Error('the prompt is not UTF-8 text');
  }
}

/** POSTs JSON and returns the parsed answer; HTTP errors and unreadable bodies are Errors naming the URL. */
export async function postJson(url: string, body: unknown, signal: AbortSignal, headers: Record<string, string> = {}): Promise<unknown> {
  let res: Response;
  try {
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body), signal });
  } catch (e) {
    if (signal.aborted) throw e;
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new Error(`${url}: ${cause?.code ?? cause?.message ?? (e as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status} ${text.slice(0, 200)}`);
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`${url}: the answer is not JSON`);
  }
}

/** A fixed seed: the same prompt gives the same answer on the same build and model. */
export const INFERENCE_SEED = 42;
