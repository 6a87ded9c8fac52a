/** What every inference backend offers: one prompt in, the response bytes and the tokens generated out. */
import type { FileIdentity } from '@cs/runtime/file-hash';
import type { OpoiAuditReport, OpoiAuditTask, OpoiManifest } from '@cs/stratum';

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

/** A VERIFIABLE answer: the token ids (end-of-generation left out) and their detokenized text. */
export interface VerifiableGeneration extends Generation {
  readonly tokenIds: readonly number[];
}

/**
 * A backend that answers and audits VERIFIABLE work: one that holds the GGUF file itself and sees
 * its tokens and logits (the embedded engine; docs/miner.md says why the HTTP backends cannot).
 */
export interface VerifiableBackend extends InferenceBackend {
  /** The GGUF file's SHA-256 and size, as manifests name it. */
  readonly file: FileIdentity;
  readonly vocabularySize: number;
  generateVerifiable(prompt: Uint8Array, manifest: OpoiManifest, maxTokens: number, signal: AbortSignal): Promise<VerifiableGeneration>;
  /** Why this engine cannot follow a manifest's rule, or null when it can. */
  refusal(manifest: OpoiManifest): string | null;
  /** Replays an answer; the caller has checked that this backend's file is the manifest's. */
  audit(task: OpoiAuditTask): Promise<OpoiAuditReport>;
  /** Whether a token id ends generation in this vocabulary. */
  isEogToken(token: number): boolean;
  /** The UTF-8 bytes the token ids detokenize to. */
  text(ids: readonly number[]): Uint8Array;
}

/** A manifest this engine cannot follow, and why: the assignment or audit is refused, not guessed at. */
export class ManifestRuleError extends Error {}

export function isVerifiable(b: InferenceBackend): b is VerifiableBackend {
  return 'generateVerifiable' in b;
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
