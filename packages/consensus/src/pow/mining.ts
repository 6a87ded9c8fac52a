/**
 * Nonce search around the solver, for `generatetoaddress`, genesis mining and the reference miner:
 * try nonces one after another, solve each, and hand every solution to a caller's test (normally
 * "does the block hash meet the target"), stopping at the first accepted one or after a bounded
 * number of nonces.
 */
import { HEADER_BYTES, HEADER_INPUT_BYTES, HEADER_NONCE_BYTES } from './equihash.ts';
import type { EquihashParams } from './equihash-params.ts';
import { solveHeader } from './solver.ts';

export interface MineOptions {
  /** Most nonces to try; mining always ends after them. */
  readonly maxNonces: number;
  /**
   * Byte of the 32-byte nonce where the counter starts; the bytes before it stay as in the template.
   * 0 (the default) counts over the whole nonce as a little-endian integer, as Zcash's miner does;
   * a stratum miner passes the length of the pool's NONCE_1 prefix (ZIP 301).
   */
  readonly counterOffset?: number;
  /** Decides on a candidate: header bytes 0..139 with the nonce, and the packed solution. */
  readonly accept: (header140: Uint8Array, solution: Uint8Array) => boolean;
}

export interface MinedHeader {
  /** Header bytes 0..139 carrying the winning nonce. */
  readonly header140: Uint8Array;
  readonly solution: Uint8Array;
  /** Nonces solved, the winning one included. */
  readonly noncesTried: number;
}

/**
 * Mines from the template's own nonce upwards. Returns null when maxNonces nonces (or the whole
 * counter range) gave no accepted solution. The template is not modified.
 */
export function mineHeader(params: EquihashParams, template140: Uint8Array, options: MineOptions): MinedHeader | null {
  if (template140.length !== HEADER_BYTES) throw new RangeError(`a block header is ${HEADER_BYTES} bytes before its solution`);
  const counterOffset = options.counterOffset ?? 0;
  if (!Number.isInteger(counterOffset) || counterOffset < 0 || counterOffset >= HEADER_NONCE_BYTES) {
    throw new RangeError('counterOffset must point inside the 32-byte nonce');
  }
  const header = template140.slice();
  for (let tried = 1; tried <= options.maxNonces; tried++) {
    for (const solution of solveHeader(params, header)) {
      if (options.accept(header.slice(), solution)) return { header140: header, solution, noncesTried: tried };
    }
    if (!incrementLE(header, HEADER_INPUT_BYTES + counterOffset, HEADER_BYTES)) return null;
  }
  return null;
}

/** Adds one to bytes[from..to) read as a little-endian integer; false when it wraps to zero. */
function incrementLE(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    bytes[i] = (bytes[i] + 1) & 0xff;
    if (bytes[i] !== 0) return true;
  }
  return false;
}
