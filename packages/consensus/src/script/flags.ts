import { DecodeError } from '../encoding/errors.ts';

/**
 * Script verification flags, with Core's bit positions (SCRIPT_VERIFY_*), so masks logged or
 * exchanged with Core tooling mean the same thing. The taproot-era flags (bits 17..20) do not
 * exist here because this chain does not implement taproot.
 */
export const ScriptFlags = {
  NONE: 0,
  /** BIP16 pay-to-script-hash. */
  P2SH: 1 << 0,
  /** Signatures must be strict DER with a defined hash type; keys must be compressed or uncompressed. */
  STRICTENC: 1 << 1,
  /** BIP66 strict DER signatures. */
  DERSIG: 1 << 2,
  /** BIP146 low-S signatures. */
  LOW_S: 1 << 3,
  /** BIP147 CHECKMULTISIG dummy must be empty. */
  NULLDUMMY: 1 << 4,
  /** scriptSig must be push-only. */
  SIGPUSHONLY: 1 << 5,
  /** Pushes and numbers must use their shortest encoding. */
  MINIMALDATA: 1 << 6,
  /** OP_NOP1, OP_NOP4..OP_NOP10 fail instead of doing nothing. */
  DISCOURAGE_UPGRADABLE_NOPS: 1 << 7,
  /** Exactly one stack element must remain after evaluation. Requires WITNESS (and so P2SH). */
  CLEANSTACK: 1 << 8,
  /** BIP65 OP_CHECKLOCKTIMEVERIFY. */
  CHECKLOCKTIMEVERIFY: 1 << 9,
  /** BIP112 OP_CHECKSEQUENCEVERIFY. */
  CHECKSEQUENCEVERIFY: 1 << 10,
  /** BIP141 segregated witness. Requires P2SH. */
  WITNESS: 1 << 11,
  /** Witness programs of unknown version fail instead of passing as anyone-can-spend. */
  DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM: 1 << 12,
  /** Witness v0 OP_IF/OP_NOTIF arguments must be empty or exactly 0x01. */
  MINIMALIF: 1 << 13,
  /** BIP146 failed signature checks require empty signatures. */
  NULLFAIL: 1 << 14,
  /** Witness v0 signature checks require compressed keys. */
  WITNESS_PUBKEYTYPE: 1 << 15,
  /** OP_CODESEPARATOR and FindAndDelete matches are rejected in legacy scripts. */
  CONST_SCRIPTCODE: 1 << 16,
} as const;

export type ScriptFlagName = Exclude<keyof typeof ScriptFlags, 'NONE'>;

const FLAG_NAMES = (Object.keys(ScriptFlags) as (keyof typeof ScriptFlags)[]).filter((n): n is ScriptFlagName => n !== 'NONE');

export const ALL_SCRIPT_FLAGS = FLAG_NAMES.reduce((acc, n) => acc | ScriptFlags[n], 0);

/**
 * Consensus rules of this chain, all active from genesis: unlike Bitcoin there is no history of
 * blocks predating BIP16/65/66/112/141/147 that would need exemptions.
 */
export const MANDATORY_SCRIPT_VERIFY_FLAGS =
  ScriptFlags.P2SH |
  ScriptFlags.DERSIG |
  ScriptFlags.CHECKLOCKTIMEVERIFY |
  ScriptFlags.CHECKSEQUENCEVERIFY |
  ScriptFlags.WITNESS |
  ScriptFlags.NULLDUMMY;

/** Relay policy, as Core's STANDARD_SCRIPT_VERIFY_FLAGS minus the taproot-only flags. */
export const STANDARD_SCRIPT_VERIFY_FLAGS =
  MANDATORY_SCRIPT_VERIFY_FLAGS |
  ScriptFlags.STRICTENC |
  ScriptFlags.MINIMALDATA |
  ScriptFlags.DISCOURAGE_UPGRADABLE_NOPS |
  ScriptFlags.CLEANSTACK |
  ScriptFlags.MINIMALIF |
  ScriptFlags.NULLFAIL |
  ScriptFlags.LOW_S |
  ScriptFlags.DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM |
  ScriptFlags.WITNESS_PUBKEYTYPE |
  ScriptFlags.CONST_SCRIPTCODE;

/** Policy-only flags: a failure under these but not under the mandatory ones is non-standard, not invalid. */
export const STANDARD_NOT_MANDATORY_VERIFY_FLAGS = STANDARD_SCRIPT_VERIFY_FLAGS & ~MANDATORY_SCRIPT_VERIFY_FLAGS;

/**
 * Parses Core's comma-separated flag names ('P2SH,STRICTENC'); '' and 'NONE' mean no flags.
 * Unknown names (including Core's taproot flags) are a DecodeError rather than silently ignored,
 * so a caller never runs with weaker rules than it asked for.
 */
export function parseScriptFlags(text: string): number {
  let flags = 0;
  if (text === '' || text === 'NONE') return flags;
  for (const name of text.split(',')) {
    if (!(FLAG_NAMES as string[]).includes(name)) {
      throw new DecodeError('invalid', `unknown script verify flag: ${name}`);
    }
    flags |= ScriptFlags[name as ScriptFlagName];
  }
  return flags;
}

/** Comma-separated names of the set flags, in bit order ('' when none). */
export function formatScriptFlags(flags: number): string {
  return FLAG_NAMES.filter((n) => (flags & ScriptFlags[n]) !== 0).join(',');
}

/**
 * Core asserts these dependencies in VerifyScript: without them, enabling P2SH or WITNESS later
 * would not be a soft fork (CLEANSTACK would reject spends those rules accept).
 */
export function isValidFlagCombination(flags: number): boolean {
  if (flags & ScriptFlags.CLEANSTACK && !(flags & ScriptFlags.WITNESS)) return false;
  if (flags & ScriptFlags.WITNESS && !(flags & ScriptFlags.P2SH)) return false;
  return true;
}
