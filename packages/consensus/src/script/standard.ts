import { Op, decodeOpN, encodeOpN } from './opcodes.ts';
import {
  MAX_PUBKEYS_PER_MULTISIG,
  MAX_SCRIPT_SIZE,
  ScriptBuilder,
  ScriptNumError,
  ScriptReader,
  checkMinimalPush,
  decodeScriptNum,
} from './script.ts';
import { isPubKeySizeValid } from './sigencoding.ts';

/** Core's IsPushOnly: only push opcodes (OP_RESERVED counts, as in Core) and no truncated push. */
export function isPushOnly(script: Uint8Array, start = 0): boolean {
  const r = new ScriptReader(script, start);
  while (r.pos < script.length) {
    if (!r.next()) return false;
    if (r.opcode > Op.OP_16) return false;
  }
  return true;
}

/** OP_HASH160 <20 bytes> OP_EQUAL (BIP16). */
export function isPayToScriptHash(script: Uint8Array): boolean {
  return script.length === 23 && script[0] === Op.OP_HASH160 && script[1] === 20 && script[22] === Op.OP_EQUAL;
}

export interface WitnessProgram {
  /** 0..16 */
  readonly version: number;
  /** 2..40 bytes, a view into the script. */
  readonly program: Uint8Array;
}

/** Core's IsWitnessProgram: a version opcode (OP_0, OP_1..OP_16) and one 2..40-byte direct push, nothing else. */
export function witnessProgram(script: Uint8Array): WitnessProgram | null {
  return isWitnessProgram(script) ? { version: decodeOpN(script[0]), program: script.subarray(2) } : null;
}

/** Core's IsWitnessProgram test alone: the version is decodeOpN(script[0]), the program script[2..]. */
export function isWitnessProgram(script: Uint8Array): boolean {
  const len = script.length;
  if (len < 4 || len > 42) return false;
  const v = script[0];
  if (v !== Op.OP_0 && (v < Op.OP_1 || v > Op.OP_16)) return false;
  return script[1] + 2 === len;
}

/** Core's IsUnspendable: OP_RETURN outputs and oversized scripts can never be spent. */
export function isUnspendable(script: Uint8Array): boolean {
  return (script.length > 0 && script[0] === Op.OP_RETURN) || script.length > MAX_SCRIPT_SIZE;
}

/** Output script types, named as Core prints them (GetTxnOutputType). */
export type TxoutType =
  | 'nonstandard'
  | 'pubkey'
  | 'pubkeyhash'
  | 'scripthash'
  | 'multisig'
  | 'nulldata'
  | 'witness_v0_keyhash'
  | 'witness_v0_scripthash'
  | 'witness_unknown';

export interface Solution {
  readonly type: TxoutType;
  /**
   * As Core's Solver: pubkey → [key]; pubkeyhash, scripthash, witness v0 → [hash];
   * multisig → [[m], key..., [n]]; witness_unknown → [[version], program]; otherwise [].
   */
  readonly solutions: Uint8Array[];
}

/**
 * Core's Solver. Witness programs of version 1 and up (taproot included) are 'witness_unknown'
 * here, since this chain gives them no meaning.
 */
export function solver(script: Uint8Array): Solution {
  if (isPayToScriptHash(script)) return { type: 'scripthash', solutions: [script.slice(2, 22)] };

  const wp = witnessProgram(script);
  if (wp !== null) {
    if (wp.version === 0 && wp.program.length === 20) return { type: 'witness_v0_keyhash', solutions: [wp.program.slice()] };
    if (wp.version === 0 && wp.program.length === 32) return { type: 'witness_v0_scripthash', solutions: [wp.program.slice()] };
    if (wp.version !== 0) return { type: 'witness_unknown', solutions: [Uint8Array.of(wp.version), wp.program.slice()] };
    return { type: 'nonstandard', solutions: [] };
  }

  // Provably unspendable data carrier: whatever follows OP_RETURN, as long as it is pushes.
  if (script.length >= 1 && script[0] === Op.OP_RETURN && isPushOnly(script, 1)) return { type: 'nulldata', solutions: [] };

  const pubkey = matchPayToPubkey(script);
  if (pubkey !== null) return { type: 'pubkey', solutions: [pubkey] };

  if (
    script.length === 25 &&
    script[0] === Op.OP_DUP &&
    script[1] === Op.OP_HASH160 &&
    script[2] === 20 &&
    script[23] === Op.OP_EQUALVERIFY &&
    script[24] === Op.OP_CHECKSIG
  ) {
    return { type: 'pubkeyhash', solutions: [script.slice(3, 23)] };
  }

  const multisig = matchMultisig(script);
  if (multisig !== null) {
    return {
      type: 'multisig',
      solutions: [Uint8Array.of(multisig.required), ...multisig.keys, Uint8Array.of(multisig.keys.length)],
    };
  }
  return { type: 'nonstandard', solutions: [] };
}

function matchPayToPubkey(script: Uint8Array): Uint8Array | null {
  for (const size of [65, 33]) {
    if (script.length === size + 2 && script[0] === size && script[size + 1] === Op.OP_CHECKSIG) {
      const key = script.slice(1, size + 1);
      return isPubKeySizeValid(key) ? key : null;
    }
  }
  return null;
}

/** A small number as OP_N or as a minimal push of a minimal script number, within [min, max]. */
function smallNumber(r: ScriptReader, min: number, max: number): number | null {
  let n: number;
  if (r.opcode >= Op.OP_1 && r.opcode <= Op.OP_16) {
    n = decodeOpN(r.opcode);
  } else if (r.opcode > Op.OP_0 && r.opcode <= Op.OP_PUSHDATA4) {
    const data = r.data();
    if (!checkMinimalPush(data, r.opcode)) return null;
    try {
      n = decodeScriptNum(data, true);
    } catch (e) {
      if (e instanceof ScriptNumError) return null;
      throw e;
    }
  } else {
    return null;
  }
  return n >= min && n <= max ? n : null;
}

function matchMultisig(script: Uint8Array): { required: number; keys: Uint8Array[] } | null {
  if (script.length < 1 || script[script.length - 1] !== Op.OP_CHECKMULTISIG) return null;
  const r = new ScriptReader(script);
  if (!r.next()) return null;
  const required = smallNumber(r, 1, MAX_PUBKEYS_PER_MULTISIG);
  if (required === null) return null;
  const keys: Uint8Array[] = [];
  let more = r.next();
  while (more && isPubKeySizeValid(r.data())) {
    keys.push(r.data().slice());
    more = r.next();
  }
  // After a failed read the opcode is OP_INVALIDOPCODE, which is no number: Core's behaviour too.
  const count = smallNumber(r, required, MAX_PUBKEYS_PER_MULTISIG);
  if (count === null || count !== keys.length) return null;
  return r.pos + 1 === script.length ? { required, keys } : null;
}

export function p2pkScript(pubkey: Uint8Array): Uint8Array {
  return new ScriptBuilder(pubkey.length + 2).push(pubkey).op(Op.OP_CHECKSIG).build();
}

export function p2pkhScript(keyHash: Uint8Array): Uint8Array {
  expectLength(keyHash, 20, 'key hash');
  return new ScriptBuilder(25).op(Op.OP_DUP).op(Op.OP_HASH160).push(keyHash).op(Op.OP_EQUALVERIFY).op(Op.OP_CHECKSIG).build();
}

export function p2shScript(scriptHash: Uint8Array): Uint8Array {
  expectLength(scriptHash, 20, 'script hash');
  return new ScriptBuilder(23).op(Op.OP_HASH160).push(scriptHash).op(Op.OP_EQUAL).build();
}

export function p2wpkhScript(keyHash: Uint8Array): Uint8Array {
  expectLength(keyHash, 20, 'key hash');
  return witnessProgramScript(0, keyHash);
}

export function p2wshScript(scriptHash: Uint8Array): Uint8Array {
  expectLength(scriptHash, 32, 'script hash');
  return witnessProgramScript(0, scriptHash);
}

/** OP_n <program>: the output script of any witness version (0..16) and 2..40-byte program. */
export function witnessProgramScript(version: number, program: Uint8Array): Uint8Array {
  if (program.length < 2 || program.length > 40) throw new RangeError('witness program must be 2..40 bytes');
  return new ScriptBuilder(program.length + 2).op(encodeOpN(version)).push(program).build();
}

/** Core's GetScriptForMultisig: m <key>... n OP_CHECKMULTISIG. */
export function multisigScript(required: number, pubkeys: readonly Uint8Array[]): Uint8Array {
  if (pubkeys.length < 1 || pubkeys.length > 16) throw new RangeError('multisig needs 1..16 keys');
  if (!Number.isInteger(required) || required < 1 || required > pubkeys.length) {
    throw new RangeError('multisig threshold must be 1..number of keys');
  }
  const b = new ScriptBuilder(3 + pubkeys.length * 34).op(encodeOpN(required));
  for (const key of pubkeys) b.push(key);
  return b.op(encodeOpN(pubkeys.length)).op(Op.OP_CHECKMULTISIG).build();
}

/** OP_RETURN followed by pushes of `data` (a provably unspendable data carrier). */
export function nullDataScript(...data: Uint8Array[]): Uint8Array {
  const b = new ScriptBuilder().op(Op.OP_RETURN);
  for (const d of data) b.push(d);
  return b.build();
}

function expectLength(bytes: Uint8Array, length: number, what: string): void {
  if (bytes.length !== length) throw new RangeError(`${what} must be ${length} bytes`);
}
