import { hash } from 'node:crypto';

// node:crypto runs OpenSSL's native code: these hashes sit on the hot paths (txid, sighash, merkle).
// The one-shot crypto.hash (Node >= 20.12) avoids a Hash object per call, which dominated the cost
// of signature hashing besides the ECDSA verify itself.

function digest(alg: string, data: Uint8Array): Uint8Array {
  const b = hash(alg, data, 'buffer');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

export const sha256 = (data: Uint8Array): Uint8Array => digest('sha256', data);
export const sha1 = (data: Uint8Array): Uint8Array => digest('sha1', data);
export const ripemd160 = (data: Uint8Array): Uint8Array => digest('ripemd160', data);

/** Double SHA-256: txids, block hashes, merkle nodes, signature hashes. */
export function sha256d(data: Uint8Array): Uint8Array {
  return sha256(sha256(data));
}

/** RIPEMD-160 of SHA-256: key and script hashes in P2PKH/P2SH/P2WPKH. */
export function hash160(data: Uint8Array): Uint8Array {
  return ripemd160(sha256(data));
}
