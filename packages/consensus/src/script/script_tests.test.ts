import { test } from 'node:test';
import assert from 'node:assert/strict';
import { prng } from '../../test/fuzz.ts';
import { readVector } from '../../test/vectors.ts';
import { fromHex } from '../encoding/hex.ts';
import { NULL_OUTPOINT, SEQUENCE_FINAL, Transaction } from '../primitives/tx.ts';
import { parseShortScript } from './asm.ts';
import { TransactionSignatureChecker } from './checker.ts';
import { ScriptFlags, isValidFlagCombination, parseScriptFlags } from './flags.ts';
import { verifyScript } from './interpreter.ts';

/**
 * Bitcoin Core's script_tests.json, run as Core's script_tests.cpp does: each case spends a
 * crediting transaction's single output with a one-input transaction, and must end with exactly
 * the expected ScriptError. As in Core, a passing case must keep passing with flags removed and a
 * failing one keep failing with flags added.
 */

type Row = unknown[];

/** Core's flag names for taproot, which this chain does not implement. */
const UNSUPPORTED_FLAGS = ['TAPROOT', 'DISCOURAGE_UPGRADABLE_TAPROOT_VERSION', 'DISCOURAGE_OP_SUCCESS', 'DISCOURAGE_UPGRADABLE_PUBKEYTYPE'];

function creditingTx(scriptPubKey: Uint8Array, value: bigint): Transaction {
  return new Transaction({
    version: 1,
    locktime: 0,
    inputs: [{ prevout: NULL_OUTPOINT, scriptSig: Uint8Array.of(0x00, 0x00), sequence: SEQUENCE_FINAL, witness: [] }],
    outputs: [{ value, scriptPubKey }],
  });
}

function spendingTx(scriptSig: Uint8Array, witness: Uint8Array[], credit: Transaction): Transaction {
  return new Transaction({
    version: 1,
    locktime: 0,
    inputs: [{ prevout: { txid: credit.txid, vout: 0 }, scriptSig, sequence: SEQUENCE_FINAL, witness }],
    outputs: [{ value: credit.outputs[0].value, scriptPubKey: new Uint8Array(0) }],
  });
}

test('script_tests.json: every case ends with the expected script error', (t) => {
  const rows = readVector<Row[]>('bitcoin-core/script_tests.json');
  const rand = prng(0x5c0de); // seeded: the flag variations are the same on every run
  const skipped = new Map<string, number>();
  let passed = 0;
  let variations = 0;
  const failures: string[] = [];

  for (const row of rows) {
    if (row.length < 4) continue; // comments
    const witnessItems = Array.isArray(row[0]) ? (row[0] as (string | number)[]) : null;
    const [sigText, pubKeyText, flagText, expected] = row.slice(witnessItems ? 1 : 0) as string[];
    const label = JSON.stringify(row);

    const unsupported = flagText.split(',').filter((f) => UNSUPPORTED_FLAGS.includes(f));
    if (unsupported.length > 0) {
      const reason = `unsupported flag ${unsupported.join(',')} (no taproot)`;
      skipped.set(reason, (skipped.get(reason) ?? 0) + 1);
      continue;
    }
    // The witness array ends with the spent amount, in coins.
    const witness = witnessItems ? witnessItems.slice(0, -1).map((w) => fromHex(String(w))) : [];
    const amount = witnessItems ? BigInt(Math.round(Number(witnessItems[witnessItems.length - 1]) * 1e8)) : 0n;

    let flags = parseScriptFlags(flagText);
    // As Core's DoTest: CLEANSTACK is only defined together with P2SH and WITNESS.
    if (flags & ScriptFlags.CLEANSTACK) flags |= ScriptFlags.P2SH | ScriptFlags.WITNESS;
    const scriptSig = parseShortScript(sigText);
    const scriptPubKey = parseShortScript(pubKeyText);
    const credit = creditingTx(scriptPubKey, amount);
    const spend = spendingTx(scriptSig, witness, credit);
    const checker = new TransactionSignatureChecker(spend, 0, amount);

    const result = verifyScript(scriptSig, scriptPubKey, witness, flags, checker);
    const got = result.ok ? 'OK' : result.error;
    if (got !== expected) {
      failures.push(`${got} (expected ${expected}): ${label}`);
      continue;
    }

    // Removing flags from a passing case or adding flags to a failing one keeps the outcome.
    const expectOk = expected === 'OK';
    let stable = true;
    for (let i = 0; i < 16; i++) {
      const extra = rand() & 0xffff;
      const combined = expectOk ? flags & ~extra : flags | extra;
      if (!isValidFlagCombination(combined)) continue;
      variations++;
      if (verifyScript(scriptSig, scriptPubKey, witness, combined, checker).ok !== expectOk) {
        failures.push(`outcome changed with flags 0x${combined.toString(16)}: ${label}`);
        stable = false;
      }
    }
    if (stable) passed++;
  }

  const skipCount = [...skipped.values()].reduce((a, b) => a + b, 0);
  t.diagnostic(`passed ${passed}, skipped ${skipCount}, flag variations checked ${variations}`);
  for (const [reason, n] of skipped) t.diagnostic(`skipped ${n}: ${reason}`);
  assert.deepEqual(failures, []);
  assert.equal(passed + skipCount, 1222, 'every case of the file ran or was skipped');
});
