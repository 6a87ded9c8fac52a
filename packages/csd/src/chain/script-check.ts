import { PrecomputedTxData, scriptErrorString, verifyInput, type ScriptError, type Transaction, type TxOut } from '@cs/consensus';

/** One transaction's inputs, with the outputs those inputs spend. */
export interface ScriptCheckItem {
  readonly tx: Transaction;
  /** Index (in the block) of the transaction, for error reports. */
  readonly txIndex: number;
  /** spent[i] is the output spent by input i. */
  readonly spent: readonly TxOut[];
}

export interface ScriptFailure {
  readonly txIndex: number;
  readonly input: number;
  readonly error: ScriptError;
}

/** Verifies every input of the items under `flags`; the first failure, or null. */
export function runScriptChecks(items: readonly ScriptCheckItem[], flags: number): ScriptFailure | null {
  for (const item of items) {
    // One PrecomputedTxData per transaction: BIP143's hashPrevouts/hashSequence/hashOutputs are
    // computed once however many inputs it has.
    const txdata = new PrecomputedTxData(item.tx);
    for (let i = 0; i < item.tx.inputs.length; i++) {
      const r = verifyInput(item.tx, i, item.spent[i], flags, txdata);
      if (!r.ok) return { txIndex: item.txIndex, input: i, error: r.error };
    }
  }
  return null;
}

export function describeScriptFailure(f: ScriptFailure): string {
  return `mandatory-script-verify-flag-failed (${scriptErrorString(f.error)})`;
}
