/**
 * Signed messages in Bitcoin's format (Core's MessageSign/MessageVerify) with this chain's magic
 * string: the digest is SHA256d(varstr(magic) ‖ varstr(message)), the signature 65 bytes —
 * a header (27 + recovery id, + 4 for a compressed key) and r ‖ s — in base64. Verification
 * recovers the public key and compares its HASH160 with the address.
 */
import { Writer, ecdsaRecover, ecdsaSign, hash160, sha256d, bytesEqual } from '@cs/consensus';

const HEADER_BASE = 27;
const COMPRESSED_FLAG = 4;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function messageHash(magic: string, message: string): Uint8Array {
  return sha256d(new Writer(64 + message.length).varBytes(Buffer.from(magic)).varBytes(Buffer.from(message)).finish());
}

export function signMessage(privateKey: Uint8Array, compressed: boolean, magic: string, message: string): string {
  const { signature, recid } = ecdsaSign(messageHash(magic, message), privateKey);
  const out = new Uint8Array(65);
  out[0] = HEADER_BASE + recid + (compressed ? COMPRESSED_FLAG : 0);
  out.set(signature, 1);
  return Buffer.from(out).toString('base64');
}

/** Core's DecodeBase64 is strict; Node's decoder skips what it does not understand. */
export function decodeBase64Strict(text: string): Uint8Array | null {
  return BASE64.test(text) ? new Uint8Array(Buffer.from(text, 'base64')) : null;
}

/** The public key a signature recovers to (compressed or not, as its header says), or null. */
export function recoverMessageKey(signature: Uint8Array, magic: string, message: string): Uint8Array | null {
  if (signature.length !== 65) return null;
  const header = signature[0] - HEADER_BASE;
  if (header < 0 || header > 7) return null;
  return ecdsaRecover(signature.subarray(1), header & 3, messageHash(magic, message), (header & COMPRESSED_FLAG) !== 0);
}

/** Whether the signature was made by the key whose HASH160 is `keyHash`. */
export function verifyMessage(signature: Uint8Array, keyHash: Uint8Array, magic: string, message: string): boolean {
  const key = recoverMessageKey(signature, magic, message);
  return key !== null && bytesEqual(hash160(key), keyHash);
}
