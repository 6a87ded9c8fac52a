/**
 * Field readers every opoi.* message shares. They throw StratumError OTHER (20) with a message fit
 * for the peer, so each message reader stays a list of its fields.
 */
import { requestIdFromUuid } from '@cs/consensus';
import { StratumError, StratumErrorCode } from './codec.ts';

export const HEX = /^(?:[0-9a-fA-F]{2})*$/;
export const HASH_HEX = /^[0-9a-fA-F]{64}$/;
/** A token id: llama.cpp's llama_token is an int32, and no vocabulary is near 2^31. */
const MAX_TOKEN_ID = 0x7fffffff;

export function bad(message: string): StratumError {
  return new StratumError(StratumErrorCode.OTHER, message);
}

/** The single object every opoi.* method takes as its params. */
export function paramObject(method: string, params: readonly unknown[]): Record<string, unknown> {
  const p = params[0];
  if (typeof p !== 'object' || p === null || Array.isArray(p)) throw bad(`${method} takes one object as its params`);
  return p as Record<string, unknown>;
}

export function positiveInteger(o: Record<string, unknown>, field: string, max = Number.MAX_SAFE_INTEGER): number | null {
  const v = o[field];
  if (v === undefined || v === null) return null;
  if (!Number.isSafeInteger(v) || (v as number) < 1 || (v as number) > max) throw bad(`${field} must be an integer from 1 to ${max}`);
  return v as number;
}

/** The request_id in its canonical form (lower-case UUID text), or a StratumError. */
export function requestId(o: Record<string, unknown>): string {
  if (typeof o.request_id !== 'string') throw bad('request_id must be a UUID');
  try {
    requestIdFromUuid(o.request_id);
  } catch {
    throw bad('request_id must be a UUID');
  }
  return o.request_id.toLowerCase();
}

/** A lower-case 64-hex-digit SHA-256. */
export function hashHex(o: Record<string, unknown>, field: string): string {
  const v = o[field];
  if (typeof v !== 'string' || !HASH_HEX.test(v)) throw bad(`${field} must be 64 hex digits`);
  return v.toLowerCase();
}

export function hexBytes(o: Record<string, unknown>, field: string, maxBytes: number): Uint8Array {
  const v = o[field];
  if (typeof v !== 'string' || !HEX.test(v)) throw bad(`${field} must be hex`);
  if (v.length / 2 > maxBytes) throw bad(`${field} is over ${maxBytes} bytes`);
  return Buffer.from(v, 'hex');
}

/** A list of token ids, at most `max` of them. */
export function tokenIds(o: Record<string, unknown>, field: string, max: number): number[] {
  const v = o[field];
  if (!Array.isArray(v) || v.length > max) throw bad(`${field} must be a list of at most ${max} token ids`);
  if (!v.every((t) => Number.isSafeInteger(t) && t >= 0 && t <= MAX_TOKEN_ID))
    throw bad(`${field} holds a token id that is not an integer from 0 to ${MAX_TOKEN_ID}`);
  return v as number[];
}
