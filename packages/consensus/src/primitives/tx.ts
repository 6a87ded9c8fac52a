import { DecodeError } from '../encoding/errors.ts';
import { hashToHex } from '../encoding/hex.ts';
import { Reader } from '../encoding/reader.ts';
import { Writer } from '../encoding/writer.ts';
import { sha256d } from '../crypto/hash.ts';

/** A reference to an output of an earlier transaction; `txid` is in internal byte order. */
export interface OutPoint {
  readonly txid: Uint8Array;
  readonly vout: number;
}

export interface TxIn {
  readonly prevout: OutPoint;
  readonly scriptSig: Uint8Array;
  readonly sequence: number;
  /** Segregated witness stack (BIP141); empty for legacy inputs. */
  readonly witness: readonly Uint8Array[];
}

export interface TxOut {
  /** Amount in base units (1e-8 coin). A bigint so that any serialized int64 survives decoding for the range checks. */
  readonly value: bigint;
  readonly scriptPubKey: Uint8Array;
}

export interface TxData {
  readonly version: number;
  readonly inputs: readonly TxIn[];
  readonly outputs: readonly TxOut[];
  readonly locktime: number;
}

export const SEQUENCE_FINAL = 0xffffffff;
export const WITNESS_SCALE_FACTOR = 4;
const NULL_TXID = new Uint8Array(32);

export interface TxDecodeOptions {
  /** Accept the BIP144 extended format. Core also tries without it in decoderawtransaction. */
  readonly allowWitness?: boolean;
}

/**
 * An immutable transaction. Hashes and sizes are computed on first use and cached, so a
 * Transaction must not be mutated after construction (build a new one instead).
 */
export class Transaction implements TxData {
  readonly version: number;
  readonly inputs: readonly TxIn[];
  readonly outputs: readonly TxOut[];
  readonly locktime: number;
  private cache: { txid?: Uint8Array; txidHex?: string; wtxid?: Uint8Array; base?: Uint8Array; full?: Uint8Array } = {};

  constructor(data: TxData) {
    this.version = data.version | 0;
    this.inputs = data.inputs;
    this.outputs = data.outputs;
    this.locktime = data.locktime >>> 0;
  }

  static decode(bytes: Uint8Array, opts: TxDecodeOptions = {}): Transaction {
    const r = new Reader(bytes);
    const tx = Transaction.read(r, opts);
    r.end('transaction');
    return tx;
  }

  /**
   * Reads one transaction the way Core's UnserializeTransaction does: an empty input list
   * followed by a non-zero flag byte introduces the extended (witness) format. The transaction
   * keeps a private copy of its own serialization, and its scripts, witness items and prevout
   * hashes are views into that copy: one allocation per transaction instead of one per field,
   * and nothing of the input (a whole block, say) stays alive through it.
   */
  static read(r: Reader, opts: TxDecodeOptions = {}): Transaction {
    const start = r.offset;
    readFields(r, opts);
    const own = r.data.slice(start, r.offset);
    const tx = new Transaction(readFields(new Reader(own), opts));
    // Canonical encodings only were accepted, so serializing again would give these very bytes.
    if (tx.hasWitness) tx.cache.full = own;
    else tx.cache.base = own;
    return tx;
  }

  get hasWitness(): boolean {
    return this.inputs.some((i) => i.witness.length > 0);
  }

  isCoinbase(): boolean {
    return this.inputs.length === 1 && isNullOutPoint(this.inputs[0].prevout);
  }

  /** Serialization; with `witness` (the default) the BIP144 form when any input has a witness. */
  encode(witness = true): Uint8Array {
    if (witness && this.hasWitness) return (this.cache.full ??= this.write(new Writer(this.sizeHint()), true).finish());
    return (this.cache.base ??= this.write(new Writer(this.sizeHint()), false).finish());
  }

  write(w: Writer, witness = true): Writer {
    const ext = witness && this.hasWitness;
    w.i32le(this.version);
    if (ext) w.u8(0).u8(1);
    w.compactSize(this.inputs.length);
    for (const input of this.inputs) {
      w.bytes(input.prevout.txid).u32le(input.prevout.vout).varBytes(input.scriptSig).u32le(input.sequence);
    }
    w.compactSize(this.outputs.length);
    for (const out of this.outputs) w.i64le(out.value).varBytes(out.scriptPubKey);
    if (ext) {
      for (const input of this.inputs) {
        w.compactSize(input.witness.length);
        for (const item of input.witness) w.varBytes(item);
      }
    }
    w.u32le(this.locktime);
    return w;
  }

  private sizeHint(): number {
    return 10 + this.inputs.length * 150 + this.outputs.length * 40;
  }

  /** Hash of the serialization without witness data, internal byte order. */
  get txid(): Uint8Array {
    return (this.cache.txid ??= sha256d(this.encode(false)));
  }

  /** Hash of the full serialization (BIP141); equals txid for transactions without witness. */
  get wtxid(): Uint8Array {
    return (this.cache.wtxid ??= this.hasWitness ? sha256d(this.encode(true)) : this.txid);
  }

  get txidHex(): string {
    return (this.cache.txidHex ??= hashToHex(this.txid));
  }

  get wtxidHex(): string {
    return hashToHex(this.wtxid);
  }

  /** Total serialized size, witness included. */
  get size(): number {
    return this.encode(true).length;
  }

  /** Size without witness data ("stripped size"). */
  get baseSize(): number {
    return this.encode(false).length;
  }

  get weight(): number {
    return this.baseSize * (WITNESS_SCALE_FACTOR - 1) + this.size;
  }

  get vsize(): number {
    return Math.ceil(this.weight / WITNESS_SCALE_FACTOR);
  }
}

/** The fields of a transaction, as views into the reader's bytes. */
function readFields(r: Reader, opts: TxDecodeOptions): TxData {
  const allowWitness = opts.allowWitness ?? true;
  const version = r.i32le();
  let flags = 0;
  let inputs = readInputs(r);
  let outputs: TxOut[];
  if (inputs.length === 0 && allowWitness) {
    flags = r.u8();
    if (flags !== 0) {
      inputs = readInputs(r);
      outputs = readOutputs(r);
    } else {
      outputs = [];
    }
  } else {
    outputs = readOutputs(r);
  }
  if (flags & 1) {
    flags ^= 1;
    let any = false;
    for (const input of inputs) {
      const count = r.compactSize();
      for (let i = 0; i < count; i++) input.witness.push(r.varBytes());
      if (count > 0) any = true;
    }
    if (!any) throw new DecodeError('invalid', 'superfluous witness record');
  }
  if (flags) throw new DecodeError('invalid', 'unknown transaction optional data');
  const locktime = r.u32le();
  return { version, inputs, outputs, locktime };
}

function readInputs(r: Reader): (TxIn & { witness: Uint8Array[] })[] {
  const count = r.compactSize();
  const inputs: (TxIn & { witness: Uint8Array[] })[] = [];
  // Growing the array per decoded element (rather than allocating `count` up front) keeps a
  // lying count from causing a huge allocation: each element consumes at least 41 bytes.
  for (let i = 0; i < count; i++) {
    const txid = r.bytes(32, 'prevout hash');
    const vout = r.u32le();
    const scriptSig = r.varBytes();
    const sequence = r.u32le();
    inputs.push({ prevout: { txid, vout }, scriptSig, sequence, witness: [] });
  }
  return inputs;
}

function readOutputs(r: Reader): TxOut[] {
  const count = r.compactSize();
  const outputs: TxOut[] = [];
  for (let i = 0; i < count; i++) {
    const value = r.i64le();
    const scriptPubKey = r.varBytes();
    outputs.push({ value, scriptPubKey });
  }
  return outputs;
}

export function isNullOutPoint(p: OutPoint): boolean {
  return p.vout === 0xffffffff && p.txid.every((b) => b === 0);
}

export const NULL_OUTPOINT: OutPoint = { txid: NULL_TXID, vout: 0xffffffff };

/** Map key for an outpoint: txid hex in internal order plus index. */
export function outpointKey(p: OutPoint): string {
  // A view of the txid's bytes, not a copy.
  return `${Buffer.from(p.txid.buffer, p.txid.byteOffset, p.txid.byteLength).toString('hex')}:${p.vout}`;
}
