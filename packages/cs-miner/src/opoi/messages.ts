/**
 * The OPoI messages between a miner and the bridge (docs/miner.md, "OPoI worker protocol").
 * opoi.assign and opoi.submit_result are the reference system's shapes; opoi.subscribe (the
 * miner's announcement) and opoi.submit_error (a failure reported instead of a result) are ours.
 */

/** opoi.assign's single parameter object. */
export interface Assignment {
  readonly requestId: string;
  readonly model: string;
  readonly prompt: Uint8Array;
  readonly maxTokens: number;
  readonly taskType: string | null;
  readonly taskClass: string | null;
}

/** Why an assignment was not answered; the `error` field of opoi.submit_error. */
export const OpoiErrorCode = {
  /** The assignment's fields are missing or malformed (the bridge's bug). */
  BAD_ASSIGNMENT: 'bad_assignment',
  /** This miner does not serve the model (it was not in its opoi.subscribe). */
  MODEL_NOT_SERVED: 'model_not_served',
  /** max_tokens or the prompt exceed the limits the miner announced. */
  OVER_LIMIT: 'over_limit',
  /** The miner already runs as many assignments as it announced (max_concurrent). */
  BUSY: 'busy',
  /** The backend failed: down, an HTTP error, an answer that cannot be read. */
  BACKEND_ERROR: 'backend_error',
  /** No answer within the miner's -opoitimeout. */
  TIMEOUT: 'timeout',
} as const;
export type OpoiErrorCode = (typeof OpoiErrorCode)[keyof typeof OpoiErrorCode];

export class OpoiError extends Error {
  constructor(
    readonly code: OpoiErrorCode,
    message: string,
  ) {
    super(message);
  }
}

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;
const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;

/**
 * Reads opoi.assign's params. A missing or malformed request_id cannot even be reported back, so
 * it is a plain Error (logged); anything else wrong is an OpoiError carrying the request_id.
 */
export function parseAssignment(params: readonly unknown[]): Assignment {
  const p = params[0];
  if (typeof p !== 'object' || p === null) throw new Error('opoi.assign takes one object');
  const o = p as Record<string, unknown>;
  if (typeof o.request_id !== 'string' || !UUID_RE.test(o.request_id)) throw new Error('opoi.assign without a valid request_id');
  const bad = (what: string) => new OpoiError(OpoiErrorCode.BAD_ASSIGNMENT, what);
  if (typeof o.model !== 'string' || o.model === '') throw bad('model must be a non-empty string');
  if (typeof o.prompt_hex !== 'string' || !HEX_RE.test(o.prompt_hex)) throw bad('prompt_hex must be hex');
  if (!Number.isSafeInteger(o.max_tokens) || (o.max_tokens as number) < 1) throw bad('max_tokens must be a positive integer');
  const optional = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
  return {
    requestId: o.request_id.toLowerCase(),
    model: o.model,
    prompt: Buffer.from(o.prompt_hex, 'hex'),
    maxTokens: o.max_tokens as number,
    taskType: optional(o.task_type),
    taskClass: optional(o.task_class),
  };
}

/** The request_id of an opoi.assign, when it has a readable one (for reporting a bad assignment). */
export function assignmentRequestId(params: readonly unknown[]): string | null {
  const p = params[0] as Record<string, unknown> | null;
  return typeof p?.request_id === 'string' && UUID_RE.test(p.request_id) ? p.request_id.toLowerCase() : null;
}

export interface ServedModel {
  readonly name: string;
  readonly backend: string;
}

/** opoi.subscribe's parameter object: the models served and the limits the bridge must respect. */
export function announcement(models: readonly ServedModel[], limits: { maxTokens: number; maxPromptBytes: number; maxConcurrent: number }) {
  return {
    version: 1,
    models: models.map((m) => m.name),
    max_tokens: limits.maxTokens,
    max_prompt_bytes: limits.maxPromptBytes,
    max_concurrent: limits.maxConcurrent,
  };
}

export function submitResultParams(requestId: string, response: Uint8Array, responseHash: string, tokenCount: number) {
  return [{ request_id: requestId, response_hash: responseHash, response_hex: Buffer.from(response).toString('hex'), token_count: tokenCount }];
}

export function submitErrorParams(requestId: string, error: OpoiError) {
  return [{ request_id: requestId, error: error.code, message: error.message }];
}
