import { DecodeError } from './errors.ts';

const HEX_RE = /^(?:[0-9a-fA-F]{2})*$/;
const HASH_RE = /^[0-9a-fA-F]{64}$/;

/** Strict hex decoding: even length, hex digits only. Bad input is a DecodeError, never garbage bytes. */
export function fromHex(hex: string): Uint8Array {
  if (typeof hex !== 'string' || !HEX_RE.test(hex)) throw new DecodeError('invalid', 'invalid hex string');
  return new Uint8Array(Buffer.from(hex, 'hex'));
}

export function toHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** Hashes are stored in internal byte order and shown reversed, as Bitcoin Core does. */
export function hashToHex(hash: Uint8Array): string {
  return toHex(reversed(hash));
}

export function hashFromHex(hex: string): Uint8Array {
  if (typeof hex !== 'string' || !HASH_RE.test(hex)) throw new DecodeError('invalid', 'hash must be 64 hex characters');
  // Decoded straight into the result, reversed in place: no intermediate copies.
  const out = new Uint8Array(32);
  Buffer.from(out.buffer).write(hex, 'hex');
  return out.reverse();
}

/**
 * hashFromHex over a list, decoded in one pass (a template's thousands of txids, on the way to a
 * pool's first job): each entry 64 hex digits, or a DecodeError naming the first bad one.
 */
export function hashesFromHex(hexes: readonly string[]): Uint8Array[] {
  const joined = hexes.every((hex) => typeof hex === 'string' && hex.length === 64) ? hexes.join('') : null;
  // One scan of the joined digits; only a bad list is looked at hash by hash, to name the culprit.
  if (joined === null || !HEX_RE.test(joined)) {
    const bad = hexes.findIndex((hex) => typeof hex !== 'string' || !HASH_RE.test(hex));
    throw new DecodeError('invalid', `hash ${bad} must be 64 hex characters`);
  }
  const all = new Uint8Array(32 * hexes.length);
  Buffer.from(all.buffer).write(joined, 'hex');
  return hexes.map((_, i) => all.subarray(32 * i, 32 * i + 32).reverse());
}

export function reversed(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = bytes[bytes.length - 1 - i];
  return out;
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  let len = 0;
  for (const p of parts) len += p.length;
  const out = new Uint8Array(len);
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
