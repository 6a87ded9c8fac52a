/**
 * Encryption of the wallet's secrets at rest, as Core's CCrypter/CMasterKey arrangement: a random
 * 32-byte master key encrypts every secret (HD seed, imported private keys); the passphrase only
 * encrypts the master key. Changing the passphrase re-encrypts one record, and a wrong passphrase
 * is detected by the master key's authentication tag.
 *
 * Core uses SHA-512 iterations and AES-256-CBC; we use scrypt, which is memory-hard (a guessing
 * rig pays in memory per attempt, not only in hashing), and AES-256-GCM, which authenticates:
 * a tampered or misplaced ciphertext fails to open instead of decrypting to garbage.
 */
import { createCipheriv, createDecipheriv, randomBytes, scrypt } from 'node:crypto';

/** scrypt parameters, stored with the master key so that later versions can raise them. */
export interface KdfParams {
  readonly salt: Uint8Array;
  /** CPU/memory cost (a power of two): memory is 128 × N × r bytes, 32 MiB with the defaults. */
  readonly n: number;
  readonly r: number;
  readonly p: number;
}

/** A ciphertext with its nonce; `data` ends with the 16-byte GCM tag. */
export interface SealedBox {
  readonly nonce: Uint8Array;
  readonly data: Uint8Array;
}

/** The master key as stored: encrypted under the passphrase's derived key. */
export interface MasterKeyRecord {
  readonly kdf: KdfParams;
  readonly box: SealedBox;
}

/** About 0.1 s and 32 MiB per guess on a current CPU: Core aims at 0.1 s too. */
const DEFAULT_KDF = { n: 1 << 15, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const SALT_BYTES = 16;
/** Binds the master key's ciphertext to its role, so it cannot be swapped with a secret's. */
const MASTER_KEY_AAD = Buffer.from('cs-wallet master key');

function deriveKey(passphrase: string, kdf: KdfParams): Promise<Uint8Array> {
  // Node's default maxmem is exactly 32 MiB, which scrypt's working set slightly exceeds.
  const maxmem = 256 * kdf.n * kdf.r;
  return new Promise((resolve, reject) => {
    scrypt(passphrase.normalize('NFC'), kdf.salt, KEY_BYTES, { N: kdf.n, r: kdf.r, p: kdf.p, maxmem }, (err, key) =>
      err ? reject(err) : resolve(new Uint8Array(key)),
    );
  });
}

/** AES-256-GCM with a fresh random nonce; `aad` names what the plaintext is (it is authenticated, not stored). */
export function seal(key: Uint8Array, plaintext: Uint8Array, aad: Uint8Array): SealedBox {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  cipher.setAAD(aad);
  const data = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return { nonce: new Uint8Array(nonce), data: new Uint8Array(data) };
}

/** The plaintext, or null when the key, the aad or the ciphertext is not the one sealed. */
export function open(key: Uint8Array, box: SealedBox, aad: Uint8Array): Uint8Array | null {
  if (box.data.length < TAG_BYTES || box.nonce.length !== NONCE_BYTES) return null;
  const decipher = createDecipheriv('aes-256-gcm', key, box.nonce);
  decipher.setAAD(aad);
  decipher.setAuthTag(box.data.subarray(box.data.length - TAG_BYTES));
  try {
    return new Uint8Array(Buffer.concat([decipher.update(box.data.subarray(0, box.data.length - TAG_BYTES)), decipher.final()]));
  } catch {
    return null;
  }
}

/** A new random master key and its record under `passphrase`. */
export async function createMasterKey(passphrase: string): Promise<{ masterKey: Uint8Array; record: MasterKeyRecord }> {
  const masterKey = new Uint8Array(randomBytes(KEY_BYTES));
  const record = await encryptMasterKey(masterKey, passphrase);
  return { masterKey, record };
}

/** The record of an existing master key under a (new) passphrase, with a fresh salt. */
export async function encryptMasterKey(masterKey: Uint8Array, passphrase: string): Promise<MasterKeyRecord> {
  const kdf: KdfParams = { salt: new Uint8Array(randomBytes(SALT_BYTES)), ...DEFAULT_KDF };
  const derived = await deriveKey(passphrase, kdf);
  try {
    return { kdf, box: seal(derived, masterKey, MASTER_KEY_AAD) };
  } finally {
    derived.fill(0);
  }
}

/** The master key, or null for a wrong passphrase. */
export async function decryptMasterKey(record: MasterKeyRecord, passphrase: string): Promise<Uint8Array | null> {
  const derived = await deriveKey(passphrase, record.kdf);
  try {
    return open(derived, record.box, MASTER_KEY_AAD);
  } finally {
    derived.fill(0);
  }
}
