import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { sha256 } from '../crypto/hash.ts';
import { ecdsaSign, signatureToDER } from '../crypto/secp256k1.ts';
import { fromHex, toHex } from '../encoding/hex.ts';
import { Transaction, type TxOut } from '../primitives/tx.ts';
import { MANDATORY_SCRIPT_VERIFY_FLAGS, STANDARD_SCRIPT_VERIFY_FLAGS } from './flags.ts';
import { verifyInput } from './interpreter.ts';
import { PrecomputedTxData, witnessV0SignatureHash } from './sighash.ts';
import { p2wshScript } from './standard.ts';

/** The worked examples of BIP143, transcribed into bip143_vectors.json beside this file. */

interface Prevout {
  scriptPubKey?: string;
  witnessScript?: string;
  amount: number;
}
interface Example {
  name: string;
  unsignedTx: string;
  prevouts: Prevout[];
  hashPrevouts?: string;
  hashSequence?: string;
  hashOutputs?: string;
  signatures: { input: number; scriptCode: string; hashType: number; sigHash: string; privateKey?: string; signature?: string }[];
  signedTx: string;
  swapped?: { signedTx: string; prevouts: Prevout[] };
  flags?: 'mandatory';
}

const { examples } = JSON.parse(readFileSync(new URL('./bip143_vectors.json', import.meta.url), 'utf8')) as { examples: Example[] };

function spentOutputs(prevouts: Prevout[]): TxOut[] {
  return prevouts.map((p) => ({
    value: BigInt(p.amount),
    scriptPubKey: p.witnessScript !== undefined ? p2wshScript(sha256(fromHex(p.witnessScript))) : fromHex(p.scriptPubKey!),
  }));
}

function verifyAll(txHex: string, spent: TxOut[], flags: number): string[] {
  const tx = Transaction.decode(fromHex(txHex));
  const txdata = new PrecomputedTxData(tx);
  return tx.inputs.map((_, i) => {
    const r = verifyInput(tx, i, spent[i], flags, txdata);
    return r.ok ? 'OK' : r.error;
  });
}

for (const ex of examples) {
  test(`BIP143 ${ex.name}: sighashes, deterministic signatures, verification`, (t) => {
    const tx = Transaction.decode(fromHex(ex.unsignedTx));
    const txdata = new PrecomputedTxData(tx);
    if (ex.hashPrevouts) assert.equal(toHex(txdata.hashPrevouts), ex.hashPrevouts);
    if (ex.hashSequence) assert.equal(toHex(txdata.hashSequence), ex.hashSequence);
    if (ex.hashOutputs) assert.equal(toHex(txdata.hashOutputs), ex.hashOutputs);

    const spent = spentOutputs(ex.prevouts);
    for (const s of ex.signatures) {
      const amount = spent[s.input].value;
      const sighash = witnessV0SignatureHash(fromHex(s.scriptCode), tx, s.input, s.hashType, amount, txdata);
      assert.equal(toHex(sighash), s.sigHash, `sighash type ${s.hashType}`);
      // Without precomputed data the same digest comes out.
      assert.equal(toHex(witnessV0SignatureHash(fromHex(s.scriptCode), tx, s.input, s.hashType, amount)), s.sigHash);
      if (s.privateKey && s.signature) {
        const { signature } = ecdsaSign(sighash, fromHex(s.privateKey));
        assert.equal(toHex(signatureToDER(signature)), s.signature, 'RFC6979 signature differs');
      }
    }

    const flags = ex.flags === 'mandatory' ? MANDATORY_SCRIPT_VERIFY_FLAGS : STANDARD_SCRIPT_VERIFY_FLAGS;
    const results = verifyAll(ex.signedTx, spent, flags);
    assert.deepEqual(
      results,
      results.map(() => 'OK'),
    );
    if (ex.swapped) {
      const swapped = verifyAll(ex.swapped.signedTx, spentOutputs(ex.swapped.prevouts), flags);
      assert.deepEqual(
        swapped,
        swapped.map(() => 'OK'),
      );
    }

    // The amount is committed to: claiming one more base unit breaks every witness signature.
    const inflated = spent.map((o) => ({ ...o, value: o.value + 1n }));
    const signed = Transaction.decode(fromHex(ex.signedTx));
    const witnessInputs = signed.inputs.flatMap((input, i) => (input.witness.length > 0 ? [i] : []));
    const withWrongAmount = verifyAll(ex.signedTx, inflated, flags);
    for (const i of witnessInputs) assert.notEqual(withWrongAmount[i], 'OK', `input ${i} ignores its amount`);
    t.diagnostic(`${ex.signatures.length} sighashes, ${results.length} inputs verified`);
  });
}

test('BIP143 vectors: all seven examples present', () => {
  assert.equal(examples.length, 7);
});
