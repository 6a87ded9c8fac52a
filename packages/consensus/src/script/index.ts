/**
 * Bitcoin script for this chain: Core-compatible parsing and asm, the legacy / P2SH / witness v0
 * interpreter with Core's ScriptError codes and verify flags, legacy and BIP143 signature hashes,
 * output templates and sigop counting. Taproot (witness v1) is not implemented: witness versions
 * 1..16 are anyone-can-spend under consensus and rejected by the standard policy flags
 * (DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM).
 */
export { Op, type OpName, opName, opcodeFromName, decodeOpN, encodeOpN } from './opcodes.ts';
export {
  MAX_SCRIPT_ELEMENT_SIZE,
  MAX_SCRIPT_SIZE,
  MAX_OPS_PER_SCRIPT,
  MAX_STACK_SIZE,
  MAX_PUBKEYS_PER_MULTISIG,
  ScriptReader,
  type ScriptOp,
  parseScript,
  serializeOps,
  ScriptNumError,
  decodeScriptNum,
  encodeScriptNum,
  checkMinimalPush,
  pushOpcodeFor,
  pushData,
  ScriptBuilder,
  findAndDelete,
} from './script.ts';
export { toAsm, fromAsm, parseShortScript } from './asm.ts';
export {
  ScriptFlags,
  type ScriptFlagName,
  ALL_SCRIPT_FLAGS,
  MANDATORY_SCRIPT_VERIFY_FLAGS,
  STANDARD_SCRIPT_VERIFY_FLAGS,
  STANDARD_NOT_MANDATORY_VERIFY_FLAGS,
  parseScriptFlags,
  formatScriptFlags,
  isValidFlagCombination,
} from './flags.ts';
export { SCRIPT_ERRORS, scriptErrorString, type ScriptError, type VerifyResult } from './errors.ts';
export {
  SIGHASH_ALL,
  SIGHASH_NONE,
  SIGHASH_SINGLE,
  SIGHASH_ANYONECANPAY,
  SigVersion,
  PrecomputedTxData,
  legacySignatureHash,
  witnessV0SignatureHash,
  signatureHash,
} from './sighash.ts';
export {
  isValidSignatureEncoding,
  isDefinedHashtypeSignature,
  checkSignatureEncoding,
  checkPubKeyEncoding,
  isCompressedPubKey,
  isCompressedOrUncompressedPubKey,
  isPubKeySizeValid,
  compactLowS,
} from './sigencoding.ts';
export {
  type SignatureChecker,
  NO_TX_CHECKER,
  TransactionSignatureChecker,
  LOCKTIME_THRESHOLD,
  SEQUENCE_LOCKTIME_DISABLE_FLAG,
  SEQUENCE_LOCKTIME_TYPE_FLAG,
  SEQUENCE_LOCKTIME_MASK,
} from './checker.ts';
export { castToBool, evalScript, verifyScript, verifyInput } from './interpreter.ts';
export {
  isPushOnly,
  isPayToScriptHash,
  type WitnessProgram,
  witnessProgram,
  isWitnessProgram,
  isUnspendable,
  type TxoutType,
  type Solution,
  solver,
  p2pkScript,
  p2pkhScript,
  p2shScript,
  p2wpkhScript,
  p2wshScript,
  witnessProgramScript,
  multisigScript,
  nullDataScript,
} from './standard.ts';
export {
  legacySigOpCount,
  scriptHashSigOpCount,
  countWitnessSigOps,
  getLegacySigOpCount,
  getP2SHSigOpCount,
  getTransactionSigOpCost,
} from './sigops.ts';
