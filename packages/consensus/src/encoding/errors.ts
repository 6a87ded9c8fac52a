/**
 * Typed failures of the decoders. Every malformed input ends in a DecodeError with a code that
 * callers (RPC, P2P, storage) can map to their own reject reasons; nothing else escapes a decoder.
 */
export type DecodeErrorCode =
  | 'truncated' // the data ends before the structure does
  | 'trailing' // bytes are left over after a complete structure
  | 'oversize' // a length prefix or count exceeds what the format allows
  | 'non-canonical' // an encoding that has a shorter canonical form (compactsize) or is otherwise ambiguous
  | 'invalid'; // any other structural violation (bad flag byte, bad hex...)

export class DecodeError extends Error {
  override readonly name = 'DecodeError';
  constructor(
    readonly code: DecodeErrorCode,
    message: string,
  ) {
    super(message);
  }
}
