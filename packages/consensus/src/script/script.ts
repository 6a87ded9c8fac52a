import { DecodeError } from '../encoding/errors.ts';
import { Op } from './opcodes.ts';

/** Consensus limits of legacy and witness v0 scripts (Core's script.h). */
export const MAX_SCRIPT_ELEMENT_SIZE = 520;
export const MAX_SCRIPT_SIZE = 10_000;
export const MAX_OPS_PER_SCRIPT = 201;
export const MAX_STACK_SIZE = 1000;
export const MAX_PUBKEYS_PER_MULTISIG = 20;

/**
 * Allocation-free cursor over a script's operations, with the exact semantics of Core's GetOp:
 * after a failed `next()` the position is where Core's iterator stops (past the opcode and any
 * length bytes of a truncated push), which legacy signature hashing depends on.
 */
export class ScriptReader {
  /** Offset of the next operation. */
  pos: number;
  /** Last opcode read; OP_INVALIDOPCODE after a failure. */
  opcode: number = Op.OP_INVALIDOPCODE;
  /** Push data of the last operation is script[dataStart, dataEnd) (empty for non-push opcodes). */
  dataStart = 0;
  dataEnd = 0;

  constructor(
    public script: Uint8Array,
    start = 0,
  ) {
    this.pos = start;
  }

  /** Starts over on `script`: a hot caller keeps one reader instead of making one per script. */
  reset(script: Uint8Array, start = 0): this {
    this.script = script;
    this.pos = start;
    this.opcode = Op.OP_INVALIDOPCODE;
    this.dataStart = this.dataEnd = 0;
    return this;
  }

  /** Reads the next operation; false at the end of the script or on a truncated push. */
  next(): boolean {
    const s = this.script;
    const end = s.length;
    this.opcode = Op.OP_INVALIDOPCODE;
    this.dataStart = this.dataEnd = this.pos;
    if (this.pos >= end) return false;
    const opcode = s[this.pos++];
    let size = 0;
    if (opcode <= Op.OP_PUSHDATA4) {
      const p = this.pos;
      if (opcode < Op.OP_PUSHDATA1) {
        size = opcode;
      } else if (opcode === Op.OP_PUSHDATA1) {
        if (end - p < 1) return false;
        size = s[p];
        this.pos = p + 1;
      } else if (opcode === Op.OP_PUSHDATA2) {
        if (end - p < 2) return false;
        size = s[p] | (s[p + 1] << 8);
        this.pos = p + 2;
      } else {
        if (end - p < 4) return false;
        size = (s[p] | (s[p + 1] << 8) | (s[p + 2] << 16) | (s[p + 3] << 24)) >>> 0;
        this.pos = p + 4;
      }
      if (end - this.pos < size) return false;
    }
    this.dataStart = this.pos;
    this.pos += size;
    this.dataEnd = this.pos;
    this.opcode = opcode;
    return true;
  }

  /** The last operation's push data, as a view into the script. */
  data(): Uint8Array {
    return this.script.subarray(this.dataStart, this.dataEnd);
  }
}

/** One operation of a parsed script. `data` is set exactly for the push opcodes OP_0..OP_PUSHDATA4. */
export interface ScriptOp {
  readonly opcode: number;
  readonly data?: Uint8Array;
  /** Byte offset of the opcode in the script. */
  readonly offset: number;
}

/**
 * Splits a script into operations. A push running past the end is a DecodeError ('truncated'),
 * the typed failure of every decoder here; any bytes can appear in an output, so callers that
 * handle arbitrary scripts must expect it.
 */
export function parseScript(script: Uint8Array): ScriptOp[] {
  const ops: ScriptOp[] = [];
  const r = new ScriptReader(script);
  while (r.pos < script.length) {
    const offset = r.pos;
    if (!r.next()) throw new DecodeError('truncated', `push at offset ${offset} runs past the end of the script`);
    ops.push(r.opcode <= Op.OP_PUSHDATA4 ? { opcode: r.opcode, data: r.data(), offset } : { opcode: r.opcode, offset });
  }
  return ops;
}

/** Serializes operations, keeping each push's own opcode (so parse → serialize is the identity). */
export function serializeOps(ops: readonly ScriptOp[]): Uint8Array {
  const b = new ScriptBuilder();
  for (const op of ops) {
    if (op.opcode > Op.OP_PUSHDATA4) {
      b.op(op.opcode);
      continue;
    }
    const data = op.data ?? new Uint8Array(0);
    if (op.opcode < Op.OP_PUSHDATA1 && op.opcode !== data.length) {
      throw new RangeError(`push opcode ${op.opcode} cannot carry ${data.length} bytes`);
    }
    b.pushWith(op.opcode, data);
  }
  return b.build();
}

/** A script number was longer than allowed or, under MINIMALDATA, not minimally encoded. */
export class ScriptNumError extends Error {
  override readonly name = 'ScriptNumError';
}

/**
 * Core's CScriptNum from stack bytes: little-endian magnitude with the sign in the top bit of the
 * last byte. `maxSize` is 4 for arithmetic and 5 for lock times; it must stay at most 6 so that
 * every value is an exact JS number (which also keeps the interpreter free of bigint).
 */
export function decodeScriptNum(bytes: Uint8Array, requireMinimal: boolean, maxSize = 4): number {
  const len = bytes.length;
  if (len > maxSize) throw new ScriptNumError(`script number overflow (${len} > ${maxSize} bytes)`);
  if (len === 0) return 0;
  const last = bytes[len - 1];
  // The top byte (sign bit aside) may only be zero when the byte below needs its top bit,
  // which also rules out negative zero (0x80).
  if (requireMinimal && (last & 0x7f) === 0 && (len === 1 || (bytes[len - 2] & 0x80) === 0)) {
    throw new ScriptNumError('non-minimally encoded script number');
  }
  let value = last & 0x7f;
  for (let i = len - 2; i >= 0; i--) value = value * 256 + bytes[i];
  // 0 - value rather than -value: negative zero must come out as plain 0.
  return last & 0x80 ? 0 - value : value;
}

const SMALL_NUMS: Uint8Array[] = [];
for (let n = -1; n <= 16; n++) SMALL_NUMS.push(encodeNum(n));

/** Core's CScriptNum::serialize (minimal encoding). Small values share one immutable array each. */
export function encodeScriptNum(n: number): Uint8Array {
  if (n >= -1 && n <= 16) return SMALL_NUMS[n + 1];
  return encodeNum(n);
}

function encodeNum(n: number): Uint8Array {
  if (!Number.isSafeInteger(n)) throw new RangeError(`script number must be a safe integer: ${n}`);
  if (n === 0) return new Uint8Array(0);
  const neg = n < 0;
  let abs = neg ? -n : n;
  const out: number[] = [];
  while (abs > 0) {
    out.push(abs % 256);
    abs = Math.floor(abs / 256);
  }
  // The sign lives in the top bit of the last byte; add a byte if that bit is taken.
  if (out[out.length - 1] & 0x80) out.push(neg ? 0x80 : 0);
  else if (neg) out[out.length - 1] |= 0x80;
  return Uint8Array.from(out);
}

/** Core's CheckMinimalPush: `data` pushed with `opcode` uses the shortest possible push. */
export function checkMinimalPush(data: Uint8Array, opcode: number): boolean {
  const len = data.length;
  if (len === 0) return opcode === Op.OP_0;
  if (len === 1 && data[0] >= 1 && data[0] <= 16) return false; // should be OP_1..OP_16
  if (len === 1 && data[0] === 0x81) return false; // should be OP_1NEGATE
  if (len <= 75) return opcode === len;
  if (len <= 255) return opcode === Op.OP_PUSHDATA1;
  if (len <= 65535) return opcode === Op.OP_PUSHDATA2;
  return true;
}

/** The opcode Core's `CScript << data` picks: a direct push up to 75 bytes, then PUSHDATA1/2/4. */
export function pushOpcodeFor(length: number): number {
  if (length < Op.OP_PUSHDATA1) return length;
  if (length <= 0xff) return Op.OP_PUSHDATA1;
  if (length <= 0xffff) return Op.OP_PUSHDATA2;
  return Op.OP_PUSHDATA4;
}

/** Bytes of `CScript() << data`: the data behind its length-prefix push opcode. */
export function pushData(data: Uint8Array): Uint8Array {
  return new ScriptBuilder(data.length + 5).push(data).build();
}

/**
 * Builds scripts the way Core's CScript stream operators do, so that builders, tests and the
 * interpreter's own comparisons (P2SH-witness malleability, FindAndDelete) agree byte for byte.
 */
export class ScriptBuilder {
  private buf: Uint8Array;
  private len = 0;

  constructor(capacity = 64) {
    this.buf = new Uint8Array(capacity);
  }

  private ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  op(opcode: number): this {
    this.ensure(1);
    this.buf[this.len++] = opcode;
    return this;
  }

  /** `<< data`: a length-prefix push (empty data is OP_0; one-byte values are not turned into OP_N). */
  push(data: Uint8Array): this {
    return this.pushWith(pushOpcodeFor(data.length), data);
  }

  /** A push using the given push opcode, which must be able to carry `data`. */
  pushWith(opcode: number, data: Uint8Array): this {
    const n = data.length;
    this.ensure(n + 5);
    this.buf[this.len++] = opcode;
    if (opcode === Op.OP_PUSHDATA1) {
      if (n > 0xff) throw new RangeError('OP_PUSHDATA1 carries at most 255 bytes');
      this.buf[this.len++] = n;
    } else if (opcode === Op.OP_PUSHDATA2) {
      if (n > 0xffff) throw new RangeError('OP_PUSHDATA2 carries at most 65535 bytes');
      this.buf[this.len++] = n & 0xff;
      this.buf[this.len++] = n >>> 8;
    } else if (opcode === Op.OP_PUSHDATA4) {
      this.buf[this.len++] = n & 0xff;
      this.buf[this.len++] = (n >>> 8) & 0xff;
      this.buf[this.len++] = (n >>> 16) & 0xff;
      this.buf[this.len++] = n >>> 24;
    } else if (opcode !== n) {
      throw new RangeError(`push opcode ${opcode} cannot carry ${n} bytes`);
    }
    this.buf.set(data, this.len);
    this.len += n;
    return this;
  }

  /** `<< int64`: OP_0, OP_1NEGATE, OP_1..OP_16, or a minimal script-number push. */
  pushInt(n: number): this {
    if (n === 0) return this.op(Op.OP_0);
    if (n === -1 || (n >= 1 && n <= 16)) return this.op(Op.OP_1 + n - 1);
    return this.push(encodeScriptNum(n));
  }

  /** Appends raw bytes (not a push), as Core's script_tests notation does for 0x tokens. */
  raw(bytes: Uint8Array): this {
    this.ensure(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
    return this;
  }

  build(): Uint8Array {
    return this.buf.slice(0, this.len);
  }
}

/**
 * Core's FindAndDelete: removes every occurrence of `pattern` that starts at an operation
 * boundary, returning the original array when nothing matched. Legacy signature checks use it to
 * strip the signature from the scriptCode it commits to.
 */
export function findAndDelete(script: Uint8Array, pattern: Uint8Array): { script: Uint8Array; count: number } {
  const plen = pattern.length;
  if (plen === 0) return { script, count: 0 };
  const r = new ScriptReader(script);
  const kept: Uint8Array[] = [];
  let count = 0;
  let copyFrom = 0;
  for (;;) {
    let pc = r.pos;
    if (pc > copyFrom) kept.push(script.subarray(copyFrom, pc));
    while (script.length - pc >= plen && matchesAt(script, pc, pattern)) {
      pc += plen;
      count++;
    }
    copyFrom = pc;
    r.pos = pc;
    if (!r.next()) break;
  }
  if (count === 0) return { script, count };
  kept.push(script.subarray(copyFrom));
  let total = 0;
  for (const k of kept) total += k.length;
  const out = new Uint8Array(total);
  let o = 0;
  for (const k of kept) {
    out.set(k, o);
    o += k.length;
  }
  return { script: out, count };
}

function matchesAt(script: Uint8Array, pos: number, pattern: Uint8Array): boolean {
  for (let i = 0; i < pattern.length; i++) if (script[pos + i] !== pattern[i]) return false;
  return true;
}
