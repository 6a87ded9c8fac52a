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
