/**
 * ZeroMQ message bodies and the sequence-number frame, byte for byte as Core publishes them
 * (src/zmq/zmqpublishnotifier.cpp).
 */

/**
 * A block or transaction hash as hashblock, hashtx and sequence carry it: reversed from the
 * internal order, i.e. the byte order RPC prints (Core's doc calls it "Little Endian").
 */
export function hashBody(hash: Uint8Array): Uint8Array {
  return Uint8Array.from(hash).reverse();
}

/** The sequence topic's body for a block: hash (RPC order) ‖ 'C' (connected) or 'D' (disconnected). */
export function blockSequenceBody(hash: Uint8Array, label: 'C' | 'D'): Uint8Array {
  const body = Buffer.alloc(33);
  body.set(hashBody(hash), 0);
  body[32] = label.charCodeAt(0);
  return body;
}

/**
 * The sequence topic's body for a mempool change: txid (RPC order) ‖ 'A' (added) or 'R' (removed
 * other than by a block) ‖ the mempool sequence number, 8 bytes little-endian.
 */
export function mempoolSequenceBody(txid: Uint8Array, label: 'A' | 'R', mempoolSequence: number): Uint8Array {
  const body = Buffer.alloc(41);
  body.set(hashBody(txid), 0);
  body[32] = label.charCodeAt(0);
  body.writeBigUInt64LE(BigInt(mempoolSequence), 33);
  return body;
}

/** The third frame of every message: the notifier's message count, 4 bytes little-endian. */
export function sequenceFrame(count: number): Buffer {
  const frame = Buffer.alloc(4);
  frame.writeUInt32LE(count);
  return frame;
}
