import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hash160, sha256 } from '../crypto/hash.ts';
import { ecdsaSign, publicKeyCreate, signatureToDER } from '../crypto/secp256k1.ts';
import { Transaction, type TxData, type TxOut } from '../primitives/tx.ts';
import { parseShortScript } from './asm.ts';
import { NO_TX_CHECKER, TransactionSignatureChecker } from './checker.ts';
import { MANDATORY_SCRIPT_VERIFY_FLAGS, STANDARD_SCRIPT_VERIFY_FLAGS, ScriptFlags } from './flags.ts';
import { evalScript, verifyInput, verifyScript } from './interpreter.ts';
import { ScriptBuilder } from './script.ts';
import { PrecomputedTxData, SIGHASH_ALL, SIGHASH_ANYONECANPAY, SIGHASH_NONE, SIGHASH_SINGLE, SigVersion, signatureHash } from './sighash.ts';
import { multisigScript, p2pkhScript, p2shScript, p2wpkhScript, p2wshScript } from './standard.ts';
import { highS } from '../../test/signatures.ts';

const keys = [1, 2, 3].map((n) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0x5a)));
const pubs = keys.map((k) => publicKeyCreate(k, true));
const HASH_TYPES = [SIGHASH_ALL, SIGHASH_NONE, SIGHASH_SINGLE].flatMap((t) => [t, t | SIGHASH_ANYONECANPAY]);

function sign(
  tx: TxData,
  index: number,
  scriptCode: Uint8Array,
  amount: bigint,
  hashType: number,
  sigversion: SigVersion,
  key: Uint8Array,
): Uint8Array {
  const digest = signatureHash(scriptCode, tx, index, hashType, amount, sigversion);
  const der = signatureToDER(ecdsaSign(digest, key).signature);
  return Uint8Array.from([...der, hashType]);
}

/** A transaction spending `spent` (one input each) to two outputs; inputs are filled in by `fill`. */
function spendingTx(spent: TxOut[], fill: (tx: TxData, i: number) => Pick<TxData['inputs'][number], 'scriptSig' | 'witness'>): Transaction {
  const skeleton: TxData = {
    version: 2,
    locktime: 0,
    inputs: spent.map((_, i) => ({
      prevout: { txid: new Uint8Array(32).fill(7), vout: i },
      scriptSig: new Uint8Array(0),
      sequence: 0xfffffffe,
      witness: [],
    })),
    outputs: [
      { value: 1000n, scriptPubKey: p2pkhScript(hash160(pubs[0])) },
      { value: 2000n, scriptPubKey: p2wpkhScript(hash160(pubs[1])) },
    ],
  };
  return new Transaction({ ...skeleton, inputs: skeleton.inputs.map((input, i) => ({ ...input, ...fill(skeleton, i) })) });
}

function verifyAll(tx: Transaction, spent: TxOut[], flags: number): string[] {
  const txdata = new PrecomputedTxData(tx);
  return tx.inputs.map((_, i) => {
    const r = verifyInput(tx, i, spent[i], flags, txdata);
    return r.ok ? 'OK' : r.error;
  });
}

test('signing and verifying P2PKH, P2WPKH, P2SH-P2WPKH and P2SH-P2WSH multisig with every sighash type', (t) => {
  let checked = 0;
  for (const hashType of HASH_TYPES) {
    const redeemWpkh = p2wpkhScript(hash160(pubs[1]));
    const witnessScript = multisigScript(2, pubs);
    const redeemWsh = p2wshScript(sha256(witnessScript));
    const spent: TxOut[] = [
      { value: 50_000n, scriptPubKey: p2pkhScript(hash160(pubs[0])) },
      { value: 60_000n, scriptPubKey: p2wpkhScript(hash160(pubs[1])) },
      { value: 70_000n, scriptPubKey: p2shScript(hash160(redeemWpkh)) },
      { value: 80_000n, scriptPubKey: p2shScript(hash160(redeemWsh)) },
    ];
    const tx = spendingTx(spent, (skel, i) => {
      const amount = spent[i].value;
      switch (i) {
        case 0: {
          const sig = sign(skel, 0, spent[0].scriptPubKey, amount, hashType, SigVersion.BASE, keys[0]);
          return { scriptSig: new ScriptBuilder().push(sig).push(pubs[0]).build(), witness: [] };
        }
        case 1:
        case 2: {
          // The P2WPKH scriptCode is the P2PKH script of the key hash (BIP143).
          const sig = sign(skel, i, p2pkhScript(hash160(pubs[1])), amount, hashType, SigVersion.WITNESS_V0, keys[1]);
          const scriptSig = i === 2 ? new ScriptBuilder().push(redeemWpkh).build() : new Uint8Array(0);
          return { scriptSig, witness: [sig, pubs[1]] };
        }
        default: {
          const sigs = [keys[0], keys[2]].map((k) => sign(skel, 3, witnessScript, amount, hashType, SigVersion.WITNESS_V0, k));
          return { scriptSig: new ScriptBuilder().push(redeemWsh).build(), witness: [new Uint8Array(0), ...sigs, witnessScript] };
        }
      }
    });
    assert.deepEqual(verifyAll(tx, spent, STANDARD_SCRIPT_VERIFY_FLAGS), ['OK', 'OK', 'OK', 'OK'], `hash type ${hashType}`);
    // Signatures in the wrong order fail CHECKMULTISIG; under NULLFAIL that is a NULLFAIL error.
    const w = tx.inputs[3].witness;
    const swapped = new Transaction({
      ...tx,
      inputs: tx.inputs.map((input, i) => (i === 3 ? { ...input, witness: [w[0], w[2], w[1], w[3]] } : input)),
    });
    assert.equal(verifyAll(swapped, spent, STANDARD_SCRIPT_VERIFY_FLAGS)[3], 'NULLFAIL');
    assert.equal(verifyAll(swapped, spent, MANDATORY_SCRIPT_VERIFY_FLAGS)[3], 'EVAL_FALSE');
    checked += 4;
  }
  t.diagnostic(`${checked} inputs signed and verified`);
});

test('consensus accepts high-S signatures (normalized before verifying); LOW_S policy rejects them', () => {
  const spent: TxOut[] = [{ value: 10_000n, scriptPubKey: p2wpkhScript(hash160(pubs[0])) }];
  const tx = spendingTx(spent, (skel) => {
    const digest = signatureHash(p2pkhScript(hash160(pubs[0])), skel, 0, SIGHASH_ALL, spent[0].value, SigVersion.WITNESS_V0);
    const sig = highS(ecdsaSign(digest, keys[0]).signature);
    return { scriptSig: new Uint8Array(0), witness: [Uint8Array.from([...signatureToDER(sig), SIGHASH_ALL]), pubs[0]] };
  });
  assert.deepEqual(verifyAll(tx, spent, MANDATORY_SCRIPT_VERIFY_FLAGS), ['OK']);
  assert.deepEqual(verifyAll(tx, spent, MANDATORY_SCRIPT_VERIFY_FLAGS | ScriptFlags.LOW_S), ['SIG_HIGH_S']);
});

test('the signature checker is injectable: a cache can wrap verifyEcdsa', () => {
  class CachingChecker extends TransactionSignatureChecker {
    static cache = new Set<string>();
    static verified = 0;
    override verifyEcdsa(der: Uint8Array, pubkey: Uint8Array, sighash: Uint8Array): boolean {
      const key = Buffer.concat([sighash, der, pubkey]).toString('hex');
      if (CachingChecker.cache.has(key)) return true;
      CachingChecker.verified++;
      const ok = super.verifyEcdsa(der, pubkey, sighash);
      if (ok) CachingChecker.cache.add(key);
      return ok;
    }
  }
  const spent: TxOut[] = [{ value: 5_000n, scriptPubKey: p2wpkhScript(hash160(pubs[2])) }];
  const tx = spendingTx(spent, (skel) => ({
    scriptSig: new Uint8Array(0),
    witness: [sign(skel, 0, p2pkhScript(hash160(pubs[2])), spent[0].value, SIGHASH_ALL, SigVersion.WITNESS_V0, keys[2]), pubs[2]],
  }));
  const input = tx.inputs[0];
  for (let run = 0; run < 3; run++) {
    const checker = new CachingChecker(tx, 0, spent[0].value);
    assert.ok(verifyScript(input.scriptSig, spent[0].scriptPubKey, input.witness, STANDARD_SCRIPT_VERIFY_FLAGS, checker).ok);
  }
  assert.equal(CachingChecker.verified, 1);
});

test('lock-time checks compare like with like (BIP65, BIP112)', () => {
  const make = (version: number, locktime: number, sequence: number) =>
    new TransactionSignatureChecker(
      {
        version,
        locktime,
        inputs: [{ prevout: { txid: new Uint8Array(32), vout: 0 }, scriptSig: new Uint8Array(0), sequence, witness: [] }],
        outputs: [],
      },
      0,
      0n,
    );
  assert.ok(make(1, 100, 0).checkLockTime(100));
  assert.ok(!make(1, 100, 0).checkLockTime(101));
  assert.ok(!make(1, 100, 0xffffffff).checkLockTime(100)); // final input
  assert.ok(!make(1, 600_000_000, 0).checkLockTime(100)); // time vs height
  assert.ok(make(1, 600_000_000, 0).checkLockTime(500_000_000));
  assert.ok(make(2, 0, 10).checkSequence(10));
  assert.ok(!make(2, 0, 10).checkSequence(11));
  assert.ok(!make(1, 0, 10).checkSequence(10)); // BIP68 needs version 2
  assert.ok(make(-1, 0, 10).checkSequence(10)); // version compared unsigned
  assert.ok(!make(2, 0, (1 << 22) | 10).checkSequence(10)); // time vs blocks
  assert.ok(!make(2, 0, 0x80000000 | 10).checkSequence(10)); // input opted out
  assert.ok(make(2, 0, 10).checkSequence(2 ** 32 + 10)); // only the masked bits count
});

test('evaluation without a transaction, and rejected flag combinations', () => {
  const stack: Uint8Array[] = [];
  assert.equal(evalScript(stack, parseShortScript('2 3 ADD 5 NUMEQUAL'), 0, NO_TX_CHECKER, SigVersion.BASE), null);
  assert.deepEqual(stack, [Uint8Array.of(1)]);
  const sigCheck: Uint8Array[] = [];
  assert.equal(evalScript(sigCheck, parseShortScript(`0 0x21 0x02${'11'.repeat(32)} CHECKSIG`), 0, NO_TX_CHECKER, SigVersion.BASE), null);
  assert.deepEqual(sigCheck, [new Uint8Array(0)]);
  assert.equal(evalScript([], new Uint8Array(10_001), 0, NO_TX_CHECKER, SigVersion.BASE), 'SCRIPT_SIZE');
  assert.throws(() => verifyScript(new Uint8Array(0), Uint8Array.of(0x51), [], ScriptFlags.WITNESS, NO_TX_CHECKER), RangeError);
  assert.throws(() => verifyScript(new Uint8Array(0), Uint8Array.of(0x51), [], ScriptFlags.P2SH | ScriptFlags.CLEANSTACK, NO_TX_CHECKER), RangeError);
});

test('no taproot: witness v1+ outputs are anyone-can-spend by consensus and non-standard to spend', () => {
  const taprootShaped = Uint8Array.from([0x51, 0x20, ...new Uint8Array(32).fill(9)]);
  const v16 = Uint8Array.from([0x60, 0x02, 0xab, 0xcd]);
  for (const scriptPubKey of [taprootShaped, v16]) {
    const witness = [Uint8Array.of(1, 2, 3)];
    assert.ok(verifyScript(new Uint8Array(0), scriptPubKey, witness, MANDATORY_SCRIPT_VERIFY_FLAGS, NO_TX_CHECKER).ok);
    const r = verifyScript(new Uint8Array(0), scriptPubKey, witness, STANDARD_SCRIPT_VERIFY_FLAGS, NO_TX_CHECKER);
    assert.deepEqual(r, { ok: false, error: 'DISCOURAGE_UPGRADABLE_WITNESS_PROGRAM' });
    // Still a witness program: a scriptSig would make the spend malleable.
    const malleated = verifyScript(Uint8Array.of(0x51), scriptPubKey, witness, MANDATORY_SCRIPT_VERIFY_FLAGS, NO_TX_CHECKER);
    assert.deepEqual(malleated, { ok: false, error: 'WITNESS_MALLEATED' });
  }
});
