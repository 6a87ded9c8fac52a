import { type TxData, WITNESS_SCALE_FACTOR, isNullOutPoint } from '../primitives/tx.ts';
import { ScriptFlags } from './flags.ts';
import { Op, decodeOpN } from './opcodes.ts';
import { MAX_PUBKEYS_PER_MULTISIG, ScriptReader } from './script.ts';
import { isPayToScriptHash, isPushOnly, isWitnessProgram } from './standard.ts';

/** The reader legacySigOpCount scans with (it runs for every script of every block twice). */
const counter = new ScriptReader(new Uint8Array(0));

/**
 * Core's CScript::GetSigOpCount(fAccurate), the sigop count of a script for the block limit: a
 * static scan of the script text, not of what executes. "Accurate" counting credits
 * OP_n CHECKMULTISIG with n sigops; the inaccurate legacy rule charges 20 for every CHECKMULTISIG.
 */
export function legacySigOpCount(script: Uint8Array, accurate: boolean): number {
  let n = 0;
  let lastOpcode: number = Op.OP_INVALIDOPCODE;
  const r = counter.reset(script);
  while (r.next()) {
    const op = r.opcode;
    if (op === Op.OP_CHECKSIG || op === Op.OP_CHECKSIGVERIFY) {
      n++;
    } else if (op === Op.OP_CHECKMULTISIG || op === Op.OP_CHECKMULTISIGVERIFY) {
      n += accurate && lastOpcode >= Op.OP_1 && lastOpcode <= Op.OP_16 ? decodeOpN(lastOpcode) : MAX_PUBKEYS_PER_MULTISIG;
    }
    lastOpcode = op;
  }
  return n;
}

/**
 * Core's CScript::GetSigOpCount(scriptSig): for a P2SH scriptPubKey, the accurate count of the
 * redeem script (the last push of a push-only scriptSig); otherwise the scriptPubKey's own count.
 */
export function scriptHashSigOpCount(scriptPubKey: Uint8Array, scriptSig: Uint8Array): number {
  if (!isPayToScriptHash(scriptPubKey)) return legacySigOpCount(scriptPubKey, true);
  const redeemScript = lastPush(scriptSig);
  return redeemScript === null ? 0 : legacySigOpCount(redeemScript, true);
}

/** Data of the last operation of a push-only script (empty for a trailing OP_n); null otherwise. */
function lastPush(scriptSig: Uint8Array): Uint8Array | null {
  const r = new ScriptReader(scriptSig);
  let data: Uint8Array = new Uint8Array(0);
  while (r.pos < scriptSig.length) {
    if (!r.next() || r.opcode > Op.OP_16) return null;
    data = r.data();
  }
  return data;
}

/** Sigops of spending witness program `script` (one that passes isWitnessProgram). */
function witnessSigOps(script: Uint8Array, witness: readonly Uint8Array[]): number {
  if (script[0] === Op.OP_0) {
    const programLength = script.length - 2;
    if (programLength === 20) return 1;
    if (programLength === 32 && witness.length > 0) return legacySigOpCount(witness[witness.length - 1], true);
  }
  return 0;
}

/** Core's CountWitnessSigOps: sigops of a native or P2SH-wrapped witness v0 spend (not scaled). */
export function countWitnessSigOps(scriptSig: Uint8Array, scriptPubKey: Uint8Array, witness: readonly Uint8Array[], flags: number): number {
  if (!(flags & ScriptFlags.WITNESS)) return 0;
  if (isWitnessProgram(scriptPubKey)) return witnessSigOps(scriptPubKey, witness);
  if (isPayToScriptHash(scriptPubKey) && isPushOnly(scriptSig)) {
    const redeemScript = lastPush(scriptSig);
    if (redeemScript !== null && isWitnessProgram(redeemScript)) return witnessSigOps(redeemScript, witness);
  }
  return 0;
}

/** Core's GetLegacySigOpCount: inaccurate counts of every scriptSig and scriptPubKey. */
export function getLegacySigOpCount(tx: TxData): number {
  let n = 0;
  for (const input of tx.inputs) n += legacySigOpCount(input.scriptSig, false);
  for (const output of tx.outputs) n += legacySigOpCount(output.scriptPubKey, false);
  return n;
}

function isCoinbase(tx: TxData): boolean {
  return tx.inputs.length === 1 && isNullOutPoint(tx.inputs[0].prevout);
}

function checkSpent(tx: TxData, spentScripts: readonly Uint8Array[]): void {
  if (spentScripts.length !== tx.inputs.length) {
    throw new RangeError(`need the spent scriptPubKey of each of the ${tx.inputs.length} inputs`);
  }
}

/**
 * Core's GetP2SHSigOpCount: redeem-script sigops of the P2SH inputs. `spentScripts[i]` is the
 * scriptPubKey of the output that input i spends.
 */
export function getP2SHSigOpCount(tx: TxData, spentScripts: readonly Uint8Array[]): number {
  if (isCoinbase(tx)) return 0;
  checkSpent(tx, spentScripts);
  let n = 0;
  tx.inputs.forEach((input, i) => {
    if (isPayToScriptHash(spentScripts[i])) n += scriptHashSigOpCount(spentScripts[i], input.scriptSig);
  });
  return n;
}

/**
 * Core's GetTransactionSigOpCost: legacy and P2SH sigops weigh WITNESS_SCALE_FACTOR each,
 * witness sigops one. `spentScripts` as for getP2SHSigOpCount (ignored for a coinbase).
 */
export function getTransactionSigOpCost(tx: TxData, spentScripts: readonly Uint8Array[], flags: number): number {
  let cost = getLegacySigOpCount(tx) * WITNESS_SCALE_FACTOR;
  if (isCoinbase(tx)) return cost;
  checkSpent(tx, spentScripts);
  if (flags & ScriptFlags.P2SH) cost += getP2SHSigOpCount(tx, spentScripts) * WITNESS_SCALE_FACTOR;
  tx.inputs.forEach((input, i) => {
    cost += countWitnessSigOps(input.scriptSig, spentScripts[i], input.witness, flags);
  });
  return cost;
}
