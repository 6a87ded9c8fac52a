import { ecdsaVerify } from '../crypto/secp256k1.ts';
import type { TxData } from '../primitives/tx.ts';
import { compactLowS, isPubKeySizeValid } from './sigencoding.ts';
import { type PrecomputedTxData, type SigVersion, signatureHash } from './sighash.ts';

/**
 * What the interpreter needs to know about the spending transaction (Core's
 * BaseSignatureChecker). The interpreter never touches the transaction directly, so a caller can
 * evaluate scripts without one, or wrap a checker to add a signature cache or defer checks.
 */
export interface SignatureChecker {
  /** `sig` is the script signature including its trailing hash-type byte. */
  checkEcdsaSignature(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sigversion: SigVersion): boolean;
  /** BIP65: `lockTime` is the non-negative operand of OP_CHECKLOCKTIMEVERIFY (up to 2^39-1). */
  checkLockTime(lockTime: number): boolean;
  /** BIP112: `sequence` is the non-negative operand of OP_CHECKSEQUENCEVERIFY (disable bit clear). */
  checkSequence(sequence: number): boolean;
}

/** A checker for evaluation without a transaction: every signature and lock-time check fails. */
export const NO_TX_CHECKER: SignatureChecker = Object.freeze({
  checkEcdsaSignature: () => false,
  checkLockTime: () => false,
  checkSequence: () => false,
});

export const LOCKTIME_THRESHOLD = 500_000_000;
export const SEQUENCE_LOCKTIME_DISABLE_FLAG = 0x80000000;
export const SEQUENCE_LOCKTIME_TYPE_FLAG = 1 << 22;
export const SEQUENCE_LOCKTIME_MASK = 0x0000ffff;

// The compact form only lives for the duration of one synchronous native call.
const compactScratch = new Uint8Array(64);
/**
 * The sighash is copied here for the native call: a fresh 32-byte digest lives inside the V8 heap,
 * and handing it to native code would first move it out (several times the cost of this copy).
 */
const messageScratch = new Uint8Array(new ArrayBuffer(128), 0, 32);

/**
 * Core's TransactionSignatureChecker for input `inputIndex` of `tx`, spending an output worth
 * `amount`. Signature verification itself goes through `verifyEcdsa`, the override point for a
 * signature cache (key: sighash, signature, pubkey) or for collecting checks to run in parallel.
 */
export class TransactionSignatureChecker implements SignatureChecker {
  constructor(
    readonly tx: TxData,
    readonly inputIndex: number,
    readonly amount: bigint,
    readonly txdata?: PrecomputedTxData,
  ) {}

  checkEcdsaSignature(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sigversion: SigVersion): boolean {
    if (!isPubKeySizeValid(pubkey)) return false;
    if (sig.length === 0) return false;
    const hashType = sig[sig.length - 1];
    const sighash = signatureHash(scriptCode, this.tx, this.inputIndex, hashType, this.amount, sigversion, this.txdata);
    return this.verifyEcdsa(sig.subarray(0, sig.length - 1), pubkey, sighash);
  }

  /**
   * Verifies a DER signature (hash type removed) of `sighash`, accepting the lax DER and high-S
   * forms that consensus allows, as Core's CPubKey::Verify does.
   */
  verifyEcdsa(der: Uint8Array, pubkey: Uint8Array, sighash: Uint8Array): boolean {
    const sig = compactLowS(der, compactScratch);
    if (sig === null) return false;
    messageScratch.set(sighash);
    return ecdsaVerify(sig, messageScratch, pubkey);
  }

  checkLockTime(lockTime: number): boolean {
    const txLockTime = this.tx.locktime;
    // Heights and timestamps are not comparable: the operand must be of the same kind.
    if (txLockTime < LOCKTIME_THRESHOLD !== lockTime < LOCKTIME_THRESHOLD) return false;
    if (lockTime > txLockTime) return false;
    // A final input would let the transaction ignore its nLockTime altogether (IsFinalTx).
    return this.tx.inputs[this.inputIndex].sequence !== 0xffffffff;
  }

  checkSequence(sequence: number): boolean {
    const txSequence = this.tx.inputs[this.inputIndex].sequence;
    // BIP68 relative lock times only exist from version 2 on (version compared unsigned, as Core does).
    if (this.tx.version >>> 0 < 2) return false;
    if (txSequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) return false;
    const mask = SEQUENCE_LOCKTIME_TYPE_FLAG | SEQUENCE_LOCKTIME_MASK;
    // `sequence` may exceed 32 bits; the mask only keeps low bits, which `&` reads correctly.
    const txMasked = txSequence & mask;
    const masked = sequence & mask;
    if (txMasked < SEQUENCE_LOCKTIME_TYPE_FLAG !== masked < SEQUENCE_LOCKTIME_TYPE_FLAG) return false;
    return masked <= txMasked;
  }
}
