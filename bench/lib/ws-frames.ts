/**
 * The subscriber's half of RFC 6455 framing for bench/ws.ts: reads the server's frames out of a
 * TCP byte stream however the kernel splits or joins them, and writes the client's masked frames.
 * Counting `data` events instead would drift as soon as one frame arrived in two reads or two in one.
 */

/** Opcodes (§5.2) the reader tells apart. */
export const Opcode = { TEXT: 0x1, CLOSE: 0x8, PING: 0x9, PONG: 0xa } as const;

export interface Frame {
  readonly opcode: number;
  readonly fin: boolean;
  /** The payload, but only for frames the caller asked to keep (see FrameReader); otherwise empty. */
  readonly payload: Buffer;
  readonly length: number;
}

/**
 * Parses a stream of unmasked server frames. Payloads of frames that `keep` accepts are
 * collected (control frames always are: a ping's payload goes back in the pong); the others are
 * skipped by length without being copied, so counting 1,000 streams costs what reading them does.
 */
export class FrameReader {
  /** Header bytes of the frame under way, when a read ended inside a header. */
  #head: Buffer = Buffer.alloc(0);
  /** Payload bytes of the current frame still to come; -1 while a header is awaited. */
  #remaining = -1;
  #opcode = 0;
  #fin = true;
  #length = 0;
  #parts: Buffer[] | null = null;

  constructor(private readonly keep: (opcode: number) => boolean = () => false) {}

  /** Feeds one chunk of the stream; returns the frames it completed, in order. Throws on a frame no server may send. */
  push(chunk: Buffer): Frame[] {
    const frames: Frame[] = [];
    let at = 0;
    while (at < chunk.length) {
      if (this.#remaining < 0) {
        const taken = this.#readHeader(chunk, at);
        if (taken < 0) return frames;
        at = taken;
      }
      const take = Math.min(this.#remaining, chunk.length - at);
      this.#parts?.push(chunk.subarray(at, at + take));
      at += take;
      this.#remaining -= take;
      if (this.#remaining === 0) frames.push(this.#finish());
    }
    return frames;
  }

  /** Reads the header at `at` (joined with bytes left from the last chunk); returns where the payload starts, or -1 when incomplete. */
  #readHeader(chunk: Buffer, at: number): number {
    const carried = this.#head.length;
    const bytes = carried === 0 ? chunk.subarray(at) : Buffer.concat([this.#head, chunk.subarray(at)]);
    if (bytes.length < 2) return this.#carry(bytes);
    if (bytes[1] & 0x80) throw new Error('server frame is masked (RFC 6455 §5.1 forbids it)');
    if (bytes[0] & 0x70) throw new Error('server frame sets a reserved bit without an extension');
    const short = bytes[1] & 0x7f;
    const size = short === 126 ? 4 : short === 127 ? 10 : 2;
    if (bytes.length < size) return this.#carry(bytes);
    this.#fin = (bytes[0] & 0x80) !== 0;
    this.#opcode = bytes[0] & 0x0f;
    this.#length = short === 126 ? bytes.readUInt16BE(2) : short === 127 ? Number(bytes.readBigUInt64BE(2)) : short;
    this.#remaining = this.#length;
    this.#parts = this.#opcode >= Opcode.CLOSE || this.keep(this.#opcode) ? [] : null;
    this.#head = Buffer.alloc(0);
    return at + size - carried;
  }

  #carry(bytes: Buffer): number {
    this.#head = Buffer.from(bytes);
    return -1;
  }

  #finish(): Frame {
    const payload = this.#parts ? Buffer.concat(this.#parts) : Buffer.alloc(0);
    this.#remaining = -1;
    this.#parts = null;
    return { opcode: this.#opcode, fin: this.#fin, payload, length: this.#length };
  }
}

/** A client frame (§5.3: always masked), FIN set. */
export function clientFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const size = length < 126 ? 2 : length < 0x10000 ? 4 : 10;
  const frame = Buffer.alloc(size + 4 + length);
  frame[0] = 0x80 | opcode;
  if (length < 126) frame[1] = 0x80 | length;
  else if (length < 0x10000) {
    frame[1] = 0x80 | 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 0x80 | 127;
    frame.writeBigUInt64BE(BigInt(length), 2);
  }
  const mask = crypto.getRandomValues(Buffer.alloc(4));
  mask.copy(frame, size);
  for (let i = 0; i < length; i++) frame[size + 4 + i] = payload[i] ^ mask[i & 3];
  return frame;
}
