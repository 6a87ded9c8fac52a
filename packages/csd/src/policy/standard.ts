import {
  NO_TX_CHECKER,
  ScriptFlags,
  SigVersion,
  WITNESS_SCALE_FACTOR,
  compactSizeLength,
  evalScript,
  isPayToScriptHash,
  isPushOnly,
  isUnspendable,
  legacySigOpCount,
  solver,
  witnessProgram,
  type Transaction,
  type TxOut,
  type TxoutType,
  isHeldScript,
  opoiPayloadBytes,
} from '@cs/consensus';
import { feeForSize, type FeeRate } from './feerate.ts';
import {
  MAX_P2SH_SIGOPS,
  MAX_STANDARD_P2WSH_SCRIPT_SIZE,
  MAX_STANDARD_P2WSH_STACK_ITEMS,
  MAX_STANDARD_P2WSH_STACK_ITEM_SIZE,
  MAX_STANDARD_SCRIPTSIG_SIZE,
  MAX_STANDARD_TX_WEIGHT,
  TX_MAX_STANDARD_VERSION,
  type PolicyOptions,
} from './policy.ts';

/** Bare multisig beyond 3 keys is non-standard: larger ones are better served by P2SH/P2WSH. */
const MAX_STANDARD_BARE_MULTISIG_KEYS = 3;

/**
 * Size of the input that will spend an output, as Core estimates it for the dust rule: outpoint
 * (32 + 4), scriptSig length byte, a 107-byte signature + key, sequence (4). For witness programs
 * the 107 bytes move into the witness and count a quarter.
 */
const SPENDING_INPUT_SIZE = 32 + 4 + 1 + 107 + 4;
const SPENDING_WITNESS_INPUT_SIZE = 32 + 4 + 1 + Math.floor(107 / WITNESS_SCALE_FACTOR) + 4;

/**
 * Core's GetDustThreshold: what spending `out` would cost at `dustRelayFee` (the output's own
 * serialized size plus the input that spends it). Unspendable outputs are never dust.
 */
export function dustThreshold(out: TxOut, dustRelayFee: FeeRate): bigint {
  if (isUnspendable(out.scriptPubKey)) return 0n;
  const outputSize = 8 + compactSizeLength(out.scriptPubKey.length) + out.scriptPubKey.length;
  const inputSize = witnessProgram(out.scriptPubKey) !== null ? SPENDING_WITNESS_INPUT_SIZE : SPENDING_INPUT_SIZE;
  return feeForSize(dustRelayFee, outputSize + inputSize);
}

export function isDust(out: TxOut, dustRelayFee: FeeRate): boolean {
  return out.value < dustThreshold(out, dustRelayFee);
}

/** Core's IsStandard(scriptPubKey): the output type, or null when the script is not standard. */
export function standardOutputType(script: Uint8Array, opts: PolicyOptions): TxoutType | null {
  const { type, solutions } = solver(script);
  switch (type) {
    case 'multisig': {
      const required = solutions[0][0];
      const keys = solutions[solutions.length - 1][0];
      if (keys < 1 || keys > MAX_STANDARD_BARE_MULTISIG_KEYS || required < 1 || required > keys) return null;
      return type;
    }
    case 'nulldata':
      // OPoI payloads have their own bound (consensus decodes at most MAX_OPOI_PAYLOAD bytes).
      if (opoiPayloadBytes(script) !== null) return type;
      return opts.maxDatacarrierBytes !== null && script.length <= opts.maxDatacarrierBytes ? type : null;
    case 'nonstandard':
      // An OPoI escrow, bond or collateral: consensus fixes its form, value and spend.
      return isHeldScript(script) ? type : null;
    default:
      // Including witness_unknown: paying to a future witness version is standard, so wallets
      // can use it the day it activates; spending one is not (see areInputsStandard).
      return type;
  }
}

/**
 * Core's IsStandardTx: the checks that need only the transaction. Returns Core's reject reason,
 * or null for a standard transaction.
 */
export function standardTxViolation(tx: Transaction, opts: PolicyOptions, dustExempt = 0): string | null {
  if (tx.version > TX_MAX_STANDARD_VERSION || tx.version < 1) return 'version';
  if (tx.weight > MAX_STANDARD_TX_WEIGHT) return 'tx-size';
  for (const input of tx.inputs) {
    if (input.scriptSig.length > MAX_STANDARD_SCRIPTSIG_SIZE) return 'scriptsig-size';
    // Anything but pushes could make the signature check depend on more than the signatures.
    if (!isPushOnly(input.scriptSig)) return 'scriptsig-not-pushonly';
  }
  let dataOutputs = 0;
  for (let i = 0; i < tx.outputs.length; i++) {
    const out = tx.outputs[i];
    const type = standardOutputType(out.scriptPubKey, opts);
    if (type === null) return 'scriptpubkey';
    if (type === 'nulldata') dataOutputs++;
    else if (type === 'multisig' && !opts.permitBareMultisig) return 'bare-multisig';
    else if (i >= dustExempt && isDust(out, opts.dustRelayFee)) return 'dust';
  }
  if (dataOutputs > 1) return 'multi-op-return';
  return null;
}

/**
 * The redeem script a P2SH scriptSig reveals: the top of the stack after running it with no
 * checker (push-only is not required here; script verification enforces it later).
 */
function revealedRedeemScript(scriptSig: Uint8Array): Uint8Array | null {
  const stack: Uint8Array[] = [];
  if (evalScript(stack, scriptSig, ScriptFlags.NONE, NO_TX_CHECKER, SigVersion.BASE) !== null) return null;
  return stack.length > 0 ? stack[stack.length - 1] : null;
}

/**
 * Core's AreInputsStandard: every spent output has a standard type other than witness_unknown
 * (whose spend rules are reserved for a soft fork), and P2SH redeem scripts count at most 15
 * sigops. `spent[i]` is the output input i spends.
 */
export function areInputsStandard(tx: Transaction, spent: readonly TxOut[]): boolean {
  return tx.inputs.every((input, i) => {
    const { type } = solver(spent[i].scriptPubKey);
    if (isHeldScript(spent[i].scriptPubKey)) return input.scriptSig.length === 0;
    if (type === 'nonstandard' || type === 'witness_unknown') return false;
    if (type !== 'scripthash') return true;
    const redeemScript = revealedRedeemScript(input.scriptSig);
    return redeemScript !== null && legacySigOpCount(redeemScript, true) <= MAX_P2SH_SIGOPS;
  });
}

/**
 * Core's IsWitnessStandard: a witness only on inputs spending a witness program (native or in
 * P2SH), and P2WSH spends within the size limits above.
 */
export function isWitnessStandard(tx: Transaction, spent: readonly TxOut[]): boolean {
  return tx.inputs.every((input, i) => {
    // An empty witness cannot be bloated; if the spend needs one, script verification says so.
    if (input.witness.length === 0) return true;
    let script = spent[i].scriptPubKey;
    if (isPayToScriptHash(script)) {
      const redeemScript = revealedRedeemScript(input.scriptSig);
      if (redeemScript === null) return false;
      script = redeemScript;
    }
    const wp = witnessProgram(script);
    if (wp === null) return false;
    if (wp.version === 0 && wp.program.length === 32) {
      const stackItems = input.witness.length - 1;
      if (input.witness[stackItems].length > MAX_STANDARD_P2WSH_SCRIPT_SIZE) return false;
      if (stackItems > MAX_STANDARD_P2WSH_STACK_ITEMS) return false;
      for (let j = 0; j < stackItems; j++) {
        if (input.witness[j].length > MAX_STANDARD_P2WSH_STACK_ITEM_SIZE) return false;
      }
    }
    return true;
  });
}
