/** Bytes of Core's VARINT for any number up to 2^53. */
const MAX_VARINT_BYTES = 8;
const varIntDigits: number[] = [];

/** Writes Core's VARINT of `n` into `into` at `pos` (room for 8 bytes); the position after it. */
export function putVarInt(n: number, into: Uint8Array, pos: number): number {
  let len = 0;
  for (;;) {
    varIntDigits[len] = (n % 128) | (len ? 0x80 : 0x00);
    if (n <= 0x7f) break;
    n = Math.floor(n / 128) - 1;
    len++;
  }
  for (let i = len; i >= 0; i--) into[pos++] = varIntDigits[i];
  return pos;
}

/**
 * Growable byte writer. Serialization of consensus objects goes through this so that every
 * encoder has exactly one mirror image in Reader.
 */
export class Writer {
  private buf: Uint8Array;
  private view: DataView;
  private pos = 0;

  constructor(capacity = 256) {
    this.buf = new Uint8Array(capacity);
    this.view = new DataView(this.buf.buffer);
  }

  get length(): number {
    return this.pos;
  }

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }

  u8(v: number): this {
    this.ensure(1);
    this.buf[this.pos++] = v;
    return this;
  }

  u16le(v: number): this {
    this.ensure(2);
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
    return this;
  }

  u32le(v: number): this {
    this.ensure(4);
    this.view.setUint32(this.pos, v >>> 0, true);
    this.pos += 4;
    return this;
  }

  i32le(v: number): this {
    this.ensure(4);
    this.view.setInt32(this.pos, v, true);
    this.pos += 4;
    return this;
  }

  u64le(v: bigint): this {
    this.ensure(8);
    this.view.setBigUint64(this.pos, BigInt.asUintN(64, v), true);
    this.pos += 8;
    return this;
  }

  i64le(v: bigint): this {
    this.ensure(8);
    this.view.setBigInt64(this.pos, BigInt.asIntN(64, v), true);
    this.pos += 8;
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
    return this;
  }

  compactSize(n: number): this {
    if (n < 0xfd) return this.u8(n);
    if (n <= 0xffff) return this.u8(0xfd).u16le(n);
    if (n <= 0xffffffff) return this.u8(0xfe).u32le(n);
    return this.u8(0xff).u64le(BigInt(n));
  }

  varBytes(b: Uint8Array): this {
    return this.compactSize(b.length).bytes(b);
  }

  /** Core's VARINT: MSB base-128 with the "+1" offset per continuation byte. */
  varInt(n: number): this {
    this.ensure(MAX_VARINT_BYTES);
    this.pos = putVarInt(n, this.buf, this.pos);
    return this;
  }

  /** A copy of what was written, sized exactly. */
  finish(): Uint8Array {
    return this.buf.slice(0, this.pos);
  }
}

export function compactSizeLength(n: number): number {
  return n < 0xfd ? 1 : n <= 0xffff ? 3 : n <= 0xffffffff ? 5 : 9;
}
