/**
 * A GGUF (version 3) file writer, after the format description in ggml's docs/gguf.md: header,
 * metadata key/values, tensor infos, padding to the alignment, then each tensor's data at an
 * aligned offset. Little-endian throughout. Only what our generated models need: scalar, string
 * and array metadata, and F32 tensors.
 */

const GGUF_MAGIC = 0x46554747; // "GGUF" read as a little-endian u32
const GGUF_VERSION = 3;
const ALIGNMENT = 32;
const GGML_TYPE_F32 = 0;

const ValueType = { UINT32: 4, INT32: 5, FLOAT32: 6, BOOL: 7, STRING: 8, ARRAY: 9 } as const;

export type MetadataValue =
  | { readonly type: 'u32'; readonly value: number }
  | { readonly type: 'f32'; readonly value: number }
  | { readonly type: 'bool'; readonly value: boolean }
  | { readonly type: 'string'; readonly value: string }
  | { readonly type: 'string[]'; readonly value: readonly string[] }
  | { readonly type: 'f32[]'; readonly value: readonly number[] }
  | { readonly type: 'i32[]'; readonly value: readonly number[] };

export interface Tensor {
  readonly name: string;
  /** ggml order: dims[0] is the contiguous (innermost) dimension. */
  readonly dims: readonly number[];
  readonly data: Float32Array;
}

/** Appends little-endian values to a growing buffer. */
class ByteSink {
  private buf = Buffer.alloc(1 << 16);
  length = 0;

  private ensure(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const next = Buffer.alloc(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  u32(v: number): this {
    this.ensure(4);
    this.length = this.buf.writeUInt32LE(v, this.length);
    return this;
  }

  i32(v: number): this {
    this.ensure(4);
    this.length = this.buf.writeInt32LE(v, this.length);
    return this;
  }

  u64(v: number): this {
    this.ensure(8);
    this.length = this.buf.writeBigUInt64LE(BigInt(v), this.length);
    return this;
  }

  f32(v: number): this {
    this.ensure(4);
    this.length = this.buf.writeFloatLE(v, this.length);
    return this;
  }

  u8(v: number): this {
    this.ensure(1);
    this.length = this.buf.writeUInt8(v, this.length);
    return this;
  }

  bytes(b: Uint8Array): this {
    this.ensure(b.length);
    this.buf.set(b, this.length);
    this.length += b.length;
    return this;
  }

  string(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.u64(b.length).bytes(b);
  }

  pad(): this {
    const n = (ALIGNMENT - (this.length % ALIGNMENT)) % ALIGNMENT;
    return this.bytes(new Uint8Array(n));
  }

  finish(): Buffer {
    return this.buf.subarray(0, this.length);
  }
}

function writeValue(out: ByteSink, v: MetadataValue): void {
  switch (v.type) {
    case 'u32':
      out.u32(ValueType.UINT32).u32(v.value);
      return;
    case 'f32':
      out.u32(ValueType.FLOAT32).f32(v.value);
      return;
    case 'bool':
      out.u32(ValueType.BOOL).u8(v.value ? 1 : 0);
      return;
    case 'string':
      out.u32(ValueType.STRING).string(v.value);
      return;
    case 'string[]':
      out.u32(ValueType.ARRAY).u32(ValueType.STRING).u64(v.value.length);
      for (const s of v.value) out.string(s);
      return;
    case 'f32[]':
      out.u32(ValueType.ARRAY).u32(ValueType.FLOAT32).u64(v.value.length);
      for (const f of v.value) out.f32(f);
      return;
    case 'i32[]':
      out.u32(ValueType.ARRAY).u32(ValueType.INT32).u64(v.value.length);
      for (const i of v.value) out.i32(i);
      return;
  }
}

/** The whole file in memory (our models are a few hundred kilobytes). */
export function encodeGguf(metadata: ReadonlyMap<string, MetadataValue>, tensors: readonly Tensor[]): Buffer {
  const out = new ByteSink();
  out.u32(GGUF_MAGIC).u32(GGUF_VERSION).u64(tensors.length).u64(metadata.size);
  for (const [key, value] of metadata) {
    out.string(key);
    writeValue(out, value);
  }
  let offset = 0;
  for (const t of tensors) {
    const elements = t.dims.reduce((a, b) => a * b, 1);
    if (elements !== t.data.length) throw new RangeError(`tensor ${t.name}: dims ${t.dims.join('x')} do not match ${t.data.length} values`);
    out.string(t.name).u32(t.dims.length);
    for (const d of t.dims) out.u64(d);
    out.u32(GGML_TYPE_F32).u64(offset);
    offset += Math.ceil(t.data.byteLength / ALIGNMENT) * ALIGNMENT;
  }
  out.pad();
  for (const t of tensors) {
    out.bytes(new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength)).pad();
  }
  return out.finish();
}
