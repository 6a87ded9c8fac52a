/**
 * BIP32 hierarchical deterministic keys: the master key from a seed, private and public child
 * derivation, fingerprints and key paths. libsecp256k1 does the curve arithmetic (through
 * @cs/consensus); HMAC-SHA512 comes from node:crypto.
 */
import { createHmac } from 'node:crypto';
import { hash160, privateKeyTweakAdd, publicKeyCreate, publicKeyTweakAdd } from '@cs/consensus';

/** Indexes from 2^31 on are hardened: derivable only from the parent's private key. */
export const HARDENED = 0x80000000;

const MASTER_HMAC_KEY = Buffer.from('Bitcoin seed');

function hmacSha512(key: Uint8Array, data: Uint8Array): { left: Uint8Array; right: Uint8Array } {
  const out = createHmac('sha512', key).update(data).digest();
  return { left: new Uint8Array(out.subarray(0, 32)), right: new Uint8Array(out.subarray(32)) };
}

function ser32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
}

/** BIP32 refuses such an index (probability below 2^-127); callers skip to the next one. */
export class InvalidChildError extends Error {
  override readonly name = 'InvalidChildError';
}

/** An extended key: a key with its chain code and its place in the tree. Private when `privateKey` is set. */
export class ExtendedKey {
  private constructor(
    readonly publicKey: Uint8Array,
    readonly chainCode: Uint8Array,
    readonly privateKey: Uint8Array | null,
    readonly depth: number,
    readonly parentFingerprint: number,
    readonly index: number,
  ) {}

  /** BIP32's master key: HMAC-SHA512("Bitcoin seed", seed). */
  static fromSeed(seed: Uint8Array): ExtendedKey {
    const { left, right } = hmacSha512(MASTER_HMAC_KEY, seed);
    // A left half of zero or above the order makes the seed unusable; BIP32 says to pick another.
    const pub = safePublicKey(left);
    if (!pub) throw new InvalidChildError('the seed gives an invalid master key');
    return new ExtendedKey(pub, right, left, 0, 0, 0);
  }

  /** A public extended key as stored (the wallet keeps account xpubs in the clear). */
  static fromPublic(publicKey: Uint8Array, chainCode: Uint8Array, depth: number, parentFingerprint: number, index: number): ExtendedKey {
    return new ExtendedKey(publicKey, chainCode, null, depth, parentFingerprint, index);
  }

  /** First four bytes of HASH160 of the public key, as a big-endian number. */
  get fingerprint(): number {
    return Buffer.from(hash160(this.publicKey)).readUInt32BE(0);
  }

  /** CKDpriv, or CKDpub when this key is public (which cannot derive hardened children). */
  derive(index: number): ExtendedKey {
    const hardened = index >= HARDENED;
    let data: Uint8Array;
    if (hardened) {
      if (!this.privateKey) throw new Error('a hardened child needs the private parent key');
      data = Buffer.concat([Buffer.of(0), this.privateKey, ser32(index)]);
    } else {
      data = Buffer.concat([this.publicKey, ser32(index)]);
    }
    const { left, right } = hmacSha512(this.chainCode, data);
    if (this.privateKey) {
      const child = privateKeyTweakAdd(this.privateKey, left);
      if (!child) throw new InvalidChildError(`child ${index} is invalid`);
      return new ExtendedKey(publicKeyCreate(child, true), right, child, this.depth + 1, this.fingerprint, index);
    }
    const child = publicKeyTweakAdd(this.publicKey, left, true);
    if (!child) throw new InvalidChildError(`child ${index} is invalid`);
    return new ExtendedKey(child, right, null, this.depth + 1, this.fingerprint, index);
  }

  derivePath(path: readonly number[]): ExtendedKey {
    let key: ExtendedKey = this;
    for (const index of path) key = key.derive(index);
    return key;
  }

  /** Overwrites the private key in memory (best effort: JavaScript may hold copies elsewhere). */
  wipe(): void {
    this.privateKey?.fill(0);
  }
}

function safePublicKey(privateKey: Uint8Array): Uint8Array | null {
  try {
    return publicKeyCreate(privateKey, true);
  } catch {
    return null;
  }
}

/** "m/84'/1'/0'/0/5": hardened steps marked with an apostrophe, as Core's getaddressinfo writes them. */
export function formatPath(path: readonly number[]): string {
  return ['m', ...path.map((i) => (i >= HARDENED ? `${i - HARDENED}'` : String(i)))].join('/');
}

/** A four-byte fingerprint as 8 hex digits (hdmasterfingerprint). */
export function fingerprintHex(fingerprint: number): string {
  return fingerprint.toString(16).padStart(8, '0');
}
