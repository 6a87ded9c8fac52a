import { hash160, ripemd160, sha1, sha256, sha256d } from '../crypto/hash.ts';
import { bytesEqual } from '../encoding/hex.ts';
import type { TxData, TxOut } from '../primitives/tx.ts';
import { type SignatureChecker, SEQUENCE_LOCKTIME_DISABLE_FLAG, TransactionSignatureChecker } from './checker.ts';
import { type ScriptError, type VerifyResult, VERIFY_OK, verifyFailure } from './errors.ts';
import { ScriptFlags, isValidFlagCombination } from './flags.ts';
import { Op } from './opcodes.ts';
import {
  MAX_OPS_PER_SCRIPT,
  MAX_PUBKEYS_PER_MULTISIG,
  MAX_SCRIPT_ELEMENT_SIZE,
  MAX_SCRIPT_SIZE,
  MAX_STACK_SIZE,
  ScriptNumError,
  checkMinimalPush,
  decodeScriptNum,
  encodeScriptNum,
  findAndDelete,
  pushData,
} from './script.ts';
import { checkPubKeyEncoding, checkSignatureEncoding } from './sigencoding.ts';
import { type PrecomputedTxData, SigVersion } from './sighash.ts';
import { isPayToScriptHash, isPushOnly, witnessProgram } from './standard.ts';

/**
 * Bitcoin Core's script interpreter (EvalScript / VerifyScript) for legacy, P2SH and witness v0
 * scripts. Witness versions 1 and up, taproot included, are not implemented: their outputs are
 * anyone-can-spend, or fail under DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM (the standard policy).
 *
 * Stack elements are never modified in place, so pushes can share the script's bytes and the
 * same constant arrays can sit on the stack several times.
 */

const FALSE = new Uint8Array(0);
const TRUE = Uint8Array.of(1);

/** Opcodes disabled since 2010 (CVE-2010-5137): they fail even in unexecuted branches. */
const DISABLED = new Uint8Array(256);
for (const op of [
  Op.OP_CAT,
  Op.OP_SUBSTR,
  Op.OP_LEFT,
  Op.OP_RIGHT,
  Op.OP_INVERT,
  Op.OP_AND,
  Op.OP_OR,
  Op.OP_XOR,
  Op.OP_2MUL,
  Op.OP_2DIV,
  Op.OP_MUL,
  Op.OP_DIV,
  Op.OP_MOD,
  Op.OP_LSHIFT,
  Op.OP_RSHIFT,
]) {
  DISABLED[op] = 1;
}

/** Core's CastToBool: any non-zero byte is true, except a lone sign bit at the end (negative zero). */
export function castToBool(v: Uint8Array): boolean {
  for (let i = 0; i < v.length; i++) {
    if (v[i] !== 0) return !(i === v.length - 1 && v[i] === 0x80);
  }
  return false;
}

/**
 * Core's EvalScript: runs `script` on `stack` (modified in place). Returns null on success or the
 * first failing rule.
 */
export function evalScript(
  stack: Uint8Array[],
  script: Uint8Array,
  flags: number,
  checker: SignatureChecker,
  sigversion: SigVersion,
): ScriptError | null {
  if (script.length > MAX_SCRIPT_SIZE) return 'SCRIPT_SIZE';
  if (script.length === 0) return null; // e.g. every native witness spend's scriptSig
  try {
    return run(stack, script, flags, checker, sigversion);
  } catch (e) {
    if (e instanceof ScriptNumError) return 'SCRIPTNUM';
    // Core maps any other exception to UNKNOWN_ERROR: an invalid script, never a crashed node.
    return 'UNKNOWN_ERROR';
  }
}

function run(stack: Uint8Array[], script: Uint8Array, flags: number, checker: SignatureChecker, sigversion: SigVersion): ScriptError | null {
  const end = script.length;
  const requireMinimal = (flags & ScriptFlags.MINIMALDATA) !== 0;
  const altstack: Uint8Array[] = [];
  let pc = 0;
  let codeHashStart = 0; // scriptCode starts after the last executed OP_CODESEPARATOR
  let opCount = 0;
  // Core's ConditionStack: only the depth and the position of the first false branch matter.
  let condDepth = 0;
  let firstFalse = -1;

  while (pc < end) {
    const executing = firstFalse < 0;

    // Read the instruction (Core's GetOp); a truncated push is a bad opcode.
    const opcode = script[pc++];
    let push: Uint8Array | null = null;
    if (opcode <= Op.OP_PUSHDATA4) {
      let size: number;
      if (opcode < Op.OP_PUSHDATA1) {
        size = opcode;
      } else if (opcode === Op.OP_PUSHDATA1) {
        if (end - pc < 1) return 'BAD_OPCODE';
        size = script[pc];
        pc += 1;
      } else if (opcode === Op.OP_PUSHDATA2) {
        if (end - pc < 2) return 'BAD_OPCODE';
        size = script[pc] | (script[pc + 1] << 8);
        pc += 2;
      } else {
        if (end - pc < 4) return 'BAD_OPCODE';
        size = (script[pc] | (script[pc + 1] << 8) | (script[pc + 2] << 16) | (script[pc + 3] << 24)) >>> 0;
        pc += 4;
      }
      if (end - pc < size) return 'BAD_OPCODE';
      push = script.subarray(pc, pc + size);
      pc += size;
      if (size > MAX_SCRIPT_ELEMENT_SIZE) return 'PUSH_SIZE';
    }

    // OP_RESERVED (0x50) and the number opcodes do not count towards the limit.
    if (opcode > Op.OP_16 && ++opCount > MAX_OPS_PER_SCRIPT) return 'OP_COUNT';
    if (DISABLED[opcode]) return 'DISABLED_OPCODE';
    // Even unexecuted, since the point is that legacy scriptCode stays constant.
    if (opcode === Op.OP_CODESEPARATOR && sigversion === SigVersion.BASE && flags & ScriptFlags.CONST_SCRIPTCODE) {
      return 'OP_CODESEPARATOR';
    }

    if (push !== null) {
      if (executing) {
        if (requireMinimal && !checkMinimalPush(push, opcode)) return 'MINIMALDATA';
        stack.push(push);
      }
    } else if (executing || (opcode >= Op.OP_IF && opcode <= Op.OP_ENDIF)) {
      switch (opcode) {
        case Op.OP_1NEGATE:
        case Op.OP_1:
        case Op.OP_2:
        case Op.OP_3:
        case Op.OP_4:
        case Op.OP_5:
        case Op.OP_6:
        case Op.OP_7:
        case Op.OP_8:
        case Op.OP_9:
        case Op.OP_10:
        case Op.OP_11:
        case Op.OP_12:
        case Op.OP_13:
        case Op.OP_14:
        case Op.OP_15:
        case Op.OP_16:
          stack.push(encodeScriptNum(opcode - (Op.OP_1 - 1)));
          break;

        case Op.OP_NOP:
          break;

        case Op.OP_CHECKLOCKTIMEVERIFY: {
          if (!(flags & ScriptFlags.CHECKLOCKTIMEVERIFY)) break; // still OP_NOP2
          if (stack.length < 1) return 'INVALID_STACK_OPERATION';
          // Five bytes, not four: lock times are unsigned 32-bit, beyond CScriptNum's usual range.
          const lockTime = decodeScriptNum(stack[stack.length - 1], requireMinimal, 5);
          if (lockTime < 0) return 'NEGATIVE_LOCKTIME';
          if (!checker.checkLockTime(lockTime)) return 'UNSATISFIED_LOCKTIME';
          break;
        }

        case Op.OP_CHECKSEQUENCEVERIFY: {
          if (!(flags & ScriptFlags.CHECKSEQUENCEVERIFY)) break; // still OP_NOP3
          if (stack.length < 1) return 'INVALID_STACK_OPERATION';
          const sequence = decodeScriptNum(stack[stack.length - 1], requireMinimal, 5);
          if (sequence < 0) return 'NEGATIVE_LOCKTIME';
          // With the disable flag the operand is reserved for future soft forks: a NOP.
          if (sequence & SEQUENCE_LOCKTIME_DISABLE_FLAG) break;
          if (!checker.checkSequence(sequence)) return 'UNSATISFIED_LOCKTIME';
          break;
        }

        case Op.OP_NOP1:
        case Op.OP_NOP4:
        case Op.OP_NOP5:
        case Op.OP_NOP6:
        case Op.OP_NOP7:
        case Op.OP_NOP8:
        case Op.OP_NOP9:
        case Op.OP_NOP10:
          if (flags & ScriptFlags.DISCOURAGE_UPGRADABLE_NOPS) return 'DISCOURAGE_UPGRADABLE_NOPS';
          break;

        case Op.OP_IF:
        case Op.OP_NOTIF: {
          let value = false;
          if (executing) {
            // INVALID_STACK_OPERATION since Core PR #32143 (UNBALANCED_CONDITIONAL before).
            if (stack.length < 1) return 'INVALID_STACK_OPERATION';
            const top = stack[stack.length - 1];
            if (sigversion === SigVersion.WITNESS_V0 && flags & ScriptFlags.MINIMALIF) {
              if (top.length > 1 || (top.length === 1 && top[0] !== 1)) return 'MINIMALIF';
            }
            value = castToBool(top) !== (opcode === Op.OP_NOTIF);
            stack.pop();
          }
          if (!value && firstFalse < 0) firstFalse = condDepth;
          condDepth++;
          break;
        }

        case Op.OP_ELSE:
          if (condDepth === 0) return 'UNBALANCED_CONDITIONAL';
          // Toggling the top only matters when no outer branch is already false.
          if (firstFalse < 0) firstFalse = condDepth - 1;
          else if (firstFalse === condDepth - 1) firstFalse = -1;
          break;

        case Op.OP_ENDIF:
          if (condDepth === 0) return 'UNBALANCED_CONDITIONAL';
          condDepth--;
          if (firstFalse === condDepth) firstFalse = -1;
          break;

        case Op.OP_VERIFY:
          if (stack.length < 1) return 'INVALID_STACK_OPERATION';
          if (!castToBool(stack[stack.length - 1])) return 'VERIFY';
          stack.pop();
          break;

        case Op.OP_RETURN:
          return 'OP_RETURN';

        case Op.OP_TOALTSTACK:
          if (stack.length < 1) return 'INVALID_STACK_OPERATION';
          altstack.push(stack.pop()!);
          break;

        case Op.OP_FROMALTSTACK:
          if (altstack.length < 1) return 'INVALID_ALTSTACK_OPERATION';
          stack.push(altstack.pop()!);
          break;

        case Op.OP_2DROP:
          if (stack.length < 2) return 'INVALID_STACK_OPERATION';
          stack.length -= 2;
          break;

        case Op.OP_2DUP: {
          const n = stack.length;
          if (n < 2) return 'INVALID_STACK_OPERATION';
          stack.push(stack[n - 2], stack[n - 1]);
          break;
        }

        case Op.OP_3DUP: {
          const n = stack.length;
          if (n < 3) return 'INVALID_STACK_OPERATION';
          stack.push(stack[n - 3], stack[n - 2], stack[n - 1]);
          break;
        }

        case Op.OP_2OVER: {
          const n = stack.length;
          if (n < 4) return 'INVALID_STACK_OPERATION';
          stack.push(stack[n - 4], stack[n - 3]);
          break;
        }

        case Op.OP_2ROT: {
          const n = stack.length;
          if (n < 6) return 'INVALID_STACK_OPERATION';
          const [a, b] = stack.splice(n - 6, 2);
          stack.push(a, b);
          break;
        }

        case Op.OP_2SWAP: {
          const n = stack.length;
          if (n < 4) return 'INVALID_STACK_OPERATION';
          swap(stack, n - 4, n - 2);
          swap(stack, n - 3, n - 1);
          break;
        }

        case Op.OP_IFDUP: {
          if (stack.length < 1) return 'INVALID_STACK_OPERATION';
          const top = stack[stack.length - 1];
          if (castToBool(top)) stack.push(top);
          break;
        }

        case Op.OP_DEPTH:
          stack.push(encodeScriptNum(stack.length));
          break;

        case Op.OP_DROP:
          if (stack.length < 1) return 'INVALID_STACK_OPERATION';
          stack.pop();
          break;

        case Op.OP_DUP:
          if (stack.length < 1) return 'INVALID_STACK_OPERATION';
          stack.push(stack[stack.length - 1]);
          break;

        case Op.OP_NIP:
          if (stack.length < 2) return 'INVALID_STACK_OPERATION';
          stack.splice(stack.length - 2, 1);
          break;

        case Op.OP_OVER:
          if (stack.length < 2) return 'INVALID_STACK_OPERATION';
          stack.push(stack[stack.length - 2]);
          break;

        case Op.OP_PICK:
        case Op.OP_ROLL: {
          if (stack.length < 2) return 'INVALID_STACK_OPERATION';
          const depth = decodeScriptNum(stack[stack.length - 1], requireMinimal);
          stack.pop();
          if (depth < 0 || depth >= stack.length) return 'INVALID_STACK_OPERATION';
          const index = stack.length - 1 - depth;
          const value = stack[index];
          if (opcode === Op.OP_ROLL) stack.splice(index, 1);
          stack.push(value);
          break;
        }

        case Op.OP_ROT: {
          const n = stack.length;
          if (n < 3) return 'INVALID_STACK_OPERATION';
          swap(stack, n - 3, n - 2);
          swap(stack, n - 2, n - 1);
          break;
        }

        case Op.OP_SWAP: {
          const n = stack.length;
          if (n < 2) return 'INVALID_STACK_OPERATION';
          swap(stack, n - 2, n - 1);
          break;
        }

        case Op.OP_TUCK: {
          const n = stack.length;
          if (n < 2) return 'INVALID_STACK_OPERATION';
          stack.splice(n - 2, 0, stack[n - 1]);
          break;
        }

        case Op.OP_SIZE:
          if (stack.length < 1) return 'INVALID_STACK_OPERATION';
          stack.push(encodeScriptNum(stack[stack.length - 1].length));
          break;

        case Op.OP_EQUAL:
        case Op.OP_EQUALVERIFY: {
          const n = stack.length;
          if (n < 2) return 'INVALID_STACK_OPERATION';
          const equal = bytesEqual(stack[n - 2], stack[n - 1]);
          stack.length = n - 2;
          if (opcode === Op.OP_EQUALVERIFY) {
            if (!equal) return 'EQUALVERIFY';
          } else {
            stack.push(equal ? TRUE : FALSE);
          }
          break;
        }

        case Op.OP_1ADD:
        case Op.OP_1SUB:
        case Op.OP_NEGATE:
        case Op.OP_ABS:
        case Op.OP_NOT:
        case Op.OP_0NOTEQUAL: {
          if (stack.length < 1) return 'INVALID_STACK_OPERATION';
          let v = decodeScriptNum(stack[stack.length - 1], requireMinimal);
          switch (opcode) {
            case Op.OP_1ADD:
              v += 1;
              break;
            case Op.OP_1SUB:
              v -= 1;
              break;
            case Op.OP_NEGATE:
              v = -v;
              break;
            case Op.OP_ABS:
              v = Math.abs(v);
              break;
            case Op.OP_NOT:
              v = v === 0 ? 1 : 0;
              break;
            default: // OP_0NOTEQUAL
              v = v !== 0 ? 1 : 0;
          }
          stack[stack.length - 1] = encodeScriptNum(v);
          break;
        }

        case Op.OP_ADD:
        case Op.OP_SUB:
        case Op.OP_BOOLAND:
        case Op.OP_BOOLOR:
        case Op.OP_NUMEQUAL:
        case Op.OP_NUMEQUALVERIFY:
        case Op.OP_NUMNOTEQUAL:
        case Op.OP_LESSTHAN:
        case Op.OP_GREATERTHAN:
        case Op.OP_LESSTHANOREQUAL:
        case Op.OP_GREATERTHANOREQUAL:
        case Op.OP_MIN:
        case Op.OP_MAX: {
          const n = stack.length;
          if (n < 2) return 'INVALID_STACK_OPERATION';
          const a = decodeScriptNum(stack[n - 2], requireMinimal);
          const b = decodeScriptNum(stack[n - 1], requireMinimal);
          const result = binaryNumOp(opcode, a, b);
          stack.length = n - 2;
          if (opcode === Op.OP_NUMEQUALVERIFY) {
            if (result === 0) return 'NUMEQUALVERIFY';
          } else {
            stack.push(encodeScriptNum(result));
          }
          break;
        }

        case Op.OP_WITHIN: {
          const n = stack.length;
          if (n < 3) return 'INVALID_STACK_OPERATION';
          const x = decodeScriptNum(stack[n - 3], requireMinimal);
          const min = decodeScriptNum(stack[n - 2], requireMinimal);
          const max = decodeScriptNum(stack[n - 1], requireMinimal);
          stack.length = n - 3;
          stack.push(min <= x && x < max ? TRUE : FALSE);
          break;
        }

        case Op.OP_RIPEMD160:
        case Op.OP_SHA1:
        case Op.OP_SHA256:
        case Op.OP_HASH160:
        case Op.OP_HASH256: {
          if (stack.length < 1) return 'INVALID_STACK_OPERATION';
          const top = stack[stack.length - 1];
          stack[stack.length - 1] =
            opcode === Op.OP_RIPEMD160
              ? ripemd160(top)
              : opcode === Op.OP_SHA1
                ? sha1(top)
                : opcode === Op.OP_SHA256
                  ? sha256(top)
                  : opcode === Op.OP_HASH160
                    ? hash160(top)
                    : sha256d(top);
          break;
        }

        case Op.OP_CODESEPARATOR:
          codeHashStart = pc;
          break;

        case Op.OP_CHECKSIG:
        case Op.OP_CHECKSIGVERIFY: {
          const n = stack.length;
          if (n < 2) return 'INVALID_STACK_OPERATION';
          const sig = stack[n - 2];
          const pubkey = stack[n - 1];
          let scriptCode = codeHashStart === 0 ? script : script.subarray(codeHashStart);
          // Legacy scripts cannot commit to their own signature, so it is cut out of scriptCode.
          if (sigversion === SigVersion.BASE) {
            const found = findAndDelete(scriptCode, pushData(sig));
            if (found.count > 0 && flags & ScriptFlags.CONST_SCRIPTCODE) return 'SIG_FINDANDDELETE';
            scriptCode = found.script;
          }
          const encodingError = checkSignatureEncoding(sig, flags) ?? checkPubKeyEncoding(pubkey, flags, sigversion);
          if (encodingError !== null) return encodingError;
          const ok = checker.checkEcdsaSignature(sig, pubkey, scriptCode, sigversion);
          if (!ok && flags & ScriptFlags.NULLFAIL && sig.length > 0) return 'NULLFAIL';
          stack.length = n - 2;
          if (opcode === Op.OP_CHECKSIGVERIFY) {
            if (!ok) return 'CHECKSIGVERIFY';
          } else {
            stack.push(ok ? TRUE : FALSE);
          }
          break;
        }

        case Op.OP_CHECKMULTISIG:
        case Op.OP_CHECKMULTISIGVERIFY: {
          const error = checkMultisig(stack, script, codeHashStart, flags, checker, sigversion, requireMinimal, opCount);
          if (typeof error === 'string') return error;
          opCount = error;
          if (opcode === Op.OP_CHECKMULTISIGVERIFY) {
            if (!castToBool(stack[stack.length - 1])) return 'CHECKMULTISIGVERIFY';
            stack.pop();
          }
          break;
        }

        default:
          // OP_RESERVED*, OP_VER, OP_VERIF, OP_VERNOTIF, OP_CHECKSIGADD and undefined opcodes.
          return 'BAD_OPCODE';
      }
    }

    if (stack.length + altstack.length > MAX_STACK_SIZE) return 'STACK_SIZE';
  }

  if (condDepth !== 0) return 'UNBALANCED_CONDITIONAL';
  return null;
}

function swap(stack: Uint8Array[], i: number, j: number): void {
  const t = stack[i];
  stack[i] = stack[j];
  stack[j] = t;
}

function binaryNumOp(opcode: number, a: number, b: number): number {
  switch (opcode) {
    case Op.OP_ADD:
      return a + b;
    case Op.OP_SUB:
      return a - b;
    case Op.OP_BOOLAND:
      return a !== 0 && b !== 0 ? 1 : 0;
    case Op.OP_BOOLOR:
      return a !== 0 || b !== 0 ? 1 : 0;
    case Op.OP_NUMEQUAL:
    case Op.OP_NUMEQUALVERIFY:
      return a === b ? 1 : 0;
    case Op.OP_NUMNOTEQUAL:
      return a !== b ? 1 : 0;
    case Op.OP_LESSTHAN:
      return a < b ? 1 : 0;
    case Op.OP_GREATERTHAN:
      return a > b ? 1 : 0;
    case Op.OP_LESSTHANOREQUAL:
      return a <= b ? 1 : 0;
    case Op.OP_GREATERTHANOREQUAL:
      return a >= b ? 1 : 0;
    case Op.OP_MIN:
      return Math.min(a, b);
    default: // OP_MAX
      return Math.max(a, b);
  }
}

/**
 * OP_CHECKMULTISIG: ([dummy] sig... nSigs pubkey... nKeys -- bool). Leaves the result on the stack
 * and returns the updated op count (keys count towards the 201 limit), or the failing rule.
 */
function checkMultisig(
  stack: Uint8Array[],
  script: Uint8Array,
  codeHashStart: number,
  flags: number,
  checker: SignatureChecker,
  sigversion: SigVersion,
  requireMinimal: boolean,
  opCount: number,
): number | ScriptError {
  const n = stack.length;
  // Positions count from the top of the stack: stack[n - k] is the k-th element from the top.
  let i = 1;
  if (n < i) return 'INVALID_STACK_OPERATION';
  let keysLeft = decodeScriptNum(stack[n - i], requireMinimal);
  if (keysLeft < 0 || keysLeft > MAX_PUBKEYS_PER_MULTISIG) return 'PUBKEY_COUNT';
  opCount += keysLeft;
  if (opCount > MAX_OPS_PER_SCRIPT) return 'OP_COUNT';
  let ikey = ++i;
  // Deepest key position; below it are signatures, which NULLFAIL requires to be empty on failure.
  let ikey2 = keysLeft + 2;
  i += keysLeft;
  if (n < i) return 'INVALID_STACK_OPERATION';
  let sigsLeft = decodeScriptNum(stack[n - i], requireMinimal);
  if (sigsLeft < 0 || sigsLeft > keysLeft) return 'SIG_COUNT';
  let isig = ++i;
  i += sigsLeft;
  if (n < i) return 'INVALID_STACK_OPERATION';

  let scriptCode = codeHashStart === 0 ? script : script.subarray(codeHashStart);
  if (sigversion === SigVersion.BASE) {
    for (let k = 0; k < sigsLeft; k++) {
      const found = findAndDelete(scriptCode, pushData(stack[n - isig - k]));
      if (found.count > 0 && flags & ScriptFlags.CONST_SCRIPTCODE) return 'SIG_FINDANDDELETE';
      scriptCode = found.script;
    }
  }

  let success = true;
  while (success && sigsLeft > 0) {
    const sig = stack[n - isig];
    const pubkey = stack[n - ikey];
    // Encodings are checked lazily, pair by pair: which pairs get looked at is observable
    // (script_tests relies on it), so the order must stay exactly Core's.
    const encodingError = checkSignatureEncoding(sig, flags) ?? checkPubKeyEncoding(pubkey, flags, sigversion);
    if (encodingError !== null) return encodingError;
    if (checker.checkEcdsaSignature(sig, pubkey, scriptCode, sigversion)) {
      isig++;
      sigsLeft--;
    }
    ikey++;
    keysLeft--;
    // More signatures left than keys: the remaining ones cannot all match.
    if (sigsLeft > keysLeft) success = false;
  }

  // Pop the arguments; on failure NULLFAIL requires every signature to be empty.
  while (i-- > 1) {
    if (!success && flags & ScriptFlags.NULLFAIL && ikey2 === 0 && stack[stack.length - 1].length > 0) {
      return 'NULLFAIL';
    }
    if (ikey2 > 0) ikey2--;
    stack.pop();
  }

  // The historical off-by-one consumes one more element; NULLDUMMY (BIP147) requires it empty.
  if (stack.length < 1) return 'INVALID_STACK_OPERATION';
  if (flags & ScriptFlags.NULLDUMMY && stack[stack.length - 1].length > 0) return 'SIG_NULLDUMMY';
  stack.pop();
  stack.push(success ? TRUE : FALSE);
  return opCount;
}

/** The script Core executes for a P2WPKH program: DUP HASH160 <program> EQUALVERIFY CHECKSIG. */
function p2wpkhScript(program: Uint8Array): Uint8Array {
  const s = new Uint8Array(25);
  s[0] = Op.OP_DUP;
  s[1] = Op.OP_HASH160;
  s[2] = 20;
  s.set(program, 3);
  s[23] = Op.OP_EQUALVERIFY;
  s[24] = Op.OP_CHECKSIG;
  return s;
}

/**
 * A P2WPKH witness: exactly a signature and a key, run through the implied P2PKH script. This is
 * executeWitnessScript([sig, pubkey], p2wpkhScript(program)) without the stack machine, with the
 * same rules in the same order, so the same error for every witness. Those opcodes cannot hit any
 * limit (op count, stack size, minimal push) and CHECKSIG leaves exactly one element, so only the
 * checks below remain; exceptions map to UNKNOWN_ERROR as in evalScript. Most inputs of today's
 * blocks take this path, and the generic loop cost more than the hashing around the signature.
 */
export function executeP2wpkh(witness: readonly Uint8Array[], program: Uint8Array, flags: number, checker: SignatureChecker): ScriptError | null {
  if (witness.length !== 2) return 'WITNESS_PROGRAM_MISMATCH';
  const sig = witness[0];
  const pubkey = witness[1];
  if (sig.length > MAX_SCRIPT_ELEMENT_SIZE || pubkey.length > MAX_SCRIPT_ELEMENT_SIZE) return 'PUSH_SIZE';
  try {
    // DUP HASH160 <program> EQUALVERIFY
    if (!bytesEqual(hash160(pubkey), program)) return 'EQUALVERIFY';
    // CHECKSIG, then the witness script's clean-stack and truth checks on its result
    const encodingError = checkSignatureEncoding(sig, flags) ?? checkPubKeyEncoding(pubkey, flags, SigVersion.WITNESS_V0);
    if (encodingError !== null) return encodingError;
    if (checker.checkEcdsaSignature(sig, pubkey, p2wpkhScript(program), SigVersion.WITNESS_V0)) return null;
    return flags & ScriptFlags.NULLFAIL && sig.length > 0 ? 'NULLFAIL' : 'EVAL_FALSE';
  } catch {
    return 'UNKNOWN_ERROR';
  }
}

function executeWitnessScript(stack: Uint8Array[], script: Uint8Array, flags: number, checker: SignatureChecker): ScriptError | null {
  for (const item of stack) if (item.length > MAX_SCRIPT_ELEMENT_SIZE) return 'PUSH_SIZE';
  const error = evalScript(stack, script, flags, checker, SigVersion.WITNESS_V0);
  if (error !== null) return error;
  // Witness scripts implicitly require a clean stack.
  if (stack.length !== 1) return 'CLEANSTACK';
  if (!castToBool(stack[0])) return 'EVAL_FALSE';
  return null;
}

function verifyWitnessProgram(
  witness: readonly Uint8Array[],
  version: number,
  program: Uint8Array,
  flags: number,
  checker: SignatureChecker,
): ScriptError | null {
  if (version === 0) {
    if (program.length === 32) {
      // P2WSH: the last witness item is the script, committed to by its SHA256.
      if (witness.length === 0) return 'WITNESS_PROGRAM_WITNESS_EMPTY';
      const script = witness[witness.length - 1];
      if (!bytesEqual(sha256(script), program)) return 'WITNESS_PROGRAM_MISMATCH';
      return executeWitnessScript(witness.slice(0, -1), script, flags, checker);
    }
    if (program.length === 20) {
      return executeP2wpkh(witness, program, flags, checker);
    }
    return 'WITNESS_PROGRAM_WRONG_LENGTH';
  }
  // Versions 1..16 (taproot included) are not implemented: anyone-can-spend, as for any node
  // that predates their soft fork, unless policy asks to reject them.
  if (flags & ScriptFlags.DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM) return 'DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM';
  return null;
}

/** OP_0 <20 bytes>: a witness v0 keyhash output. */
function isP2wpkhOutput(scriptPubKey: Uint8Array): boolean {
  return scriptPubKey.length === 22 && scriptPubKey[0] === Op.OP_0 && scriptPubKey[1] === 20;
}

/**
 * verifyScript for an empty scriptSig spending a P2WPKH output under WITNESS, without the stack
 * machine. Evaluating the empty scriptSig and the two pushes of the scriptPubKey cannot fail (both
 * pushes are minimal, P2SH does not match a 22-byte script); what remains is the truth of the
 * program left on top, the witness program, and a stack that is then clean.
 */
function verifyP2wpkhSpend(witness: readonly Uint8Array[], program: Uint8Array, flags: number, checker: SignatureChecker): VerifyResult {
  if (!castToBool(program)) return verifyFailure('EVAL_FALSE');
  const error = executeP2wpkh(witness, program, flags, checker);
  return error === null ? VERIFY_OK : verifyFailure(error);
}

/**
 * Core's VerifyScript: does `scriptSig` (with `witness`) satisfy `scriptPubKey` under `flags`?
 * Throws RangeError for flag sets Core rejects by assertion (CLEANSTACK without WITNESS, WITNESS
 * without P2SH): those are caller bugs, not properties of the transaction.
 */
export function verifyScript(
  scriptSig: Uint8Array,
  scriptPubKey: Uint8Array,
  witness: readonly Uint8Array[],
  flags: number,
  checker: SignatureChecker,
): VerifyResult {
  if (!isValidFlagCombination(flags)) throw new RangeError('invalid script verify flag combination');
  if (scriptSig.length === 0 && flags & ScriptFlags.WITNESS && isP2wpkhOutput(scriptPubKey)) {
    return verifyP2wpkhSpend(witness, scriptPubKey.subarray(2), flags, checker);
  }
  if (flags & ScriptFlags.SIGPUSHONLY && !isPushOnly(scriptSig)) return verifyFailure('SIG_PUSHONLY');

  // scriptSig and scriptPubKey run one after the other on the same stack, never concatenated
  // (CVE-2010-5141).
  let stack: Uint8Array[] = [];
  let error = evalScript(stack, scriptSig, flags, checker, SigVersion.BASE);
  if (error !== null) return verifyFailure(error);
  // P2SH re-evaluates from the stack as scriptSig left it.
  const p2sh = (flags & ScriptFlags.P2SH) !== 0 && isPayToScriptHash(scriptPubKey);
  const stackCopy = p2sh ? stack.slice() : null;
  error = evalScript(stack, scriptPubKey, flags, checker, SigVersion.BASE);
  if (error !== null) return verifyFailure(error);
  if (stack.length === 0 || !castToBool(stack[stack.length - 1])) return verifyFailure('EVAL_FALSE');

  const witnessEnabled = (flags & ScriptFlags.WITNESS) !== 0;
  let hadWitness = false;
  if (witnessEnabled) {
    const wp = witnessProgram(scriptPubKey);
    if (wp !== null) {
      hadWitness = true;
      // Anything in scriptSig would be malleable: the witness carries the whole spend.
      if (scriptSig.length !== 0) return verifyFailure('WITNESS_MALLEATED');
      error = verifyWitnessProgram(witness, wp.version, wp.program, flags, checker);
      if (error !== null) return verifyFailure(error);
      // The stack is not clean for witness programs; let CLEANSTACK below pass.
      stack.length = 1;
    }
  }

  if (stackCopy !== null) {
    if (!isPushOnly(scriptSig)) return verifyFailure('SIG_PUSHONLY');
    stack = stackCopy;
    // Not empty: the scriptPubKey (HASH160 <h> EQUAL) succeeded on this stack.
    const redeemScript = stack.pop()!;
    error = evalScript(stack, redeemScript, flags, checker, SigVersion.BASE);
    if (error !== null) return verifyFailure(error);
    if (stack.length === 0 || !castToBool(stack[stack.length - 1])) return verifyFailure('EVAL_FALSE');

    if (witnessEnabled) {
      const wp = witnessProgram(redeemScript);
      if (wp !== null) {
        hadWitness = true;
        // scriptSig must be exactly the one push of the redeem script, or it would be malleable.
        if (!bytesEqual(scriptSig, pushData(redeemScript))) return verifyFailure('WITNESS_MALLEATED_P2SH');
        error = verifyWitnessProgram(witness, wp.version, wp.program, flags, checker);
        if (error !== null) return verifyFailure(error);
        stack.length = 1;
      }
    }
  }

  // After P2SH and witness evaluation only: a plain evaluation of those leaves their inputs behind.
  if (flags & ScriptFlags.CLEANSTACK && stack.length !== 1) return verifyFailure('CLEANSTACK');

  // A witness on an input that does not spend a witness program would be free, malleable data.
  if (witnessEnabled && !hadWitness && witness.length > 0) return verifyFailure('WITNESS_UNEXPECTED');

  return VERIFY_OK;
}

/**
 * Verifies input `inputIndex` of `tx` against the output it spends. Pass one PrecomputedTxData
 * per transaction when verifying several inputs, so that BIP143 hashes are computed once.
 */
export function verifyInput(tx: TxData, inputIndex: number, spent: TxOut, flags: number, txdata?: PrecomputedTxData): VerifyResult {
  const input = tx.inputs[inputIndex];
  if (input === undefined) throw new RangeError(`input index ${inputIndex} out of range`);
  const checker = new TransactionSignatureChecker(tx, inputIndex, spent.value, txdata);
  return verifyScript(input.scriptSig, spent.scriptPubKey, input.witness, flags, checker);
}
