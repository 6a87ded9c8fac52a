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
    // The first pass checks and steps over the fields, building nothing, to find the end.
    walkFields(r, opts, false);
    const own = r.data.slice(start, r.offset);
    const fields = walkFields(new Reader(own), opts, true)!;
    const tx = new Transaction(fields);
    // Canonical encodings only were accepted, so serializing again would give these very bytes;
    // without the marker, flag and witnesses they are the stripped serialization the txid hashes.
    if (fields.witnessStart === null) tx.cache.base = own;
    else {
      tx.cache.full = own;
      const base = new Uint8Array(own.length - 2 - (fields.witnessEnd - fields.witnessStart));
      base.set(own.subarray(0, 4));
      base.set(own.subarray(6, fields.witnessStart), 4);
      base.set(own.subarray(fields.witnessEnd), fields.witnessStart - 2);
      tx.cache.base = base;
    }
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

/** A transaction's fields, and where its witnesses lie in the bytes read (null start: none). */
interface ReadFields extends TxData {
  readonly witnessStart: number | null;
  readonly witnessEnd: number;
}

/**
 * Reads the fields of a transaction, as views into the reader's bytes. With `keep` false it only
 * makes the same checks and steps over the fields (the same errors, nothing allocated).
 */
function walkFields(r: Reader, opts: TxDecodeOptions, keep: boolean): ReadFields | null {
  const allowWitness = opts.allowWitness ?? true;
  const version = r.i32le();
  const inputs: (TxIn & { witness: Uint8Array[] })[] = [];
  const outputs: TxOut[] = [];
  let flags = 0;
  let count = walkInputs(r, keep ? inputs : null);
  if (count === 0 && allowWitness) {
    flags = r.u8();
    if (flags !== 0) {
      count = walkInputs(r, keep ? inputs : null);
      walkOutputs(r, keep ? outputs : null);
    }
  } else {
    walkOutputs(r, keep ? outputs : null);
  }
  let witnessStart: number | null = null;
  if (flags & 1) {
    flags ^= 1;
    witnessStart = r.offset;
    let any = false;
    for (let i = 0; i < count; i++) {
      const items = r.compactSize();
      for (let k = 0; k < items; k++) {
        if (keep) inputs[i].witness.push(r.varBytes());
        else r.skipVarBytes();
      }
      if (items > 0) any = true;
    }
    if (!any) throw new DecodeError('invalid', 'superfluous witness record');
  }
  const witnessEnd = r.offset;
  if (flags) throw new DecodeError('invalid', 'unknown transaction optional data');
  const locktime = r.u32le();
  return keep ? { version, inputs, outputs, locktime, witnessStart, witnessEnd } : null;
}

/** Reads a list of inputs into `into` (or steps over them); how many there were. */
function walkInputs(r: Reader, into: (TxIn & { witness: Uint8Array[] })[] | null): number {
  const count = r.compactSize();
  // Nothing is allocated up front for `count`: a lying count cannot cause a huge allocation, as
  // each element consumes at least 41 bytes.
  for (let i = 0; i < count; i++) {
    if (!into) {
      r.skip(32, 'prevout hash');
      r.skip(4, 'u32');
      r.skipVarBytes();
      r.skip(4, 'u32');
      continue;
    }
    const txid = r.bytes(32, 'prevout hash');
    const vout = r.u32le();
    const scriptSig = r.varBytes();
    const sequence = r.u32le();
    into.push({ prevout: { txid, vout }, scriptSig, sequence, witness: [] });
  }
  return count;
}

function walkOutputs(r: Reader, into: TxOut[] | null): void {
  const count = r.compactSize();
  for (let i = 0; i < count; i++) {
    if (!into) {
      r.skip(8, 'i64');
      r.skipVarBytes();
      continue;
    }
    const value = r.i64le();
    const scriptPubKey = r.varBytes();
    into.push({ value, scriptPubKey });
  }
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
