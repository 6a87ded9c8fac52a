/**
 * Bitcoin's message framing with our network magic: 4 magic bytes, a 12-byte NUL-padded command,
 * the payload length (uint32 LE) and the first 4 bytes of SHA256d(payload), then the payload.
 */
import { bytesEqual, sha256d } from '@cs/consensus';
import { MAX_MESSAGE_SIZE } from './protocol.ts';

export const FRAME_HEADER_SIZE = 24;
const COMMAND_SIZE = 12;

export interface Frame {
  readonly command: string;
  readonly payload: Uint8Array;
  /** Bytes on the wire, header included (per-message byte counters). */
  readonly size: number;
}

/** Why a stream cannot be read on: the connection has to be closed. */
export class FrameError extends Error {
  override readonly name = 'FrameError';
  constructor(
    readonly code: 'bad-magic' | 'oversize',
    message: string,
  ) {
    super(message);
  }
}

/**
 * A frame the stream can go on after but that carries nothing usable (Core drops these and
 * counts their bytes): a wrong checksum or a command that is not NUL-padded printable ASCII.
 */
export interface DroppedFrame {
  readonly dropped: 'bad-checksum' | 'bad-command';
  readonly command: string;
  readonly size: number;
}

export function encodeFrame(magic: Uint8Array, command: string, payload: Uint8Array): Buffer {
  if (command.length > COMMAND_SIZE || !/^[\x21-\x7e]*$/.test(command)) throw new Error(`bad command ${command}`);
  const out = Buffer.alloc(FRAME_HEADER_SIZE + payload.length);
  out.set(magic, 0);
  out.write(command, 4, 'ascii');
  out.writeUInt32LE(payload.length, 16);
  out.set(sha256d(payload).subarray(0, 4), 20);
  out.set(payload, FRAME_HEADER_SIZE);
  return out;
}

/**
 * Turns a TCP byte stream into frames. Chunks are kept as they come and joined only once a whole
 * frame is there, so a 4 MB block arriving in 64 KB reads is copied once, not once per read.
 * The header is checked as soon as its 24 bytes are in: a wrong magic or an oversized length
 * fails before the payload is waited for or buffered.
 */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private header: { command: string; commandOk: boolean; length: number; checksum: Buffer } | null = null;

  constructor(
    private readonly magic: Uint8Array,
    private readonly maxSize = MAX_MESSAGE_SIZE,
  ) {}

  /** Bytes received but not yet part of a returned frame. */
  get pending(): number {
    return this.buffered;
  }

  /** Adds bytes and returns every frame they complete; throws FrameError when the stream is unusable. */
  push(chunk: Buffer): (Frame | DroppedFrame)[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const out: (Frame | DroppedFrame)[] = [];
    for (;;) {
      if (!this.header) {
        if (this.buffered < FRAME_HEADER_SIZE) return out;
        this.header = this.readHeader(this.take(FRAME_HEADER_SIZE));
      }
      const { command, commandOk, length, checksum } = this.header;
      if (this.buffered < length) return out;
      const payload = this.take(length);
      this.header = null;
      const size = FRAME_HEADER_SIZE + length;
      if (!commandOk) out.push({ dropped: 'bad-command', command, size });
      else if (!bytesEqual(sha256d(payload).subarray(0, 4), checksum)) out.push({ dropped: 'bad-checksum', command, size });
      else out.push({ command, payload, size });
    }
  }

  private readHeader(h: Buffer): { command: string; commandOk: boolean; length: number; checksum: Buffer } {
    if (!bytesEqual(h.subarray(0, 4), this.magic)) throw new FrameError('bad-magic', `wrong network magic ${h.subarray(0, 4).toString('hex')}`);
    const raw = h.subarray(4, 4 + COMMAND_SIZE);
    const end = raw.indexOf(0);
    const name = raw.subarray(0, end < 0 ? COMMAND_SIZE : end);
    // Core's IsCommandValid: printable characters, then only NULs.
    const commandOk = name.every((c) => c >= 0x20 && c <= 0x7e) && raw.subarray(name.length).every((c) => c === 0);
    const command = name.toString('latin1');
    const length = h.readUInt32LE(16);
    if (length > this.maxSize) throw new FrameError('oversize', `${command} message of ${length} bytes exceeds the ${this.maxSize}-byte limit`);
    return { command, commandOk, length, checksum: Buffer.from(h.subarray(20, 24)) };
  }

  /** The next n buffered bytes, removed from the buffer. */
  private take(n: number): Buffer {
    if (n === 0) return Buffer.alloc(0);
    let out: Buffer;
    if (this.chunks[0].length >= n) {
      out = this.chunks[0].subarray(0, n);
    } else {
      const all = Buffer.concat(this.chunks, this.buffered);
      this.chunks = [all];
      out = all.subarray(0, n);
    }
    const rest = this.chunks[0].subarray(n);
    if (rest.length > 0) this.chunks[0] = rest;
    else this.chunks.shift();
    this.buffered -= n;
    return out;
  }
}
