/**
 * Big-endian bit packing, the one encoding Equihash uses twice: solutions are their indices packed
 * as (n/(k+1)+1)-bit fields, and each hash slice is read as (k+1) fields of n/(k+1) bits. Fields are
 * written most significant bit first and concatenated without padding (Zcash's CompressArray /
 * ExpandArray with no byte padding).
 */
import { DecodeError } from '../encoding/errors.ts';
import { equihashLayout, type EquihashParams } from './equihash-params.ts';

/** Reads one bitLen-bit field (bitLen <= 31) starting bitOffset bits into bytes. */
export function readBits(bytes: Uint8Array, bitOffset: number, bitLen: number): number {
  const at = bitOffset >>> 3;
  const used = bitOffset & 7;
  // Fast path, the one hashing takes for fields up to 25 bits: one 32-bit big-endian window.
  if (used + bitLen <= 32 && at + 3 < bytes.length) {
    const word = ((bytes[at] << 24) | (bytes[at + 1] << 16) | (bytes[at + 2] << 8) | bytes[at + 3]) >>> 0;
    return (word >>> (32 - used - bitLen)) & ((1 << bitLen) - 1);
  }
  let value = 0;
  let pos = bitOffset;
  let remaining = bitLen;
  while (remaining > 0) {
    const inByte = pos & 7;
    const take = Math.min(8 - inByte, remaining);
    const bits = (bytes[pos >>> 3] >>> (8 - inByte - take)) & ((1 << take) - 1);
    // Multiplication rather than a shift: a 31-bit field would turn negative under `<<`.
    value = value * (1 << take) + bits;
    pos += take;
    remaining -= take;
  }
  return value;
}

/** Reads count consecutive bitLen-bit fields into out[outOffset ..]. */
export function readBitsInto(bytes: Uint8Array, bitOffset: number, bitLen: number, count: number, out: Uint32Array, outOffset: number): void {
  for (let i = 0; i < count; i++) out[outOffset + i] = readBits(bytes, bitOffset + i * bitLen, bitLen);
}

/** Packs values (each < 2^bitLen, bitLen <= 31) into ceil(count*bitLen/8) bytes, zero-filling the last byte. */
export function packBits(values: ArrayLike<number>, bitLen: number): Uint8Array {
  const out = new Uint8Array(Math.ceil((values.length * bitLen) / 8));
  let bitPos = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (!Number.isInteger(v) || v < 0 || v >= 2 ** bitLen) throw new RangeError(`value ${v} does not fit in ${bitLen} bits`);
    for (let b = bitLen - 1; b >= 0; b--, bitPos++) {
      if (Math.floor(v / 2 ** b) & 1) out[bitPos >>> 3] |= 0x80 >>> (bitPos & 7);
    }
  }
  return out;
}

/** Unpacks count bitLen-bit fields; the bytes must be exactly ceil(count*bitLen/8) long. */
export function unpackBits(bytes: Uint8Array, bitLen: number, count: number): number[] {
  const expected = Math.ceil((count * bitLen) / 8);
  if (bytes.length !== expected) {
    throw new DecodeError('invalid', `expected ${expected} bytes of packed ${bitLen}-bit fields, got ${bytes.length}`);
  }
  const out: number[] = new Array<number>(count);
  for (let i = 0; i < count; i++) out[i] = readBits(bytes, i * bitLen, bitLen);
  return out;
}

/** Minimal solution encoding of 2^k indices. Throws RangeError on a wrong count or an out-of-range index. */
export function packIndices(params: EquihashParams, indices: readonly number[]): Uint8Array {
  const layout = equihashLayout(params);
  if (indices.length !== layout.solutionIndices) {
    throw new RangeError(`an Equihash (${params.n},${params.k}) solution has ${layout.solutionIndices} indices, got ${indices.length}`);
  }
  return packBits(indices, layout.indexBits);
}

/** Indices of a minimal solution; a solution of the wrong size is a DecodeError. */
export function unpackIndices(params: EquihashParams, solution: Uint8Array): number[] {
  const layout = equihashLayout(params);
  return unpackBits(solution, layout.indexBits, layout.solutionIndices);
}
