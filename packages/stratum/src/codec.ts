/**
 * The ZIP 301 wire format: JSON-RPC 1.0 objects, one per LF-terminated line. Requests carry
 * {id, method, params}, responses {id, result, error}, notifications id null. An error is
 * [code, message, traceback|null] with `result` null beside it.
 */

/** ZIP 301's error codes; 21 (stale) is kept apart from the others so that miners can tell. */
export const StratumErrorCode = {
  OTHER: 20,
  JOB_NOT_FOUND: 21,
  DUPLICATE_SHARE: 22,
  LOW_DIFFICULTY: 23,
  UNAUTHORIZED: 24,
  NOT_SUBSCRIBED: 25,
} as const;
export type StratumErrorCode = (typeof StratumErrorCode)[keyof typeof StratumErrorCode];

export type StratumErrorArray = [code: number, message: string, traceback: null];

/** A rejection to send back as an error array; tests assert `code`, never `message`. */
export class StratumError extends Error {
  constructor(
    readonly code: StratumErrorCode,
    message: string,
  ) {
    super(message);
  }

  toArray(): StratumErrorArray {
    return [this.code, this.message, null];
  }
}

/** A line that is not a JSON object of the expected shape: the peer is not speaking stratum. */
export class StratumProtocolError extends Error {}

export type StratumId = string | number | null;

export interface StratumRequest {
  readonly kind: 'request';
  readonly id: StratumId;
  readonly method: string;
  readonly params: readonly unknown[];
}

export interface StratumResponse {
  readonly kind: 'response';
  readonly id: StratumId;
  readonly result: unknown;
  readonly error: StratumErrorArray | null;
}

export type StratumMessage = StratumRequest | StratumResponse;

/**
 * Longest line a peer may send: a (200,9) submit is about 2,900 bytes, so 10 KB leaves room for
 * any honest message while a flood without newlines is cut off early (s-nomp's limit).
 */
export const MAX_LINE_BYTES = 10 * 1024;

/** Decodes one line (without its LF). Requests and notifications have a method; the rest are responses. */
export function decodeMessage(line: string): StratumMessage {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new StratumProtocolError('malformed JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new StratumProtocolError('a message is a JSON object');
  const msg = value as Record<string, unknown>;
  const id = msg.id ?? null;
  if (id !== null && typeof id !== 'string' && typeof id !== 'number') throw new StratumProtocolError('id must be a string, a number or null');
  if ('method' in msg) {
    if (typeof msg.method !== 'string') throw new StratumProtocolError('method must be a string');
    const params = msg.params ?? [];
    if (!Array.isArray(params)) throw new StratumProtocolError('params must be an array');
    return { kind: 'request', id, method: msg.method, params };
  }
  const error = msg.error ?? null;
  if (error !== null && !isErrorArray(error)) throw new StratumProtocolError('error must be [code, message, traceback]');
  return { kind: 'response', id, result: msg.result ?? null, error };
}

function isErrorArray(v: unknown): v is StratumErrorArray {
  return Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'string';
}

export function encodeRequest(id: StratumId, method: string, params: readonly unknown[]): string {
  return `${JSON.stringify({ id, method, params })}\n`;
}

export function encodeNotification(method: string, params: readonly unknown[]): string {
  return encodeRequest(null, method, params);
}

export function encodeResult(id: StratumId, result: unknown): string {
  return `${JSON.stringify({ id, result, error: null })}\n`;
}

export function encodeError(id: StratumId, error: StratumError): string {
  return `${JSON.stringify({ id, result: null, error: error.toArray() })}\n`;
}

/**
 * Splits a byte stream into lines. Returns the complete lines and keeps the rest; a pending
 * line longer than `maxLineBytes` (MAX_LINE_BYTES unless the connection speaks OPoI) throws,
 * since no honest peer sends one.
 */
export class LineSplitter {
  private pending = '';

  constructor(public maxLineBytes = MAX_LINE_BYTES) {}

  push(chunk: string): string[] {
    const text = this.pending + chunk;
    const lines = text.split('\n');
    this.pending = lines.pop()!;
    const max = this.maxLineBytes;
    if (this.pending.length > max) throw new StratumProtocolError(`line longer than ${max} bytes`);
    for (const line of lines) if (line.length > max) throw new StratumProtocolError(`line longer than ${max} bytes`);
    return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l)).filter((l) => l.trim() !== '');
  }
}
