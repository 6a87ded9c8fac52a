import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hash160 } from '../crypto/hash.ts';
import { CURVE_ORDER, ecdsaSign, publicKeyConvert, publicKeyCreate, signatureToDER } from '../crypto/secp256k1.ts';
import { toHex } from '../encoding/hex.ts';
import { Transaction, type TxData } from '../primitives/tx.ts';
import { type SignatureChecker, TransactionSignatureChecker } from './checker.ts';
import { ScriptFlags } from './flags.ts';
import { castToBool, evalScript, verifyScript } from './interpreter.ts';
import { pushData } from './script.ts';
import { PrecomputedTxData, SIGHASH_ALL, SIGHASH_ANYONECANPAY, SIGHASH_NONE, SIGHASH_SINGLE, SigVersion, signatureHash } from './sighash.ts';
import { p2pkhScript, p2shScript, p2wpkhScript } from './standard.ts';
import { highS } from '../../test/signatures.ts';

/**
 * P2WPKH spends skip the stack machine (interpreter.ts: verifyP2wpkhSpend, executeP2wpkh). These
 * tests hold them to the generic path, EvalScript on the implied P2PKH script as Core runs it, for
 * well-formed and malformed witnesses under every combination of the flags that matter there.
 */

/** The generic witness v0 keyhash evaluation (Core's ExecuteWitnessScript on DUP HASH160 <program> EQUALVERIFY CHECKSIG). */
function genericWitness(witness: readonly Uint8Array[], program: Uint8Array, flags: number, checker: SignatureChecker): string {
  if (witness.length !== 2) return 'WITNESS_PROGRAM_MISMATCH';
  const stack = [...witness];
  for (const item of stack) if (item.length > 520) return 'PUSH_SIZE';
  const error = evalScript(stack, p2pkhScript(program), flags, checker, SigVersion.WITNESS_V0);
  if (error !== null) return error;
  if (stack.length !== 1) return 'CLEANSTACK';
  return castToBool(stack[0]) ? 'OK' : 'EVAL_FALSE';
}

/** The generic VerifyScript for an empty scriptSig and a v0 keyhash scriptPubKey under WITNESS. */
function genericNative(witness: readonly Uint8Array[], scriptPubKey: Uint8Array, flags: number, checker: SignatureChecker): string {
  const stack: Uint8Array[] = [];
  const error = evalScript(stack, scriptPubKey, flags, checker, SigVersion.BASE);
  if (error !== null) return error;
  if (stack.length === 0 || !castToBool(stack[stack.length - 1])) return 'EVAL_FALSE';
  return genericWitness(witness, scriptPubKey.subarray(2), flags, checker);
}

/** Records every signature check, so both paths can be shown to ask the checker the same questions. */
class RecordingChecker extends TransactionSignatureChecker {
  readonly calls: string[] = [];
  override checkEcdsaSignature(sig: Uint8Array, pubkey: Uint8Array, scriptCode: Uint8Array, sigversion: SigVersion): boolean {
    const ok = super.checkEcdsaSignature(sig, pubkey, scriptCode, sigversion);
    this.calls.push(`${toHex(sig)} ${toHex(pubkey)} ${toHex(scriptCode)} ${sigversion} ${ok}`);
    return ok;
  }
}

const key = Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? 9 : 0x3c));
const pub33 = publicKeyCreate(key, true);
const pub65 = publicKeyConvert(pub33, false);
const hybrid = Uint8Array.from([0x06 | (pub65[64] & 1), ...pub65.subarray(1)]);
const AMOUNT = 123_456n;

const tx = new Transaction({
  version: 2,
  locktime: 0,
  inputs: [
    { prevout: { txid: new Uint8Array(32).fill(3), vout: 1 }, scriptSig: new Uint8Array(0), sequence: 0xfffffffd, witness: [] },
    { prevout: { txid: new Uint8Array(32).fill(4), vout: 0 }, scriptSig: new Uint8Array(0), sequence: 0xffffffff, witness: [] },
  ],
  outputs: [{ value: 100_000n, scriptPubKey: p2wpkhScript(new Uint8Array(20).fill(5)) }],
});
const txdata = new PrecomputedTxData(tx);

function digestFor(pubkey: Uint8Array, hashType: number, t: TxData = tx): Uint8Array {
  return signatureHash(p2pkhScript(hash160(pubkey)), t, 0, hashType, AMOUNT, SigVersion.WITNESS_V0, txdata);
}

function compactFor(pubkey: Uint8Array, hashType: number): Uint8Array {
  return ecdsaSign(digestFor(pubkey, hashType), key).signature;
}

function withHashType(der: Uint8Array, hashType: number): Uint8Array {
  return Uint8Array.from([...der, hashType]);
}

/** Strict DER with the sequence length in long form: lax-parseable, so it verifies without DERSIG. */
function berLongLength(der: Uint8Array): Uint8Array {
  return Uint8Array.from([0x30, 0x81, der[1], ...der.subarray(2)]);
}

/** DER integers 0x02 len bytes, for hand-made signatures. */
function derOf(r: Uint8Array, s: Uint8Array): Uint8Array {
  return Uint8Array.from([0x30, r.length + s.length + 4, 0x02, r.length, ...r, 0x02, s.length, ...s]);
}

interface Case {
  name: string;
  witness: Uint8Array[];
  /** The key hash the output commits to; the witness key's by default. */
  program?: Uint8Array;
}

function cases(): Case[] {
  const all = withHashType(signatureToDER(compactFor(pub33, SIGHASH_ALL)), SIGHASH_ALL);
  const list: Case[] = [
    { name: 'valid', witness: [all, pub33] },
    ...[SIGHASH_NONE, SIGHASH_SINGLE, SIGHASH_ALL | SIGHASH_ANYONECANPAY, SIGHASH_NONE | SIGHASH_ANYONECANPAY].map((t) => ({
      name: `valid, hash type ${t}`,
      witness: [withHashType(signatureToDER(compactFor(pub33, t)), t), pub33],
    })),
    { name: 'high S', witness: [withHashType(signatureToDER(highS(compactFor(pub33, SIGHASH_ALL))), SIGHASH_ALL), pub33] },
    { name: 'BER long length', witness: [withHashType(berLongLength(signatureToDER(compactFor(pub33, SIGHASH_ALL))), SIGHASH_ALL), pub33] },
    { name: 'garbage signature', witness: [Uint8Array.of(1, 2, 3, SIGHASH_ALL), pub33] },
    { name: 'one-byte signature', witness: [Uint8Array.of(SIGHASH_ALL), pub33] },
    { name: 'empty signature', witness: [new Uint8Array(0), pub33] },
    { name: 'signature of another message', witness: [withHashType(signatureToDER(compactFor(pub33, SIGHASH_NONE)), SIGHASH_ALL), pub33] },
    { name: 'r = n', witness: [withHashType(derOf(Uint8Array.from([0, ...bytes32(CURVE_ORDER)]), Uint8Array.of(1)), SIGHASH_ALL), pub33] },
    { name: 'oversized signature', witness: [new Uint8Array(521).fill(0x30), pub33] },
    { name: 'oversized key', witness: [all, new Uint8Array(521).fill(2)], program: hash160(new Uint8Array(521).fill(2)) },
    { name: 'key of another hash', witness: [all, pub33], program: new Uint8Array(20).fill(1) },
    { name: 'all-zero program', witness: [all, pub33], program: new Uint8Array(20) },
    { name: 'negative-zero program', witness: [all, pub33], program: Uint8Array.from([...new Uint8Array(19), 0x80]) },
    { name: 'no witness', witness: [] },
    { name: 'one witness item', witness: [all] },
    { name: 'three witness items', witness: [all, pub33, pub33] },
    { name: 'uncompressed key', witness: [withHashType(signatureToDER(compactFor(pub65, SIGHASH_ALL)), SIGHASH_ALL), pub65] },
    { name: 'hybrid key', witness: [withHashType(signatureToDER(compactFor(hybrid, SIGHASH_ALL)), SIGHASH_ALL), hybrid] },
    { name: '32-byte key', witness: [all, pub33.subarray(1)] },
    { name: '34-byte key', witness: [all, Uint8Array.from([...pub33, 0])] },
    { name: 'empty key', witness: [all, new Uint8Array(0)] },
    { name: 'key not on the curve', witness: [all, Uint8Array.from([0x02, ...new Uint8Array(32).fill(0xff)])] },
  ];
  // Undefined hash types, signed as such: they verify unless STRICTENC rejects them.
  for (const t of [0x00, 0x04, 0x21, 0x84]) {
    list.push({ name: `hash type ${t}`, witness: [withHashType(signatureToDER(compactFor(pub33, t)), t), pub33] });
  }
  return list;
}

function bytes32(v: bigint): Uint8Array {
  const out = new Uint8Array(32);
  for (let i = 31; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

const VARIED = [
  ScriptFlags.STRICTENC,
  ScriptFlags.DERSIG,
  ScriptFlags.LOW_S,
  ScriptFlags.NULLFAIL,
  ScriptFlags.WITNESS_PUBKEYTYPE,
  ScriptFlags.MINIMALDATA,
  ScriptFlags.CLEANSTACK,
  ScriptFlags.SIGPUSHONLY,
];

function flagSets(): number[] {
  const sets: number[] = [];
  for (let m = 0; m < 1 << VARIED.length; m++) {
    let flags = ScriptFlags.P2SH | ScriptFlags.WITNESS;
    VARIED.forEach((f, i) => {
      if (m & (1 << i)) flags |= f;
    });
    sets.push(flags);
  }
  return sets;
}

function resultOf(r: ReturnType<typeof verifyScript>): string {
  return r.ok ? 'OK' : r.error;
}

test('native P2WPKH spends: same result, error and signature checks as the generic interpreter, for every flag combination', (t) => {
  const seen = new Set<string>();
  let compared = 0;
  for (const c of cases()) {
    const program = c.program ?? hash160(c.witness[1] ?? pub33);
    const scriptPubKey = p2wpkhScript(program);
    for (const flags of flagSets()) {
      const fast = new RecordingChecker(tx, 0, AMOUNT, txdata);
      const generic = new RecordingChecker(tx, 0, AMOUNT, txdata);
      const got = resultOf(verifyScript(new Uint8Array(0), scriptPubKey, c.witness, flags, fast));
      const want = genericNative(c.witness, scriptPubKey, flags, generic);
      assert.equal(got, want, `${c.name} under flags 0x${flags.toString(16)}`);
      assert.deepEqual(fast.calls, generic.calls, `${c.name} under flags 0x${flags.toString(16)}: signature checks`);
      seen.add(got);
      compared++;
    }
  }
  // The cases must reach every outcome of the path, or some rule went untested.
  for (const outcome of [
    'OK',
    'EVAL_FALSE',
    'NULLFAIL',
    'EQUALVERIFY',
    'PUSH_SIZE',
    'WITNESS_PROGRAM_MISMATCH',
    'SIG_DER',
    'SIG_HIGH_S',
    'SIG_HASHTYPE',
    'PUBKEYTYPE',
    'WITNESS_PUBKEYTYPE',
  ]) {
    assert.ok(seen.has(outcome), `no case ended with ${outcome}; seen: ${[...seen].join(', ')}`);
  }
  t.diagnostic(`${compared} spends compared`);
});

test('P2SH-wrapped P2WPKH takes the same witness rules as the generic interpreter', () => {
  for (const c of cases()) {
    const program = c.program ?? hash160(c.witness[1] ?? pub33);
    const redeem = p2wpkhScript(program);
    for (const flags of flagSets()) {
      const fast = new RecordingChecker(tx, 0, AMOUNT, txdata);
      const generic = new RecordingChecker(tx, 0, AMOUNT, txdata);
      const got = resultOf(verifyScript(pushData(redeem), p2shScript(hash160(redeem)), c.witness, flags, fast));
      const want = castToBool(program) ? genericWitness(c.witness, program, flags, generic) : 'EVAL_FALSE';
      assert.equal(got, want, `${c.name} under flags 0x${flags.toString(16)}`);
      assert.deepEqual(fast.calls, generic.calls, `${c.name} under flags 0x${flags.toString(16)}: signature checks`);
    }
  }
});

test('a checker that throws fails a P2WPKH spend with UNKNOWN_ERROR, as it fails EvalScript', () => {
  class ThrowingChecker extends TransactionSignatureChecker {
    override checkEcdsaSignature(): boolean {
      throw new Error('checker failure');
    }
  }
  const witness = [withHashType(signatureToDER(compactFor(pub33, SIGHASH_ALL)), SIGHASH_ALL), pub33];
  const scriptPubKey = p2wpkhScript(hash160(pub33));
  const flags = ScriptFlags.P2SH | ScriptFlags.WITNESS;
  const checker = new ThrowingChecker(tx, 0, AMOUNT, txdata);
  assert.equal(resultOf(verifyScript(new Uint8Array(0), scriptPubKey, witness, flags, checker)), 'UNKNOWN_ERROR', 'fast path');
  assert.equal(genericNative(witness, scriptPubKey, flags, checker), 'UNKNOWN_ERROR', 'generic path');
  // Precomputed data of another transaction makes the real checker throw the same way.
  const other = new PrecomputedTxData(new Transaction({ ...tx, locktime: 1 }));
  const mismatched = new TransactionSignatureChecker(tx, 0, AMOUNT, other);
  assert.equal(resultOf(verifyScript(new Uint8Array(0), scriptPubKey, witness, flags, mismatched)), 'UNKNOWN_ERROR', 'foreign txdata');
});

test('without WITNESS a P2WPKH output is an anyone-can-spend push, witness or not', () => {
  const scriptPubKey = p2wpkhScript(hash160(pub33));
  const checker = new TransactionSignatureChecker(tx, 0, AMOUNT, txdata);
  for (const witness of [[], [new Uint8Array(0)], [Uint8Array.of(1), pub33]]) {
    assert.equal(resultOf(verifyScript(new Uint8Array(0), scriptPubKey, witness, ScriptFlags.P2SH, checker)), 'OK', `${witness.length} items`);
  }
});
