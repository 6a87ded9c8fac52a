import { createRequire } from 'node:module';
import { dirname } from 'node:path';

/**
 * libsecp256k1 through the `secp256k1` package's native binding (prebuilt for linux-x64).
 * We assemble what `secp256k1/bindings` does (the addon, wrapped by the package's argument
 * checks) rather than load the package root, so that a missing native build is a start-up error
 * instead of a silent fallback to the package's pure-JS curve. Verification calls the addon
 * itself: once per signature check, the wrapper's checks cost about 0.15 µs, and ecdsaVerify below
 * makes the only ones that matter.
 */
interface NativeSecp256k1 {
  privateKeyVerify(key: Uint8Array): boolean;
  privateKeyTweakAdd(key: Uint8Array, tweak: Uint8Array): Uint8Array;
  publicKeyVerify(key: Uint8Array): boolean;
  publicKeyCreate(key: Uint8Array, compressed?: boolean): Uint8Array;
  publicKeyConvert(key: Uint8Array, compressed?: boolean): Uint8Array;
  publicKeyTweakAdd(key: Uint8Array, tweak: Uint8Array, compressed?: boolean): Uint8Array;
  signatureNormalize(sig: Uint8Array): Uint8Array;
  signatureExport(sig: Uint8Array): Uint8Array;
  ecdsaSign(msg32: Uint8Array, key: Uint8Array, options?: { data?: Uint8Array }): { signature: Uint8Array; recid: number };
  ecdsaVerify(sig: Uint8Array, msg32: Uint8Array, key: Uint8Array): boolean;
  ecdsaRecover(sig: Uint8Array, recid: number, msg32: Uint8Array, compressed?: boolean): Uint8Array;
}

/** The addon's own ecdsaVerify: 0 verified, 1 unparsable signature, 2 unparsable key, 3 wrong signature. */
interface Secp256k1Addon {
  ecdsaVerify(sig64: Uint8Array, msg32: Uint8Array, pubkey: Uint8Array): number;
}

const packageJson = createRequire(import.meta.url).resolve('secp256k1/package.json');
const packageRequire = createRequire(packageJson);
const { Secp256k1 } = packageRequire('node-gyp-build')(dirname(packageJson)) as { Secp256k1: new () => Secp256k1Addon };
const addon = new Secp256k1();
const native = packageRequire('./lib/index.js')(addon) as NativeSecp256k1;

/** The curve order n; signatures with s > n/2 are "high-S" (BIP62/BIP146). */
export const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const HALF_ORDER = CURVE_ORDER >> 1n;

/**
 * Verifies a 64-byte compact (r||s) signature. libsecp256k1 only accepts low-S signatures, so
 * callers that allow high-S must normalize first (Core does the same). Unparseable keys or
 * signatures are a plain false.
 */
export function ecdsaVerify(sig64: Uint8Array, msg32: Uint8Array, pubkey: Uint8Array): boolean {
  // The addon throws for other signature and message sizes, and reads the key with its length.
  if (sig64.length !== 64 || msg32.length !== 32 || (pubkey.length !== 33 && pubkey.length !== 65)) return false;
  return addon.ecdsaVerify(sig64, msg32, pubkey) === 0;
}

/** Returns a low-S copy of a compact signature (r or s out of range gives an unverifiable all-zero signature). */
export function normalizeSignature(sig64: Uint8Array): Uint8Array {
  const copy = sig64.slice();
  try {
    return native.signatureNormalize(copy);
  } catch {
    return new Uint8Array(64);
  }
}

export function isLowS(sig64: Uint8Array): boolean {
  let s = 0n;
  for (let i = 32; i < 64; i++) s = (s << 8n) | BigInt(sig64[i]);
  return s <= HALF_ORDER;
}

/** Deterministic (RFC 6979) low-S signature. */
export function ecdsaSign(msg32: Uint8Array, privkey: Uint8Array): { signature: Uint8Array; recid: number } {
  return native.ecdsaSign(msg32, privkey);
}

/**
 * Deterministic low-S signature whose r has its top bit clear, as Core's CKey::Sign grinds it: try
 * plain RFC 6979, then RFC 6979 with extra entropy holding a little-endian counter 1, 2, ... until
 * r < 2^255. Such an r needs no DER sign byte, so the DER signature is at most 70 bytes, which
 * lets wallets size fees for 71-byte signatures instead of 72. About two tries on average.
 */
export function ecdsaSignLowR(msg32: Uint8Array, privkey: Uint8Array): Uint8Array {
  let { signature } = native.ecdsaSign(msg32, privkey);
  const entropy = new Uint8Array(32);
  const view = new DataView(entropy.buffer);
  for (let counter = 1; signature[0] >= 0x80; counter++) {
    view.setUint32(0, counter, true);
    signature = native.ecdsaSign(msg32, privkey, { data: entropy }).signature;
  }
  return signature;
}

export function ecdsaRecover(sig64: Uint8Array, recid: number, msg32: Uint8Array, compressed: boolean): Uint8Array | null {
  try {
    return native.ecdsaRecover(sig64, recid, msg32, compressed);
  } catch {
    return null;
  }
}

/** Strict DER encoding of a compact signature. */
export function signatureToDER(sig64: Uint8Array): Uint8Array {
  return native.signatureExport(sig64);
}

export function isValidPrivateKey(key: Uint8Array): boolean {
  return key.length === 32 && native.privateKeyVerify(key);
}

export function isValidPublicKey(key: Uint8Array): boolean {
  if (key.length !== 33 && key.length !== 65) return false;
  try {
    return native.publicKeyVerify(key);
  } catch {
    return false;
  }
}

export function publicKeyCreate(privkey: Uint8Array, compressed = true): Uint8Array {
  return native.publicKeyCreate(privkey, compressed);
}

export function publicKeyConvert(pubkey: Uint8Array, compressed: boolean): Uint8Array {
  return native.publicKeyConvert(pubkey, compressed);
}

/**
 * (privkey + tweak) mod n, the BIP32 private child step. Null when the tweak is not below the
 * curve order or the sum is zero: BIP32 then moves on to the next index. The binding adds in
 * place, so it is handed a copy.
 */
export function privateKeyTweakAdd(privkey: Uint8Array, tweak: Uint8Array): Uint8Array | null {
  try {
    return native.privateKeyTweakAdd(privkey.slice(), tweak);
  } catch {
    return null;
  }
}

/** pubkey + tweak·G, the BIP32 public child step; null in the same cases as privateKeyTweakAdd or for an unparsable key. */
export function publicKeyTweakAdd(pubkey: Uint8Array, tweak: Uint8Array, compressed = true): Uint8Array | null {
  try {
    return native.publicKeyTweakAdd(pubkey, tweak, compressed);
  } catch {
    return null;
  }
}

/**
 * Core's ecdsa_signature_parse_der_lax: accepts the BER-ish encodings that pre-BIP66 signatures
 * used (long lengths, excess padding). Returns null only for garbage; an r or s that overflows
 * the order yields an all-zero signature, which never verifies.
 */
export function parseDerLax(der: Uint8Array): Uint8Array | null {
  let pos = 0;
  const len = der.length;
  if (pos === len || der[pos] !== 0x30) return null;
  pos++;
  // Sequence length (ignored beyond skipping its encoding).
  if (pos === len) return null;
  let lenbyte = der[pos++];
  if (lenbyte & 0x80) {
    lenbyte -= 0x80;
    if (lenbyte > len - pos) return null;
    pos += lenbyte;
  }
  const readInt = (): Uint8Array | null => {
    if (pos === len || der[pos] !== 0x02) return null;
    pos++;
    if (pos === len) return null;
    let l = der[pos++];
    if (l & 0x80) {
      let n = l - 0x80;
      if (n > len - pos) return null;
      while (n > 0 && der[pos] === 0) {
        pos++;
        n--;
      }
      if (n >= 4) return null; // lengths over 2^24 cannot fit
      l = 0;
      while (n > 0) {
        l = (l << 8) + der[pos++];
        n--;
      }
    }
    if (l > len - pos) return null;
    const v = der.subarray(pos, pos + l);
    pos += l;
    return v;
  };
  let r = readInt();
  if (r === null) return null;
  let s = readInt();
  if (s === null) return null;
  const out = new Uint8Array(64);
  const place = (v: Uint8Array, off: number): boolean => {
    let i = 0;
    while (i < v.length && v[i] === 0) i++;
    const body = v.subarray(i);
    if (body.length > 32) return false;
    out.set(body, off + 32 - body.length);
    return true;
  };
  if (!place(r, 0) || !place(s, 32)) return new Uint8Array(64);
  r = out.subarray(0, 32);
  s = out.subarray(32);
  if (!inRange(r) || !inRange(s)) return new Uint8Array(64);
  return out;
}

function inRange(v: Uint8Array): boolean {
  let x = 0n;
  for (const b of v) x = (x << 8n) | BigInt(b);
  return x < CURVE_ORDER;
}
