import { DecodeError } from './errors.ts';

/**
 * The largest vector length a length prefix may announce. Core's MAX_SIZE: anything larger
 * cannot fit in a 32 MB protocol message, so it is rejected before any allocation happens.
 */
export const MAX_SIZE = 0x02000000;

/**
 * What every empty read returns: a segwit input's empty scriptSig, say, costs no view of its own
 * (a view is ~100 bytes of heap, and a decoded block keeps its inputs' for a block or two).
 */
const EMPTY = new Uint8Array(0);

/**
 * Bounds-checked cursor over a byte array. Every read checks the remaining length first, so
 * a truncated or lying input fails with a DecodeError instead of reading past the end.
 */
export class Reader {
  private pos = 0;
  /**
   * Made on the first 64-bit read only: most structures never need one, and on a typed array
   * small enough to live inside the JS heap, `.buffer` first moves the bytes out of it.
   */
  private wide: DataView | undefined;

  readonly data: Uint8Array;

  constructor(data: Uint8Array) {
    // A Node Buffer's slice() is a view, not a copy: reading through a plain Uint8Array keeps
    // the copies decoders make with slice() real copies whatever the caller passed in. (`length`,
    // not byteLength: lmdb's fast reads shorten a reused buffer by overriding its length.)
    this.data = data.constructor === Uint8Array ? data : new Uint8Array(data.buffer, data.byteOffset, data.length);
  }

  private get view(): DataView {
    return (this.wide ??= new DataView(this.data.buffer, this.data.byteOffset, this.data.byteLength));
  }

  get offset(): number {
    return this.pos;
  }

  get remaining(): number {
    return this.data.length - this.pos;
  }

  private need(n: number, what: string): void {
    if (n > this.data.length - this.pos) {
      throw new DecodeError('truncated', `unexpected end of data reading ${what}`);
    }
  }

  u8(): number {
    this.need(1, 'u8');
    return this.data[this.pos++];
  }

  u16le(): number {
    this.need(2, 'u16');
    const d = this.data;
    const p = this.pos;
    this.pos += 2;
    return d[p] | (d[p + 1] << 8);
  }

  u32le(): number {
    this.need(4, 'u32');
    return this.int32() >>> 0;
  }

  i32le(): number {
    this.need(4, 'i32');
    return this.int32();
  }

  private int32(): number {
    const d = this.data;
    const p = this.pos;
    this.pos += 4;
    return d[p] | (d[p + 1] << 8) | (d[p + 2] << 16) | (d[p + 3] << 24);
  }

  u64le(): bigint {
    this.need(8, 'u64');
    const v = this.view.getBigUint64(this.pos, true);
    this.pos += 8;
    return v;
  }

  i64le(): bigint {
    this.need(8, 'i64');
    const v = this.view.getBigInt64(this.pos, true);
    this.pos += 8;
    return v;
  }

  /** A view into the input (no copy): callers that keep it beyond the input's life must copy. */
  bytes(n: number, what = 'bytes'): Uint8Array {
    this.need(n, what);
    if (n === 0) return EMPTY;
    const out = this.data.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Steps over `n` bytes, with the checks of bytes(). */
  skip(n: number, what = 'bytes'): void {
    this.need(n, what);
    this.pos += n;
  }

  /** Bitcoin's CompactSize, canonical forms only (as Core's ReadCompactSize with range check). */
  compactSize(max = MAX_SIZE): number {
    const first = this.u8();
    let v: number;
    if (first < 0xfd) v = first;
    else if (first === 0xfd) {
      v = this.u16le();
      if (v < 0xfd) throw new DecodeError('non-canonical', 'non-canonical compactsize');
    } else if (first === 0xfe) {
      v = this.u32le();
      if (v < 0x10000) throw new DecodeError('non-canonical', 'non-canonical compactsize');
    } else {
      const big = this.u64le();
      if (big < 0x100000000n) throw new DecodeError('non-canonical', 'non-canonical compactsize');
      throw new DecodeError('oversize', 'compactsize exceeds maximum');
    }
    if (v > max) throw new DecodeError('oversize', `compactsize ${v} exceeds maximum ${max}`);
    return v;
  }

  /** A compactsize length followed by that many bytes. */
  varBytes(max = MAX_SIZE, what = 'var bytes'): Uint8Array {
    const len = this.compactSize(max);
    return this.bytes(len, what);
  }

  /** Steps over what varBytes() reads, with its checks. */
  skipVarBytes(max = MAX_SIZE, what = 'var bytes'): void {
    this.skip(this.compactSize(max), what);
  }

  /**
   * Core's VARINT (the MSB base-128 encoding with the "+1" offset used in the UTXO set and
   * undo data); non-canonical forms are impossible by construction, overflow is rejected.
   */
  varInt(): number {
    let n = 0;
    for (;;) {
      const b = this.u8();
      if (n > 0x7fffffffffff) throw new DecodeError('oversize', 'varint too large');
      n = n * 128 + (b & 0x7f);
      if (b & 0x80) n += 1;
      else return n;
    }
  }

  /** Structures decoded from a whole buffer must consume all of it. */
  end(what = 'structure'): void {
    if (this.pos !== this.data.length) {
      throw new DecodeError('trailing', `${this.data.length - this.pos} trailing bytes after ${what}`);
    }
  }
}
