/**
 * JSON-RPC over HTTP as Bitcoin Core ≥ 28 speaks it: the request envelope, 1.0 versus 2.0 reply
 * shapes and HTTP statuses, batches and notifications. Input is the parsed body, output the
 * status and body to send; the socket side lives in server.ts.
 *
 * - `"jsonrpc": "2.0"`: replies carry `jsonrpc` and only one of result/error; call failures are
 *   HTTP 200; a request without `id` is a notification: executed, answered with 204 and no body.
 * - anything else (absent, or the `"1.0"` older docs send): legacy replies always carry
 *   result, error and id; a failure sets the HTTP status: 400 for -32600, 404 for -32601, 500
 *   for any other code.
 * - envelope errors (not an object, bad `jsonrpc`, method, params) are HTTP errors in both
 *   versions, as in Core, shaped by whatever version was read before the fault.
 * - a batch is HTTP 200 with one reply per non-notification, 204 when all were notifications.
 *
 * Where we differ from Core: an empty batch is a -32600 error (Core returns `[]`), a top-level
 * value that is neither object nor array is -32600 (Core: -32700 "Top-level object parse
 * error"), and `id` is always present in replies (null when the request had none).
 */
import { RpcError, RpcErrorCode, type RpcErrorCodeValue } from './errors.ts';
import { isJsonObject, type JsonObject, type JsonValue, jsonTextOf } from '../format/json-value.ts';
import type { Logger } from './logger.ts';
import type { HttpMetrics } from './metrics.ts';
import type { RpcCallContext, RpcRegistry } from './registry.ts';

export interface RpcReply {
  readonly status: number;
  /** null: no body (HTTP 204). */
  readonly body: string | null;
}

interface ErrorObject {
  readonly code: RpcErrorCodeValue;
  readonly message: string;
}

/** What shapes a reply: the request's version and id. */
interface Envelope {
  v2: boolean;
  /** undefined: the request has no id member. */
  id: JsonValue | undefined;
}

/** A request as read so far; version and id come first, so a fault found later is still answered in its shape. */
interface Call extends Envelope {
  method: string;
  params: readonly JsonValue[] | JsonObject;
}

const NO_PARAMS: readonly JsonValue[] = [];

export class JsonRpcDispatcher {
  readonly #registry: RpcRegistry;
  readonly #metrics: HttpMetrics;
  readonly #logger: Logger;

  constructor(registry: RpcRegistry, metrics: HttpMetrics, logger: Logger) {
    this.#registry = registry;
    this.#metrics = metrics;
    this.#logger = logger;
  }

  /** The answer to a body that is not JSON (Core: -32700 "Parse error", HTTP 500, 1.0 shape). */
  parseError(): RpcReply {
    return this.#errorReply({ v2: false, id: null }, new RpcError(RpcErrorCode.PARSE_ERROR, 'Parse error'), 500);
  }

  /** The 429 answer: shaped for the request's version, echoing its id when it is a single call. */
  rateLimited(request: JsonValue): RpcReply {
    const envelope: Envelope = { v2: false, id: null };
    if (isJsonObject(request)) {
      envelope.v2 = request.jsonrpc === '2.0';
      envelope.id = request.id ?? null;
    }
    return this.#errorReply(envelope, new RpcError(RpcErrorCode.RATE_LIMITED, 'Rate limit exceeded'), 429);
  }

  async dispatch(request: JsonValue, ctx: RpcCallContext): Promise<RpcReply> {
    if (Array.isArray(request)) return this.#batch(request as readonly JsonValue[], ctx);
    const call = emptyCall();
    const fault = readCall(request, call);
    if (fault !== null) return this.#errorReply(call, fault, legacyStatus(fault.code));
    let outcome: JsonValue | RpcError;
    try {
      outcome = await this.#registry.call(call.method, call.params, ctx);
    } catch (e) {
      outcome = this.#asRpcError(e, call, ctx);
    }
    if (isNotification(call)) return { status: 204, body: null };
    if (outcome instanceof RpcError) return this.#errorReply(call, outcome, call.v2 ? 200 : legacyStatus(outcome.code));
    const text = jsonTextOf(outcome);
    return { status: 200, body: `${text === undefined ? JSON.stringify(replyObject(call, outcome, null)) : replyWithText(call, text)}\n` };
  }

  async #batch(requests: readonly JsonValue[], ctx: RpcCallContext): Promise<RpcReply> {
    if (requests.length === 0) {
      return this.#errorReply({ v2: false, id: null }, new RpcError(RpcErrorCode.INVALID_REQUEST, 'Empty batch'), 400);
    }
    const replies: object[] = [];
    // One after another, as Core runs them: a batch is a script, and later calls may depend on earlier ones.
    for (const request of requests) {
      const call = emptyCall();
      let outcome: JsonValue | RpcError | null = readCall(request, call);
      if (outcome === null) {
        try {
          outcome = await this.#registry.call(call.method, call.params, ctx);
        } catch (e) {
          outcome = this.#asRpcError(e, call, ctx);
        }
      }
      if (isNotification(call)) continue;
      if (outcome instanceof RpcError) {
        this.#metrics.error(outcome.code);
        replies.push(replyObject(call, null, errorObject(outcome)));
      } else {
        replies.push(replyObject(call, outcome, null));
      }
    }
    return replies.length === 0 ? { status: 204, body: null } : { status: 200, body: `${JSON.stringify(replies)}\n` };
  }

  /** A call's failure as the client sees it: an RpcError as is, anything else as MISC_ERROR with its message only. */
  #asRpcError(e: unknown, call: Call, ctx: RpcCallContext): RpcError {
    if (e instanceof RpcError) return e;
    // The stack stays in our log.
    this.#logger.error({ err: e, method: call.method, peer: ctx.peer }, 'RPC handler failed');
    return new RpcError(RpcErrorCode.MISC_ERROR, e instanceof Error ? e.message : String(e));
  }

  #errorReply(envelope: Envelope, error: RpcError, status: number): RpcReply {
    this.#metrics.error(error.code);
    return { status, body: `${JSON.stringify(replyObject(envelope, null, errorObject(error)))}\n` };
  }
}

function emptyCall(): Call {
  return { v2: false, id: null, method: '', params: NO_PARAMS };
}

/** Core's JSONRPCRequest::parse: fills `call` as it reads; returns the first fault, or null. */
function readCall(request: JsonValue, call: Call): RpcError | null {
  if (!isJsonObject(request)) return new RpcError(RpcErrorCode.INVALID_REQUEST, 'Invalid Request object');
  call.id = request.id;
  const version = request.jsonrpc;
  if (version !== undefined && version !== null) {
    if (typeof version !== 'string') return new RpcError(RpcErrorCode.INVALID_REQUEST, 'jsonrpc field must be a string');
    if (version === '2.0') call.v2 = true;
    else if (version !== '1.0') return new RpcError(RpcErrorCode.INVALID_REQUEST, 'JSON-RPC version not supported');
  }
  const method = request.method;
  if (method === undefined || method === null) return new RpcError(RpcErrorCode.INVALID_REQUEST, 'Missing method');
  if (typeof method !== 'string') return new RpcError(RpcErrorCode.INVALID_REQUEST, 'Method must be a string');
  call.method = method;
  const params = request.params;
  if (params === undefined || params === null) return null;
  if (typeof params !== 'object') return new RpcError(RpcErrorCode.INVALID_REQUEST, 'Params must be an array or object');
  call.params = params;
  return null;
}

function isNotification(envelope: Envelope): boolean {
  return envelope.v2 && envelope.id === undefined;
}

/** Core's JSONErrorReply: the legacy HTTP status for an error code. */
function legacyStatus(code: RpcErrorCodeValue): number {
  if (code === RpcErrorCode.INVALID_REQUEST) return 400;
  if (code === RpcErrorCode.METHOD_NOT_FOUND) return 404;
  return 500;
}

function errorObject(error: RpcError): ErrorObject {
  return { code: error.code, message: error.message };
}

/** Member order as Core writes them: jsonrpc (2.0 only), result and/or error, id. */
/** The bytes JSON.stringify(replyObject(envelope, result, null)) would give, around a result's kept text. */
function replyWithText(envelope: Envelope, text: string): string {
  const id = JSON.stringify(envelope.id ?? null);
  return envelope.v2 ? `{"jsonrpc":"2.0","result":${text},"id":${id}}` : `{"result":${text},"error":null,"id":${id}}`;
}

function replyObject(envelope: Envelope, result: JsonValue, error: ErrorObject | null): object {
  const id = envelope.id ?? null;
  if (!envelope.v2) return { result, error, id };
  return error === null ? { jsonrpc: '2.0', result, id } : { jsonrpc: '2.0', error, id };
}
