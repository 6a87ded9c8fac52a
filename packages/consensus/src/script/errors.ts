/**
 * Script failure codes, spelled as Bitcoin Core's ScriptError names without the SCRIPT_ERR_ prefix
 * (SIG_NULLFAIL is 'NULLFAIL', as in Core's script_tests.json), so test vectors compare verbatim.
 * Only the codes reachable by the legacy and witness v0 interpreter exist here.
 */
export const SCRIPT_ERRORS = [
  'UNKNOWN_ERROR',
  'EVAL_FALSE',
  'OP_RETURN',
  'SCRIPTNUM',
  // Max sizes
  'SCRIPT_SIZE',
  'PUSH_SIZE',
  'OP_COUNT',
  'STACK_SIZE',
  'SIG_COUNT',
  'PUBKEY_COUNT',
  // Failed verify operations
  'VERIFY',
  'EQUALVERIFY',
  'CHECKMULTISIGVERIFY',
  'CHECKSIGVERIFY',
  'NUMEQUALVERIFY',
  // Logical/format/canonical errors
  'BAD_OPCODE',
  'DISABLED_OPCODE',
  'INVALID_STACK_OPERATION',
  'INVALID_ALTSTACK_OPERATION',
  'UNBALANCED_CONDITIONAL',
  // CHECKLOCKTIMEVERIFY and CHECKSEQUENCEVERIFY
  'NEGATIVE_LOCKTIME',
  'UNSATISFIED_LOCKTIME',
  // Malleability
  'SIG_HASHTYPE',
  'SIG_DER',
  'MINIMALDATA',
  'SIG_PUSHONLY',
  'SIG_HIGH_S',
  'SIG_NULLDUMMY',
  'PUBKEYTYPE',
  'CLEANSTACK',
  'MINIMALIF',
  'NULLFAIL',
  // Soft-fork safeness
  'DISCOURAGE_UPGRADABLE_NOPS',
  'DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM',
  // Segregated witness
  'WITNESS_PROGRAM_WRONG_LENGTH',
  'WITNESS_PROGRAM_WITNESS_EMPTY',
  'WITNESS_PROGRAM_MISMATCH',
  'WITNESS_MALLEATED',
  'WITNESS_MALLEATED_P2SH',
  'WITNESS_UNEXPECTED',
  'WITNESS_PUBKEYTYPE',
  // Constant scriptCode
  'OP_CODESEPARATOR',
  'SIG_FINDANDDELETE',
] as const;

export type ScriptError = (typeof SCRIPT_ERRORS)[number];

/** Outcome of a script verification; `error` names the first rule that failed. */
export type VerifyResult = { readonly ok: true } | { readonly ok: false; readonly error: ScriptError };

/** Shared success value: verification runs per input on hot paths, so it allocates nothing. */
export const VERIFY_OK: VerifyResult = Object.freeze({ ok: true });

export function verifyFailure(error: ScriptError): VerifyResult {
  return { ok: false, error };
}

/** Bitcoin Core's ScriptErrorString texts: reject reasons carry them, e.g. "mandatory-script-verify-flag-failed (<text>)". */
const SCRIPT_ERROR_TEXT: Readonly<Record<ScriptError, string>> = {
  UNKNOWN_ERROR: 'unknown error',
  EVAL_FALSE: 'Script evaluated without error but finished with a false/empty top stack element',
  OP_RETURN: 'OP_RETURN was encountered',
  SCRIPTNUM: 'Script number overflowed or is non-minimally encoded',
  SCRIPT_SIZE: 'Script is too big',
  PUSH_SIZE: 'Push value size limit exceeded',
  OP_COUNT: 'Operation limit exceeded',
  STACK_SIZE: 'Stack size limit exceeded',
  SIG_COUNT: 'Signature count negative or greater than pubkey count',
  PUBKEY_COUNT: 'Pubkey count negative or limit exceeded',
  VERIFY: 'Script failed an OP_VERIFY operation',
  EQUALVERIFY: 'Script failed an OP_EQUALVERIFY operation',
  CHECKMULTISIGVERIFY: 'Script failed an OP_CHECKMULTISIGVERIFY operation',
  CHECKSIGVERIFY: 'Script failed an OP_CHECKSIGVERIFY operation',
  NUMEQUALVERIFY: 'Script failed an OP_NUMEQUALVERIFY operation',
  BAD_OPCODE: 'Opcode missing or not understood',
  DISABLED_OPCODE: 'Attempted to use a disabled opcode',
  INVALID_STACK_OPERATION: 'Operation not valid with the current stack size',
  INVALID_ALTSTACK_OPERATION: 'Operation not valid with the current altstack size',
  UNBALANCED_CONDITIONAL: 'Invalid OP_IF construction',
  NEGATIVE_LOCKTIME: 'Negative locktime',
  UNSATISFIED_LOCKTIME: 'Locktime requirement not satisfied',
  SIG_HASHTYPE: 'Signature hash type missing or not understood',
  SIG_DER: 'Non-canonical DER signature',
  MINIMALDATA: 'Data push larger than necessary',
  SIG_PUSHONLY: 'Only push operators allowed in signatures',
  SIG_HIGH_S: 'Non-canonical signature: S value is unnecessarily high',
  SIG_NULLDUMMY: 'Dummy CHECKMULTISIG argument must be zero',
  PUBKEYTYPE: 'Public key is neither compressed or uncompressed',
  CLEANSTACK: 'Stack size must be exactly one after execution',
  MINIMALIF: 'OP_IF/NOTIF argument must be minimal',
  NULLFAIL: 'Signature must be zero for failed CHECK(MULTI)SIG operation',
  DISCOURAGE_UPGRADABLE_NOPS: 'NOPx reserved for soft-fork upgrades',
  DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: 'Witness version reserved for soft-fork upgrades',
  WITNESS_PROGRAM_WRONG_LENGTH: 'Witness program has incorrect length',
  WITNESS_PROGRAM_WITNESS_EMPTY: 'Witness program was passed an empty witness',
  WITNESS_PROGRAM_MISMATCH: 'Witness program hash mismatch',
  WITNESS_MALLEATED: 'Witness requires empty scriptSig',
  WITNESS_MALLEATED_P2SH: 'Witness requires only-redeemscript scriptSig',
  WITNESS_UNEXPECTED: 'Witness provided for non-witness script',
  WITNESS_PUBKEYTYPE: 'Using non-compressed keys in segwit',
  OP_CODESEPARATOR: 'Using OP_CODESEPARATOR in non-witness script',
  SIG_FINDANDDELETE: 'Signature is found in scriptCode',
};

export function scriptErrorString(e: ScriptError): string {
  return SCRIPT_ERROR_TEXT[e];
}
