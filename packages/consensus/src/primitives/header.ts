import { hashToHex } from '../encoding/hex.ts';
import { Reader } from '../encoding/reader.ts';
import { Writer } from '../encoding/writer.ts';
import { sha256d } from '../crypto/hash.ts';

/** Bytes before the solution: version 4, prev 32, merkle 32, reserved 32, time 4, bits 4, nonce 32. */
export const HEADER_PREFIX_SIZE = 140;
/** Bytes hashed into the Equihash input before the nonce. */
export const EQUIHASH_INPUT_SIZE = 108;
/**
 * The largest solution any Equihash parameter set in use needs: (200,9) packs 512 indices of
 * 21 bits into 1344 bytes. A longer length prefix is rejected before allocating.
 */
export const MAX_SOLUTION_SIZE = 1344;

export interface HeaderData {
  readonly version: number;
  /** Hashes in internal byte order. */
  readonly prevHash: Uint8Array;
  readonly merkleRoot: Uint8Array;
  /** Zcash's hashFinalSaplingRoot slot; consensus requires it to be zero (docs/protocol.md). */
  readonly reserved: Uint8Array;
  readonly time: number;
  readonly bits: number;
  /** 32-byte Equihash nonce. */
  readonly nonce: Uint8Array;
  readonly solution: Uint8Array;
}

/** A block header in the Zcash version-4 layout. Immutable; the hash is cached. */
export class BlockHeader implements HeaderData {
  readonly version: number;
  readonly prevHash: Uint8Array;
  readonly merkleRoot: Uint8Array;
  readonly reserved: Uint8Array;
  readonly time: number;
  readonly bits: number;
  readonly nonce: Uint8Array;
  readonly solution: Uint8Array;
  private cachedHash?: Uint8Array;

  constructor(d: HeaderData) {
    this.version = d.version | 0;
    this.prevHash = d.prevHash;
    this.merkleRoot = d.merkleRoot;
    this.reserved = d.reserved;
    this.time = d.time >>> 0;
    this.bits = d.bits >>> 0;
    this.nonce = d.nonce;
    this.solution = d.solution;
  }

  static decode(bytes: Uint8Array): BlockHeader {
    const r = new Reader(bytes);
    const h = BlockHeader.read(r);
    r.end('block header');
    return h;
  }

  static read(r: Reader): BlockHeader {
    return new BlockHeader({
      version: r.i32le(),
      prevHash: r.bytes(32).slice(),
      merkleRoot: r.bytes(32).slice(),
      reserved: r.bytes(32).slice(),
      time: r.u32le(),
      bits: r.u32le(),
      nonce: r.bytes(32).slice(),
      solution: r.varBytes(MAX_SOLUTION_SIZE, 'solution').slice(),
    });
  }

  write(w: Writer): Writer {
    return this.writePrefix(w).varBytes(this.solution);
  }

  /** The 140 bytes that precede the solution: the Equihash input (108 bytes) plus the nonce. */
  writePrefix(w: Writer): Writer {
    return w.i32le(this.version).bytes(this.prevHash).bytes(this.merkleRoot).bytes(this.reserved).u32le(this.time).u32le(this.bits).bytes(this.nonce);
  }

  encode(): Uint8Array {
    return this.write(new Writer(HEADER_PREFIX_SIZE + 3 + this.solution.length)).finish();
  }

  prefix(): Uint8Array {
    return this.writePrefix(new Writer(HEADER_PREFIX_SIZE)).finish();
  }

  /** SHA256d over the whole header, solution included (internal byte order). */
  get hash(): Uint8Array {
    return (this.cachedHash ??= sha256d(this.encode()));
  }

  get hashHex(): string {
    return hashToHex(this.hash);
  }
}
