import { hash } from 'node:crypto';
import { ripemd160 as nobleRipemd160, sha1 as nobleSha1 } from '@noble/hashes/legacy.js';

// SHA-256 runs in OpenSSL (node:crypto's one-shot hash, Node >= 20.12): it sits on every hot path
// (txids, merkle nodes, signature hashes). RIPEMD-160 and SHA-1 run in JavaScript: OpenSSL 3
// keeps them among its legacy algorithms, and looking them up takes a lock on every call, which
// serialized the script-check threads on each other (measured: two threads ran no faster than one).

export function sha256(data: Uint8Array): Uint8Array {
  const b = hash('sha256', data, 'buffer');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

export const sha1 = (data: Uint8Array): Uint8Array => nobleSha1(data);
export const ripemd160 = (data: Uint8Array): Uint8Array => nobleRipemd160(data);

/** Double SHA-256: txids, block hashes, merkle nodes, signature hashes. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

/** RIPEMD-160 of SHA-256: key and script hashes in P2PKH/P2SH/P2WPKH. */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}
