import { sha256d } from '../crypto/hash.ts';
import { Writer, compactSizeLength } from '../encoding/writer.ts';
import type { TxData, TxOut } from '../primitives/tx.ts';
import { Op } from './opcodes.ts';
import { ScriptReader } from './script.ts';

export const SIGHASH_ALL = 1;
export const SIGHASH_NONE = 2;
export const SIGHASH_SINGLE = 3;
export const SIGHASH_ANYONECANPAY = 0x80;

/** Which signature-hash and script rules apply: legacy (incl. P2SH) or witness v0 (BIP143). */
export const SigVersion = { BASE: 0, WITNESS_V0: 1 } as const;
export type SigVersion = (typeof SigVersion)[keyof typeof SigVersion];

const ZERO_HASH: Uint8Array = new Uint8Array(32);

/**
 * Core's PrecomputedTransactionData for BIP143: the three transaction-wide hashes every witness v0
 * signature commits to. Computed on first use and then shared by all inputs (and all signatures
 * of each input), which turns BIP143 hashing from quadratic into linear in the transaction size.
 */
export class PrecomputedTxData {
  private prevouts?: Uint8Array;
  private sequences?: Uint8Array;
  private outputs?: Uint8Array;

  constructor(readonly tx: TxData) {}

  get hashPrevouts(): Uint8Array {
    return (this.prevouts ??= hashPrevouts(this.tx));
  }

  get hashSequence(): Uint8Array {
    return (this.sequences ??= hashSequence(this.tx));
  }

  get hashOutputs(): Uint8Array {
    return (this.outputs ??= hashOutputs(this.tx.outputs));
  }
}

function hashPrevouts(tx: TxData): Uint8Array {
  const buf = new Uint8Array(36 * tx.inputs.length);
  const view = new DataView(buf.buffer);
  let o = 0;
  for (const input of tx.inputs) {
    buf.set(input.prevout.txid, o);
    view.setUint32(o + 32, input.prevout.vout, true);
    o += 36;
  }
  return sha256d(buf);
}

function hashSequence(tx: TxData): Uint8Array {
  const buf = new Uint8Array(4 * tx.inputs.length);
  const view = new DataView(buf.buffer);
  tx.inputs.forEach((input, i) => view.setUint32(4 * i, input.sequence, true));
  return sha256d(buf);
}

function hashOutputs(outputs: readonly TxOut[]): Uint8Array {
  const w = new Writer(outputs.length * 43 + 8);
  for (const out of outputs) w.i64le(out.value).varBytes(out.scriptPubKey);
  return sha256d(w.finish());
}

/**
 * Legacy (pre-segwit) signature hash, Core's SignatureHash for SigVersion::BASE, including its
 * quirks: an input index past the inputs, or SIGHASH_SINGLE without a matching output, hashes to
 * the constant 1 (which then signs for anything); OP_CODESEPARATORs are removed from scriptCode.
 * `scriptCode` must already have the signature removed (FindAndDelete), as the interpreter does.
 * `hashType` is the full 32-bit value that gets serialized (the signature's last byte in scripts).
 */
export function legacySignatureHash(scriptCode: Uint8Array, tx: TxData, inputIndex: number, hashType: number): Uint8Array {
  const one = new Uint8Array(32);
  one[0] = 1;
  if (inputIndex >= tx.inputs.length) return one;
  const base = hashType & 0x1f;
  if (base === SIGHASH_SINGLE && inputIndex >= tx.outputs.length) return one;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  const blankOthers = base === SIGHASH_SINGLE || base === SIGHASH_NONE;

  const w = new Writer(64 + scriptCode.length + tx.inputs.length * 41 + tx.outputs.length * 43);
  w.i32le(tx.version);
  const inputCount = anyoneCanPay ? 1 : tx.inputs.length;
  w.compactSize(inputCount);
  for (let i = 0; i < inputCount; i++) {
    const index = anyoneCanPay ? inputIndex : i;
    const input = tx.inputs[index];
    w.bytes(input.prevout.txid).u32le(input.prevout.vout);
    if (index === inputIndex) writeScriptCodeWithoutSeparators(w, scriptCode);
    else w.u8(0);
    w.u32le(index !== inputIndex && blankOthers ? 0 : input.sequence);
  }
  const outputCount = base === SIGHASH_NONE ? 0 : base === SIGHASH_SINGLE ? inputIndex + 1 : tx.outputs.length;
  w.compactSize(outputCount);
  for (let i = 0; i < outputCount; i++) {
    // SIGHASH_SINGLE blanks earlier outputs to Core's null CTxOut: value -1, empty script.
    if (base === SIGHASH_SINGLE && i !== inputIndex) w.i64le(-1n).u8(0);
    else w.i64le(tx.outputs[i].value).varBytes(tx.outputs[i].scriptPubKey);
  }
  w.u32le(tx.locktime);
  w.i32le(hashType);
  return sha256d(w.finish());
}

/**
 * Core's SerializeScriptCode: the script without OP_CODESEPARATOR opcodes, length-prefixed with
 * the size minus the separators. For a script with a truncated push, Core writes the bytes up to
 * where its op reader stopped, which can be fewer than the prefix announces; that hash is
 * consensus, so the same bytes are written here.
 */
function writeScriptCodeWithoutSeparators(w: Writer, script: Uint8Array): void {
  let separators = 0;
  const counter = new ScriptReader(script);
  while (counter.next()) if (counter.opcode === Op.OP_CODESEPARATOR) separators++;
  w.compactSize(script.length - separators);
  if (separators === 0 && counter.pos >= script.length) {
    w.bytes(script);
    return;
  }
  const r = new ScriptReader(script);
  let from = 0;
  while (r.next()) {
    if (r.opcode === Op.OP_CODESEPARATOR) {
      w.bytes(script.subarray(from, r.pos - 1));
      from = r.pos;
    }
  }
  if (from !== script.length) w.bytes(script.subarray(from, r.pos));
}

// BIP143 preimages are assembled in one reusable buffer: each is hashed (copied by the hash
// function) before the next is built, and JS runs a single thread, so sharing it is safe.
let scratch = new Uint8Array(1024);
let scratchView = new DataView(scratch.buffer);

/** The last preimage view handed to the hash: inputs of one kind all make the same length. */
let preimage = scratch.subarray(0, 0);

function scratchFor(size: number): void {
  if (scratch.length >= size) return;
  scratch = new Uint8Array(size * 2);
  scratchView = new DataView(scratch.buffer);
}

/** scratch[0, length), as a view reused while the length and the buffer stay the same. */
function preimageOf(length: number): Uint8Array {
  if (preimage.length !== length || preimage.buffer !== scratch.buffer) preimage = scratch.subarray(0, length);
  return preimage;
}

/**
 * BIP143 signature hash for witness v0 (Core's SignatureHash for SigVersion::WITNESS_V0).
 * `scriptCode` is the executed script from the last OP_CODESEPARATOR on, with nothing removed.
 * Pass the transaction's PrecomputedTxData when signing or verifying several inputs.
 */
export function witnessV0SignatureHash(
  scriptCode: Uint8Array,
  tx: TxData,
  inputIndex: number,
  hashType: number,
  amount: bigint,
  txdata?: PrecomputedTxData,
): Uint8Array {
  const input = tx.inputs[inputIndex];
  if (input === undefined) throw new RangeError(`input index ${inputIndex} out of range`);
  const base = hashType & 0x1f;
  const anyoneCanPay = (hashType & SIGHASH_ANYONECANPAY) !== 0;
  if (txdata !== undefined && txdata.tx !== tx) throw new Error('precomputed data belongs to another transaction');
  const pre = txdata ?? new PrecomputedTxData(tx);

  const prevouts = anyoneCanPay ? ZERO_HASH : pre.hashPrevouts;
  const sequences = anyoneCanPay || base === SIGHASH_SINGLE || base === SIGHASH_NONE ? ZERO_HASH : pre.hashSequence;
  let outputs = ZERO_HASH;
  if (base !== SIGHASH_SINGLE && base !== SIGHASH_NONE) outputs = pre.hashOutputs;
  else if (base === SIGHASH_SINGLE && inputIndex < tx.outputs.length) outputs = hashOutputs([tx.outputs[inputIndex]]);

  const codeLen = scriptCode.length;
  const size = 4 + 32 + 32 + 36 + compactSizeLength(codeLen) + codeLen + 8 + 4 + 32 + 4 + 4;
  scratchFor(size);
  const buf = scratch;
  const view = scratchView;
  view.setInt32(0, tx.version, true);
  put(buf, prevouts, 4);
  put(buf, sequences, 36);
  put(buf, input.prevout.txid, 68);
  view.setUint32(100, input.prevout.vout, true);
  let o = writeCompactSize(view, 104, codeLen);
  put(buf, scriptCode, o);
  o += codeLen;
  view.setBigInt64(o, amount, true);
  view.setUint32(o + 8, input.sequence, true);
  put(buf, outputs, o + 12);
  view.setUint32(o + 44, tx.locktime, true);
  view.setInt32(o + 48, hashType, true);
  return sha256d(preimageOf(o + 52));
}

/** buf.set(src, offset) for the short pieces of a preimage, where set()'s call costs more than the copy. */
function put(buf: Uint8Array, src: Uint8Array, offset: number): void {
  if (src.length > 64) {
    buf.set(src, offset);
    return;
  }
  for (let i = 0; i < src.length; i++) buf[offset + i] = src[i];
}

function writeCompactSize(view: DataView, o: number, n: number): number {
  if (n < 0xfd) {
    view.setUint8(o, n);
    return o + 1;
  }
  if (n <= 0xffff) {
    view.setUint8(o, 0xfd);
    view.setUint16(o + 1, n, true);
    return o + 3;
  }
  view.setUint8(o, 0xfe);
  view.setUint32(o + 1, n, true);
  return o + 5;
}

/** Core's SignatureHash: the digest a signature with `hashType` commits to under `sigversion`. */
export function signatureHash(
  scriptCode: Uint8Array,
  tx: TxData,
  inputIndex: number,
  hashType: number,
  amount: bigint,
  sigversion: SigVersion,
  txdata?: PrecomputedTxData,
): Uint8Array {
  return sigversion === SigVersion.WITNESS_V0
    ? witnessV0SignatureHash(scriptCode, tx, inputIndex, hashType, amount, txdata)
    : legacySignatureHash(scriptCode, tx, inputIndex, hashType);
}
