import { hash } from 'node:crypto';
import ripemd160Build from 'hash-wasm/dist/ripemd160.umd.min.js';
import sha1Build from 'hash-wasm/dist/sha1.umd.min.js';

// Signature checks hash many short messages (a 33-byte key, a ~180-byte BIP143 preimage, a 32-byte
// digest), where the cost is the call, not the compression. SHA-256 goes to OpenSSL's one-shot
// hash, which uses the CPU's SHA instructions: asked for a 'binary' (latin1) string it costs about half a
// microsecond for any of those sizes, while a Buffer result alone doubles that and a reused
// WebAssembly hasher needs as much per 64-byte block (measured). RIPEMD-160 and SHA-1 never go to
// OpenSSL: version 3 keeps them among its legacy algorithms behind a lock taken on every call,
// which serialized the script-check threads on each other (measured: two threads ran no faster
// than one). Each comes from its own build of hash-wasm: the package's main file holds every
// algorithm's WebAssembly as text, which Node's CommonJS lexer scanned at each start of each
// program and thread (0.1 s).
const wasmRipemd160 = await ripemd160Build.createRIPEMD160();
const wasmSha1 = await sha1Build.createSHA1();

/** Up to this size a message is copied to `staging` before it goes to WebAssembly. */
const SHORT_MESSAGE = 192;

/**
 * V8 keeps typed arrays of up to 64 bytes inside the JS heap, and the WebAssembly hasher reads
 * `.buffer`, which would move each of them out of the heap first (more costly than the hash
 * itself); this buffer was allocated outside it once.
 */
const staging = new Uint8Array(new ArrayBuffer(SHORT_MESSAGE));

/** A view of `staging` for each message length, made once instead of per hash. */
const stagingViews = Array.from({ length: SHORT_MESSAGE + 1 }, (_, n) => staging.subarray(0, n));

function staged(data: Uint8Array): Uint8Array {
  if (data.length > SHORT_MESSAGE) return data;
  staging.set(data);
  return stagingViews[data.length];
}

type WasmHasher = typeof wasmRipemd160;

function wasmHash(hasher: WasmHasher, data: Uint8Array): Uint8Array {
  hasher.init();
  hasher.update(staged(data));
  return hasher.digest('binary');
}

/** Writes the SHA-256 of `data` to out[offset..offset+32). */
function sha256Into(data: Uint8Array, out: Uint8Array, offset: number): void {
  const digest = hash('sha256', data, 'binary');
  for (let i = 0; i < 32; i++) out[offset + i] = digest.charCodeAt(i);
}

export function sha256(data: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  sha256Into(data, out, 0);
  return out;
}

/** The SHA-256 of `data` as lower-case hex, without a byte array in between. */
export function sha256Hex(data: Uint8Array): string {
  return hash('sha256', data, 'hex');
}

export const ripemd160 = (data: Uint8Array): Uint8Array => wasmHash(wasmRipemd160, data);
export const sha1 = (data: Uint8Array): Uint8Array => wasmHash(wasmSha1, data);

// The first digest of sha256d only lives until the second hash has read it.
const innerDigest = new Uint8Array(32);

/** Double SHA-256: txids, block hashes, merkle nodes, signature hashes. */
export function sha256d(data: Uint8Array): Uint8Array {
  sha256Into(data, innerDigest, 0);
  return sha256(innerDigest);
}

/** RIPEMD-160 of SHA-256: key and script hashes in P2PKH/P2SH/P2WPKH. */
export function hash160(data: Uint8Array): Uint8Array {
  sha256Into(data, innerDigest, 0);
  return ripemd160(innerDigest);
}
