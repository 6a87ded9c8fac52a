import { CURVE_ORDER, parseDerLax } from '../crypto/secp256k1.ts';
import type { ScriptError } from './errors.ts';
import { ScriptFlags } from './flags.ts';
import { SIGHASH_ALL, SIGHASH_ANYONECANPAY, SIGHASH_SINGLE, SigVersion } from './sighash.ts';

/**
 * Encoding rules for signatures and public keys inside scripts (BIP66 DER, BIP146 low S,
 * STRICTENC hash types and key formats) and the conversion of a script signature into the
 * compact low-S form libsecp256k1 verifies.
 */

function bigToBytes32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

const ORDER = bigToBytes32(CURVE_ORDER);
const HALF_ORDER = bigToBytes32(CURVE_ORDER >> 1n);

/** Big-endian comparison of 32 bytes at `off` against `ref`: <0, 0, >0. */
function compare32(a: Uint8Array, off: number, ref: Uint8Array): number {
  for (let i = 0; i < 32; i++) {
    const d = a[off + i] - ref[i];
    if (d !== 0) return d;
  }
  return 0;
}

/**
 * BIP66 layout check for a DER signature occupying der[0..len): 0x30 len 0x02 lenR R 0x02 lenS S,
 * minimal lengths, no negative or needlessly padded integers. Bounds are those of Core's
 * IsValidSignatureEncoding, shifted by the hash-type byte that follows in a script signature.
 */
function isStrictDer(der: Uint8Array, len: number): boolean {
  if (len < 8 || len > 72) return false;
  if (der[0] !== 0x30) return false;
  if (der[1] !== len - 2) return false;
  const lenR = der[3];
  // Core tests 5 + lenR >= len + 1 here; at 5 + lenR == len its total-length check fails next.
  if (5 + lenR >= len) return false;
  const lenS = der[5 + lenR];
  if (lenR + lenS + 6 !== len) return false;
  if (der[2] !== 0x02) return false;
  if (lenR === 0) return false;
  if (der[4] & 0x80) return false;
  if (lenR > 1 && der[4] === 0x00 && !(der[5] & 0x80)) return false;
  if (der[lenR + 4] !== 0x02) return false;
  if (lenS === 0) return false;
  if (der[lenR + 6] & 0x80) return false;
  if (lenS > 1 && der[lenR + 6] === 0x00 && !(der[lenR + 7] & 0x80)) return false;
  return true;
}

/** Copies a DER integer into 32 bytes at `off` (leading zeros dropped); false if it needs more. */
function placeInteger(src: Uint8Array, start: number, len: number, out: Uint8Array, off: number): boolean {
  while (len > 0 && src[start] === 0) {
    start++;
    len--;
  }
  if (len > 32) return false;
  // A byte loop: for 32 bytes, creating a subarray for set() costs more than the copy.
  const to = off + 32 - len;
  for (let i = 0; i < len; i++) out[to + i] = src[start + i];
  return true;
}

/**
 * Writes r||s of an already validated strict-DER signature into `out` (64 bytes). An r or s that
 * does not fit or is not below the curve order gives all zeros, as Core's lax parser does: such a
 * signature never verifies.
 */
function strictDerToCompact(der: Uint8Array, out: Uint8Array): void {
  out.fill(0);
  const lenR = der[3];
  const ok =
    placeInteger(der, 4, lenR, out, 0) &&
    placeInteger(der, 6 + lenR, der[5 + lenR], out, 32) &&
    compare32(out, 0, ORDER) < 0 &&
    compare32(out, 32, ORDER) < 0;
  if (!ok) out.fill(0);
}

/** Core's IsValidSignatureEncoding: strict DER followed by one hash-type byte. */
export function isValidSignatureEncoding(sig: Uint8Array): boolean {
  return sig.length >= 9 && isStrictDer(sig, sig.length - 1);
}

/** Core's IsDefinedHashtypeSignature: the hash type (ANYONECANPAY aside) is ALL, NONE or SINGLE. */
export function isDefinedHashtypeSignature(sig: Uint8Array): boolean {
  if (sig.length === 0) return false;
  const base = sig[sig.length - 1] & ~SIGHASH_ANYONECANPAY;
  return base >= SIGHASH_ALL && base <= SIGHASH_SINGLE;
}

/** Core's CheckSignatureEncoding: null if `sig` (with hash type) is acceptable under `flags`. */
export function checkSignatureEncoding(sig: Uint8Array, flags: number): ScriptError | null {
  // The empty signature is the compact way to fail a CHECK(MULTI)SIG on purpose.
  if (sig.length === 0) return null;
  if (flags & (ScriptFlags.DERSIG | ScriptFlags.LOW_S | ScriptFlags.STRICTENC) && !isValidSignatureEncoding(sig)) {
    return 'SIG_DER';
  }
  if (flags & ScriptFlags.LOW_S && isStrictDerHighS(sig)) return 'SIG_HIGH_S';
  if (flags & ScriptFlags.STRICTENC && !isDefinedHashtypeSignature(sig)) return 'SIG_HASHTYPE';
  return null;
}

/**
 * Whether strictDerToCompact would give a high S, read in place: r and s fit in 32 bytes and are
 * below the order (otherwise the parsed signature is all zeros), and s is above half the order.
 */
function isStrictDerHighS(der: Uint8Array): boolean {
  const lenR = der[3];
  const startS = 6 + lenR;
  const lenS = der[5 + lenR];
  return compareInteger(der, 4, lenR, ORDER) < 0 && compareInteger(der, startS, lenS, ORDER) < 0 && compareInteger(der, startS, lenS, HALF_ORDER) > 0;
}

/** Compares the big-endian integer src[start..start+len) with the 32-byte `ref`: <0, 0, >0. */
function compareInteger(src: Uint8Array, start: number, len: number, ref: Uint8Array): number {
  while (len > 0 && src[start] === 0) {
    start++;
    len--;
  }
  if (len > 32) return 1;
  const pad = 32 - len;
  for (let i = 0; i < pad; i++) if (ref[i] !== 0) return -1;
  for (let i = 0; i < len; i++) {
    const d = src[start + i] - ref[pad + i];
    if (d !== 0) return d;
  }
  return 0;
}

function isHighS(compact: Uint8Array): boolean {
  return compare32(compact, 32, HALF_ORDER) > 0;
}

export function isCompressedPubKey(key: Uint8Array): boolean {
  return key.length === 33 && (key[0] === 0x02 || key[0] === 0x03);
}

export function isCompressedOrUncompressedPubKey(key: Uint8Array): boolean {
  if (key.length === 33) return key[0] === 0x02 || key[0] === 0x03;
  if (key.length === 65) return key[0] === 0x04;
  return false;
}

/**
 * Core's CPubKey::ValidSize: the length the header byte implies (hybrid 0x06/0x07 keys included,
 * which libsecp256k1 still parses; only STRICTENC excludes them).
 */
export function isPubKeySizeValid(key: Uint8Array): boolean {
  if (key.length === 0) return false;
  const h = key[0];
  if (h === 0x02 || h === 0x03) return key.length === 33;
  if (h === 0x04 || h === 0x06 || h === 0x07) return key.length === 65;
  return false;
}

/** Core's CheckPubKeyEncoding: null if the key's format is acceptable under `flags`. */
export function checkPubKeyEncoding(key: Uint8Array, flags: number, sigversion: SigVersion): ScriptError | null {
  if (flags & ScriptFlags.STRICTENC && !isCompressedOrUncompressedPubKey(key)) return 'PUBKEYTYPE';
  if (flags & ScriptFlags.WITNESS_PUBKEYTYPE && sigversion === SigVersion.WITNESS_V0 && !isCompressedPubKey(key)) {
    return 'WITNESS_PUBKEYTYPE';
  }
  return null;
}

/**
 * The compact low-S signature that Core's CPubKey::Verify hands to libsecp256k1 for a DER
 * signature (hash type already removed): lax DER parse, then S normalized. Written into `out`
 * (64 bytes) and returned; null only when even the lax parser rejects the encoding. Strict DER,
 * which every standard signature is, skips the general parser, and normalization is byte
 * arithmetic: this runs once per signature check.
 */
export function compactLowS(der: Uint8Array, out: Uint8Array = new Uint8Array(64)): Uint8Array | null {
  if (isStrictDer(der, der.length)) {
    strictDerToCompact(der, out);
  } else {
    const lax = parseDerLax(der);
    if (lax === null) return null;
    out.set(lax);
  }
  if (isHighS(out)) negateS(out);
  return out;
}

/** s := n - s in place (big-endian subtraction). */
function negateS(sig: Uint8Array): void {
  let borrow = 0;
  for (let i = 31; i >= 0; i--) {
    const d = ORDER[i] - sig[32 + i] - borrow;
    borrow = d < 0 ? 1 : 0;
    sig[32 + i] = d & 0xff;
  }
}
