/**
 * The OPoI messages between a miner and the bridge, on the same stratum connection as mining
 * (docs/miner.md, "The OPoI messages"). opoi.assign and opoi.submit_result are the reference
 * system's shapes; opoi.subscribe (the miner's announcement) and opoi.submit_error (a failure
 * reported instead of a result) are ours. Both sides build and read them here, so a change to a
 * shape is one change. Readers throw StratumError OTHER (20) with a message fit for the peer.
 */
import { sha256, toHex } from '@cs/consensus';
import { StratumError, StratumErrorCode } from './codec.ts';
import { OPOI_MAX_VERIFIABLE_TOKENS } from './opoi-audit.ts';
import { bad, HASH_HEX, HEX, paramObject, positiveInteger, requestId, tokenIds } from './opoi-fields.ts';
import {
  fileMatchesManifest,
  opoiManifestJson,
  parseOpoiManifest,
  parseOpoiModelFile,
  type OpoiManifest,
  type OpoiModelFile,
} from './opoi-manifest.ts';

/**
 * Longest line an OPoI peer may send: an opoi.submit_result carries up to 256 KiB of response
 * (the node's content limit) as hex, plus its fields. Connections that speak OPoI raise their
 * line limit to this after opoi.subscribe.
 */
export const OPOI_MAX_LINE_BYTES = 600 * 1024;
/** The most bytes an answer may have: what the node takes as published content. */
export const OPOI_MAX_RESPONSE_BYTES = 256 * 1024;

const MAX_MODELS = 64;
const MAX_MODEL_NAME = 64;
const MAX_CONCURRENCY = 64;

// opoi.subscribe (miner → bridge, request): the announcement. Without it a bridge sends no
// opoi.* to the connection, so stock miners never see a method they do not know.

/** What a miner serves and the limits an assignment to it must respect. */
export interface OpoiSubscription {
  /** Model names as requests name them on chain; 1 to 64 names of 1 to 64 characters. */
  readonly models: readonly string[];
  /** The largest max_tokens it takes; null = any. */
  readonly maxTokens: number | null;
  /** The longest prompt it takes, in bytes; null = any. */
  readonly maxPromptBytes: number | null;
  /** Assignments it runs at once (1 to 64; 1 when not announced). */
  readonly concurrency: number;
  /**
   * The GGUF files it holds and answers VERIFIABLE assignments with (the embedded engine's; none
   * when not announced): a bridge sends a VERIFIABLE assignment or an audit only to a miner whose
   * file is the manifest's.
   */
  readonly files: readonly OpoiModelFile[];
  /** Whether it takes opoi.audit for those files (false when not announced). */
  readonly audits: boolean;
}

/** opoi.subscribe [{models, max_tokens?, max_prompt_bytes?, concurrency?, files?, audits?}]. */
export function opoiSubscribeParams(s: OpoiSubscription): [Record<string, unknown>] {
  const o: Record<string, unknown> = { models: [...s.models], concurrency: s.concurrency };
  if (s.files.length > 0) o.files = s.files.map((f) => ({ sha256: f.sha256, size: f.size }));
  if (s.audits) o.audits = true;
  if (s.maxTokens !== null) o.max_tokens = s.maxTokens;
  if (s.maxPromptBytes !== null) o.max_prompt_bytes = s.maxPromptBytes;
  return [o];
}

export function parseOpoiSubscribe(params: readonly unknown[]): OpoiSubscription {
  const o = paramObject('opoi.subscribe', params);
  const models = o.models;
  if (!Array.isArray(models) || models.length === 0 || models.length > MAX_MODELS)
    throw bad(`models must be a list of 1 to ${MAX_MODELS} model names`);
  if (!models.every((m) => typeof m === 'string' && m.length > 0 && m.length <= MAX_MODEL_NAME))
    throw bad(`a model name is 1 to ${MAX_MODEL_NAME} characters`);
  return {
    models: [...new Set(models as string[])],
    maxTokens: positiveInteger(o, 'max_tokens'),
    maxPromptBytes: positiveInteger(o, 'max_prompt_bytes'),
    concurrency: positiveInteger(o, 'concurrency', MAX_CONCURRENCY) ?? 1,
    files: subscribedFiles(o.files),
    audits: o.audits === true,
  };
}

function subscribedFiles(v: unknown): OpoiModelFile[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.length > MAX_MODELS) throw bad(`files must be a list of at most ${MAX_MODELS} {sha256, size}`);
  return v.map(parseOpoiModelFile);
}

/** opoi.subscribe's result: the models the bridge will assign (those it knows of the announced ones, or all). */
export interface OpoiSubscribed {
  readonly subscribed: true;
  readonly models: readonly string[];
}

export function parseOpoiSubscribed(result: unknown): OpoiSubscribed {
  const r = result as Record<string, unknown> | null;
  if (r?.subscribed !== true || !Array.isArray(r.models) || !r.models.every((m) => typeof m === 'string'))
    throw bad('opoi.subscribe result must be {subscribed: true, models}');
  return { subscribed: true, models: r.models as string[] };
}

/** Whether an assignment fits what a miner announced; the reason when it does not. */
export function opoiAssignmentFits(
  s: OpoiSubscription,
  a: Pick<OpoiAssignment, 'model' | 'maxTokens' | 'prompt'> & { readonly manifest?: OpoiManifest | null },
): string | null {
  if (a.manifest) {
    const m = a.manifest;
    if (!s.files.some((f) => fileMatchesManifest(f, m))) return `the file of manifest '${m.modelId}' (SHA-256 ${m.ggufSha256}) is not held`;
  } else if (!s.models.includes(a.model)) return `model '${a.model}' is not served`;
  if (s.maxTokens !== null && a.maxTokens > s.maxTokens) return `max_tokens ${a.maxTokens} is over the announced ${s.maxTokens}`;
  if (s.maxPromptBytes !== null && a.prompt.length > s.maxPromptBytes)
    return `the prompt's ${a.prompt.length} bytes are over the announced ${s.maxPromptBytes}`;
  return null;
}

// opoi.assign (bridge → miner, notification with id null).

export interface OpoiAssignment {
  readonly requestId: string;
  readonly model: string;
  readonly prompt: Uint8Array;
  readonly maxTokens: number;
  readonly taskType: string | null;
  readonly taskClass: string | null;
  /**
   * A VERIFIABLE assignment's manifest: answer with greedy decoding under its rule, with the exact
   * file it names, and return the token ids. null for OPEN work.
   */
  readonly manifest: OpoiManifest | null;
}

/** opoi.assign [{request_id, model, prompt_hex, max_tokens[, task_type, task_class, manifest]}]. */
export function opoiAssignParams(a: OpoiAssignment): [Record<string, unknown>] {
  const o: Record<string, unknown> = { request_id: a.requestId, model: a.model, prompt_hex: toHex(a.prompt), max_tokens: a.maxTokens };
  if (a.taskType !== null) o.task_type = a.taskType;
  if (a.taskClass !== null) o.task_class = a.taskClass;
  if (a.manifest !== null) o.manifest = opoiManifestJson(a.manifest);
  return [o];
}

/** The whole opoi.assign line as the reference bridge writes it: a JSON-RPC 2.0 notification. */
export function encodeOpoiAssign(a: OpoiAssignment): string {
  return `${JSON.stringify({ jsonrpc: '2.0', method: 'opoi.assign', params: opoiAssignParams(a), id: null })}\n`;
}

/**
 * An opoi.assign that cannot be taken; `requestId` is set when the assignment had a readable one,
 * so that the failure can be reported with opoi.submit_error.
 */
export class OpoiAssignError extends StratumError {
  constructor(
    readonly requestId: string | null,
    message: string,
  ) {
    super(StratumErrorCode.OTHER, message);
  }
}

export function parseOpoiAssign(params: readonly unknown[]): OpoiAssignment {
  let id: string | null = null;
  try {
    const o = paramObject('opoi.assign', params);
    id = requestId(o);
    if (typeof o.model !== 'string' || o.model === '') throw bad('model must be a non-empty string');
    if (typeof o.prompt_hex !== 'string' || !HEX.test(o.prompt_hex)) throw bad('prompt_hex must be hex');
    const maxTokens = positiveInteger(o, 'max_tokens');
    if (maxTokens === null) throw bad('max_tokens must be a positive integer');
    const optional = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : null);
    return {
      requestId: id,
      model: o.model,
      prompt: Buffer.from(o.prompt_hex, 'hex'),
      maxTokens,
      taskType: optional(o.task_type),
      taskClass: optional(o.task_class),
      manifest: o.manifest === undefined || o.manifest === null ? null : parseOpoiManifest(o.manifest),
    };
  } catch (e) {
    throw new OpoiAssignError(id, (e as Error).message);
  }
}

// opoi.submit_result (miner → bridge, request). The bridge answers {accepted: true, submission_id}
// or an error array: 20 malformed / unknown request / duplicate / bad hex / hash mismatch,
// 24 unauthorized, 25 not assigned to this connection.

export interface OpoiResult {
  readonly requestId: string;
  readonly response: Uint8Array;
  /** SHA-256 of the response bytes, lower-case hex. */
  readonly responseHash: string;
  /** Tokens actually generated; the receiver checks it against the request's max_tokens. */
  readonly tokenCount: number;
  /** A VERIFIABLE answer's token ids (token_count of them, the end-of-generation token left out); null for OPEN. */
  readonly tokenIds: readonly number[] | null;
}

/** The SHA-256 of an answer's bytes as opoi.submit_result and the COMMIT carry it. */
export function opoiResponseHash(response: Uint8Array): string {
  return toHex(sha256(response));
}

/** opoi.submit_result [{request_id, response_hash, response_hex, token_count[, token_ids]}]. */
export function opoiSubmitResultParams(
  requestId: string,
  response: Uint8Array,
  tokenCount: number,
  ids: readonly number[] | null = null,
): [Record<string, unknown>] {
  const o: Record<string, unknown> = {
    request_id: requestId,
    response_hash: opoiResponseHash(response),
    response_hex: toHex(response),
    token_count: tokenCount,
  };
  if (ids !== null) o.token_ids = [...ids];
  return [o];
}

/** Reads an opoi.submit_result and checks that response_hash is the SHA-256 of response_hex. */
export function parseOpoiSubmitResult(params: readonly unknown[]): OpoiResult {
  const o = paramObject('opoi.submit_result', params);
  const id = requestId(o);
  if (typeof o.response_hex !== 'string' || !HEX.test(o.response_hex)) throw bad('response_hex must be hex');
  if (o.response_hex.length / 2 > OPOI_MAX_RESPONSE_BYTES) throw bad(`the response is over ${OPOI_MAX_RESPONSE_BYTES} bytes`);
  if (typeof o.response_hash !== 'string' || !HASH_HEX.test(o.response_hash)) throw bad('response_hash must be 64 hex digits');
  if (!Number.isSafeInteger(o.token_count) || (o.token_count as number) < 0) throw bad('token_count must be a non-negative integer');
  const response = Buffer.from(o.response_hex, 'hex');
  const hash = o.response_hash.toLowerCase();
  if (opoiResponseHash(response) !== hash) throw bad('response_hash is not the SHA-256 of response_hex');
  let ids: number[] | null = null;
  if (o.token_ids !== undefined && o.token_ids !== null) {
    ids = tokenIds(o, 'token_ids', OPOI_MAX_VERIFIABLE_TOKENS);
    if (ids.length !== o.token_count) throw bad(`token_ids holds ${ids.length} ids for token_count ${o.token_count}`);
  }
  return { requestId: id, response, responseHash: hash, tokenCount: o.token_count as number, tokenIds: ids };
}

/** opoi.submit_result's success result. */
export interface OpoiAccepted {
  readonly accepted: true;
  readonly submission_id: number;
}

// opoi.submit_error (miner → bridge, request): the miner gives up on an assignment, at once and
// with the reason, so the bridge can hand it to another miner instead of waiting for a timeout.
// The bridge answers {accepted: true} or an error array (codes as for submit_result).

/** Why a miner did not answer an assignment: opoi.submit_error's `error` field. */
export const OpoiFailure = {
  /** The assignment's fields are missing or malformed. */
  BAD_ASSIGNMENT: 'bad_assignment',
  /** The miner does not serve the model. */
  MODEL_NOT_SERVED: 'model_not_served',
  /** max_tokens or the prompt exceed the limits the miner announced. */
  OVER_LIMIT: 'over_limit',
  /** The miner already runs as many assignments as it announced. */
  BUSY: 'busy',
  /** The inference backend failed: down, an HTTP error, an answer that cannot be read. */
  BACKEND_ERROR: 'backend_error',
  /** No answer within the miner's time limit. */
  TIMEOUT: 'timeout',
} as const;
export type OpoiFailure = (typeof OpoiFailure)[keyof typeof OpoiFailure];
const FAILURES = new Set<string>(Object.values(OpoiFailure));

export interface OpoiFailureReport {
  readonly requestId: string;
  readonly error: OpoiFailure;
  /** For the operator's log: what went wrong, at most 512 characters. */
  readonly message: string;
}

/** opoi.submit_error [{request_id, error, message}]. */
export function opoiSubmitErrorParams(r: OpoiFailureReport): [Record<string, unknown>] {
  return [{ request_id: r.requestId, error: r.error, message: r.message.slice(0, 512) }];
}

export function parseOpoiSubmitError(params: readonly unknown[]): OpoiFailureReport {
  const o = paramObject('opoi.submit_error', params);
  const id = requestId(o);
  if (typeof o.error !== 'string' || !FAILURES.has(o.error)) throw bad(`error must be one of ${[...FAILURES].join(', ')}`);
  const message = typeof o.message === 'string' ? o.message.slice(0, 512) : '';
  return { requestId: id, error: o.error as OpoiFailure, message };
}
