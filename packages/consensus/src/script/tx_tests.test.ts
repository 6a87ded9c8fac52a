import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readVector } from '../../test/vectors.ts';
import { fromHex, hashFromHex } from '../encoding/hex.ts';
import { Transaction, outpointKey } from '../primitives/tx.ts';
import { ValidationError } from '../validation/errors.ts';
import { checkTransaction } from '../validation/tx-checks.ts';
import { parseShortScript } from './asm.ts';
import { TransactionSignatureChecker } from './checker.ts';
import { ALL_SCRIPT_FLAGS, ScriptFlags, type ScriptFlagName, isValidFlagCombination, parseScriptFlags } from './flags.ts';
import { verifyScript } from './interpreter.ts';
import { PrecomputedTxData } from './sighash.ts';

/**
 * Core's tx_valid.json and tx_invalid.json, checked as transaction_tests.cpp does: whole
 * transactions against their spent outputs, and for each case that the flags are tight (adding an
 * excluded flag breaks a valid transaction, removing a flag rescues an invalid one) while
 * unrelated flag changes keep the outcome.
 */

type Prevout = { script: Uint8Array; amount: bigint };
type Case = { label: string; tx: Transaction; prevouts: Map<string, Prevout>; flagText: string };

function loadCases(file: string): Case[] {
  const cases: Case[] = [];
  for (const row of readVector<unknown[][]>(`bitcoin-core/${file}`)) {
    if (!Array.isArray(row[0])) continue; // comments
    const [inputs, txHex, flagText] = row as [[string, number, string, number?][], string, string];
    const prevouts = new Map<string, Prevout>();
    for (const [txid, vout, script, amount] of inputs) {
      prevouts.set(outpointKey({ txid: hashFromHex(txid), vout: vout >>> 0 }), {
        script: parseShortScript(script),
        amount: BigInt(amount ?? 0),
      });
    }
    cases.push({ label: JSON.stringify(row), tx: Transaction.decode(fromHex(txHex)), prevouts, flagText });
  }
  return cases;
}

/** Core's CheckTxScripts: true iff every input verifies under `flags`. */
function scriptsValid(c: Case, flags: number): boolean {
  const txdata = new PrecomputedTxData(c.tx);
  return c.tx.inputs.every((input, i) => {
    const prev = c.prevouts.get(outpointKey(input.prevout));
    if (prev === undefined) throw new Error(`test lacks prevout of input ${i}: ${c.label}`);
    const checker = new TransactionSignatureChecker(c.tx, i, prev.amount, txdata);
    return verifyScript(input.scriptSig, prev.script, input.witness, flags, checker).ok;
  });
}

const FLAG_BITS = (Object.keys(ScriptFlags) as (keyof typeof ScriptFlags)[])
  .filter((n): n is ScriptFlagName => n !== 'NONE')
  .map((n) => ScriptFlags[n]);

/** Core's TrimFlags: drop flags whose prerequisites are missing. */
function trimFlags(flags: number): number {
  if (!(flags & ScriptFlags.P2SH)) flags &= ~ScriptFlags.WITNESS;
  if (!(flags & ScriptFlags.WITNESS)) flags &= ~ScriptFlags.CLEANSTACK;
  return flags;
}

/** Core's FillFlags: add the prerequisites of set flags. */
function fillFlags(flags: number): number {
  if (flags & ScriptFlags.CLEANSTACK) flags |= ScriptFlags.WITNESS;
  if (flags & ScriptFlags.WITNESS) flags |= ScriptFlags.P2SH;
  return flags;
}

/** Core's ExcludeIndividualFlags: `flags` minus one flag (trimmed), each distinct result once. */
function excludeIndividualFlags(flags: number): Set<number> {
  const out = new Set<number>();
  for (const bit of FLAG_BITS) {
    const without = trimFlags(flags & ~bit);
    if (without !== flags) out.add(without);
  }
  return out;
}

const all = (excluded: number): number => ALL_SCRIPT_FLAGS & ~excluded;

function rejectedByCheckTransaction(tx: Transaction): string | null {
  try {
    checkTransaction(tx);
    return null;
  } catch (e) {
    if (e instanceof ValidationError) return e.reason;
    throw e;
  }
}

test('tx_valid.json: valid transactions verify, with exactly the listed flags excluded', (t) => {
  const cases = loadCases('tx_valid.json');
  for (const c of cases) {
    assert.equal(rejectedByCheckTransaction(c.tx), null, c.label);
    const excluded = parseScriptFlags(c.flagText);
    assert.ok(isValidFlagCombination(all(excluded)), `bad test flags: ${c.label}`);
    assert.ok(scriptsValid(c, all(excluded)), `unexpectedly invalid: ${c.label}`);
    // Removing any further flag must not invalidate a valid transaction.
    for (const bit of FLAG_BITS) {
      assert.ok(scriptsValid(c, trimFlags(all(excluded | bit))), `invalid without flag 0x${bit.toString(16)}: ${c.label}`);
    }
    // The exclusions are needed: putting any one back makes the transaction fail.
    for (const fewer of excludeIndividualFlags(excluded)) {
      assert.ok(!scriptsValid(c, all(fewer)), `valid with flags 0x${all(fewer).toString(16)}: ${c.label}`);
    }
  }
  t.diagnostic(`passed ${cases.length}, skipped 0`);
  assert.equal(cases.length, 121);
});

test('tx_invalid.json: invalid transactions fail, with exactly the listed flags needed', (t) => {
  const cases = loadCases('tx_invalid.json');
  let badTx = 0;
  for (const c of cases) {
    // BADTX cases break a context-free rule (validation/tx-checks.ts), not a script rule.
    const reason = rejectedByCheckTransaction(c.tx);
    if (reason !== null) {
      assert.equal(c.flagText, 'BADTX', `${reason}: ${c.label}`);
      badTx++;
      continue;
    }
    const flags = parseScriptFlags(c.flagText);
    assert.equal(fillFlags(flags), flags, `bad test flags: ${c.label}`);
    assert.ok(!scriptsValid(c, flags), `unexpectedly valid: ${c.label}`);
    // Adding any flag must not validate an invalid transaction.
    for (const bit of FLAG_BITS) {
      assert.ok(!scriptsValid(c, fillFlags(flags | bit)), `valid with flag 0x${bit.toString(16)}: ${c.label}`);
    }
    // Every listed flag is needed: without any one of them the transaction is valid.
    for (const fewer of excludeIndividualFlags(flags)) {
      assert.ok(scriptsValid(c, fewer), `invalid with flags 0x${fewer.toString(16)}: ${c.label}`);
    }
  }
  t.diagnostic(`passed ${cases.length} (${badTx} rejected by checkTransaction as BADTX), skipped 0`);
  assert.equal(badTx, 9);
  assert.equal(cases.length, 93);
});
