import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fromHex } from '../encoding/hex.ts';
import { NULL_OUTPOINT, SEQUENCE_FINAL, Transaction, type TxIn } from '../primitives/tx.ts';
import { parseShortScript } from './asm.ts';
import { MANDATORY_SCRIPT_VERIFY_FLAGS, ScriptFlags } from './flags.ts';
import { ScriptBuilder } from './script.ts';
import {
  countWitnessSigOps,
  getLegacySigOpCount,
  getP2SHSigOpCount,
  getTransactionSigOpCost,
  legacySigOpCount,
  scriptHashSigOpCount,
} from './sigops.ts';
import { multisigScript, p2pkhScript, p2shScript, p2wpkhScript, p2wshScript } from './standard.ts';

const KEY = fromHex(`02${'11'.repeat(32)}`);
const H20 = new Uint8Array(20);
const MULTI_2_OF_3 = multisigScript(2, [KEY, KEY, KEY]);

function input(scriptSig: Uint8Array, witness: Uint8Array[] = [], vout = 0): TxIn {
  return { prevout: { txid: new Uint8Array(32).fill(1), vout }, scriptSig, sequence: SEQUENCE_FINAL, witness };
}

test('legacy sigop counting, accurate and not', () => {
  assert.equal(legacySigOpCount(parseShortScript('CHECKSIG CHECKSIGVERIFY'), false), 2);
  assert.equal(legacySigOpCount(MULTI_2_OF_3, true), 3);
  assert.equal(legacySigOpCount(MULTI_2_OF_3, false), 20);
  assert.equal(legacySigOpCount(parseShortScript('CHECKMULTISIGVERIFY'), true), 20); // no OP_n before it
  assert.equal(legacySigOpCount(parseShortScript('0 CHECKMULTISIG'), true), 20); // OP_0 is not OP_1..OP_16
  // Counting stops at a truncated push; pushed bytes that look like CHECKSIG do not count.
  assert.equal(legacySigOpCount(fromHex('ac01ac'), false), 1);
  assert.equal(legacySigOpCount(fromHex('acac4c'), false), 2);
});

test('P2SH sigops come from the redeem script, only for push-only scriptSigs', () => {
  const p2sh = p2shScript(H20);
  const push = (s: Uint8Array) => new ScriptBuilder().op(0).push(s).build();
  assert.equal(scriptHashSigOpCount(p2sh, push(MULTI_2_OF_3)), 3);
  assert.equal(scriptHashSigOpCount(p2sh, new ScriptBuilder().push(MULTI_2_OF_3).op(0x61).build()), 0); // NOP: not push-only
  assert.equal(scriptHashSigOpCount(p2sh, fromHex('4c')), 0);
  assert.equal(scriptHashSigOpCount(p2pkhScript(H20), push(MULTI_2_OF_3)), 1); // not P2SH: its own count
});

test('witness sigops: P2WPKH, P2WSH, P2SH-wrapped, and not without WITNESS', () => {
  const flags = MANDATORY_SCRIPT_VERIFY_FLAGS;
  assert.equal(countWitnessSigOps(new Uint8Array(0), p2wpkhScript(H20), [], flags), 1);
  assert.equal(countWitnessSigOps(new Uint8Array(0), p2wshScript(new Uint8Array(32)), [new Uint8Array(0), MULTI_2_OF_3], flags), 3);
  assert.equal(countWitnessSigOps(new Uint8Array(0), p2wshScript(new Uint8Array(32)), [], flags), 0);
  const wrapped = new ScriptBuilder().push(p2wpkhScript(H20)).build();
  assert.equal(countWitnessSigOps(wrapped, p2shScript(H20), [], flags), 1);
  assert.equal(countWitnessSigOps(new Uint8Array(0), p2wpkhScript(H20), [], ScriptFlags.P2SH), 0);
  assert.equal(countWitnessSigOps(new Uint8Array(0), fromHex(`5114${'00'.repeat(20)}`), [], flags), 0); // unknown version
});

test('transaction sigop cost: legacy and P2SH count 4, witness 1', () => {
  const tx = new Transaction({
    version: 2,
    locktime: 0,
    inputs: [
      input(new ScriptBuilder().push(new Uint8Array(72)).push(KEY).build(), [], 0),
      input(new ScriptBuilder().op(0).push(new Uint8Array(72)).push(MULTI_2_OF_3).build(), [], 1),
      input(new Uint8Array(0), [new Uint8Array(72), KEY], 2),
    ],
    outputs: [
      { value: 1n, scriptPubKey: p2pkhScript(H20) },
      { value: 1n, scriptPubKey: p2shScript(H20) },
    ],
  });
  const spent = [p2pkhScript(H20), p2shScript(H20), p2wpkhScript(H20)];
  assert.equal(getLegacySigOpCount(tx), 1);
  assert.equal(getP2SHSigOpCount(tx, spent), 3);
  assert.equal(getTransactionSigOpCost(tx, spent, MANDATORY_SCRIPT_VERIFY_FLAGS), 1 * 4 + 3 * 4 + 1);
  assert.equal(getTransactionSigOpCost(tx, spent, ScriptFlags.NONE), 4);
  assert.throws(() => getTransactionSigOpCost(tx, spent.slice(1), MANDATORY_SCRIPT_VERIFY_FLAGS), RangeError);

  const coinbase = new Transaction({
    version: 1,
    locktime: 0,
    inputs: [{ prevout: NULL_OUTPOINT, scriptSig: parseShortScript('1 CHECKSIG'), sequence: SEQUENCE_FINAL, witness: [] }],
    outputs: [{ value: 1n, scriptPubKey: MULTI_2_OF_3 }],
  });
  assert.equal(getTransactionSigOpCost(coinbase, [], MANDATORY_SCRIPT_VERIFY_FLAGS), (1 + 20) * 4);
});
