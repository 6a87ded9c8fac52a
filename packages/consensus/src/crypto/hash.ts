import { hash } from 'node:crypto';
import { createRIPEMD160, createSHA1, createSHA256 } from 'hash-wasm';

// Signature checks hash many short messages (a 33-byte key, a ~180-byte BIP143 preimage, a 32-byte
// digest), where the cost is the call, not the compression: node:crypto's one-shot hash spends
// about a microsecond per call looking the algorithm up, while a reused WebAssembly hasher takes a
// third of that. Long messages (transactions, blocks) go to OpenSSL, which uses the CPU's SHA
// instructions and wins from a few hundred bytes on. RIPEMD-160 and SHA-1 never go to OpenSSL:
// version 3 keeps them among its legacy algorithms behind a lock taken on every call, which
// serialized the script-check threads on each other (measured: two threads ran no faster than one).
const wasmSha256 = await createSHA256();
const wasmRipemd160 = await createRIPEMD160();
const wasmSha1 = await createSHA1();

/** Up to this size a message hashes faster in WebAssembly than through node:crypto (measured). */
const SHORT_MESSAGE = 192;

/**
 * Short messages are copied here before hashing. V8 keeps typed arrays of up to 64 bytes inside
 * the JS heap, and the hasher reads `.buffer`, which would move each of them out of the heap
 * first (more costly than the hash itself); this buffer was allocated outside it once.
 */
const staging = new Uint8Array(new ArrayBuffer(SHORT_MESSAGE));

function staged(data: Uint8Array): Uint8Array {
  if (data.length > SHORT_MESSAGE) return data;
  staging.set(data);
  return staging.subarray(0, data.length);
}

type WasmHasher = typeof wasmSha256;

function wasmHash(hasher: WasmHasher, data: Uint8Array): Uint8Array {
  hasher.init();
  hasher.update(staged(data));
  return hasher.digest('binary');
}

export function sha256(data: Uint8Array): Uint8Array {
  if (data.length <= SHORT_MESSAGE) return wasmHash(wasmSha256, data);
  const b = hash('sha256', data, 'buffer');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

export const ripemd160 = (data: Uint8Array): Uint8Array => wasmHash(wasmRipemd160, data);
export const sha1 = (data: Uint8Array): Uint8Array => wasmHash(wasmSha1, data);

/** Double SHA-256: txids, block hashes, merkle nodes, signature hashes. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

/** RIPEMD-160 of SHA-256: key and script hashes in P2PKH/P2SH/P2WPKH. */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}
