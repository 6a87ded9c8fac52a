/**
 * What a block changes for each address it touches: the address index's unit of work. The same
 * list, stored per block, is what takes the block out again on a reorg (indexes/address-store.ts),
 * so disconnecting never depends on the chain's undo data, which the chain deletes as it
 * disconnects.
 */
import { Reader, Writer, scriptToDestination, sha256, type Block } from '@cs/consensus';
import type { BlockUndo } from '../chain/undo.ts';

/** The index's key for an output script: SHA-256 of the script (fixed length, whatever the script type). */
export function addressKey(script: Uint8Array): Buffer {
  return Buffer.from(sha256(script));
}

/** What one block did to one address. */
export interface AddressDelta {
  /** addressKey of the address's script. */
  readonly key: Buffer;
  /** Sum of the block's outputs paying the address (base units). */
  readonly received: bigint;
  /** Sum of the address's coins the block's inputs spent. */
  readonly sent: bigint;
  /** Positions in the block of the transactions touching the address, each once, ascending. */
  readonly positions: readonly number[];
}

interface Accumulator {
  readonly key: Buffer;
  received: bigint;
  sent: bigint;
  readonly positions: number[];
}

/**
 * Every address `block` touches, with what it received and spent there. Only scripts with an
 * address form are counted (P2PKH, P2SH, witness programs): a bare public key or multisig output
 * has no address to ask for. `spent` is the block's undo data: the coins its inputs spent.
 */
export function blockAddressDeltas(block: Block, spent: BlockUndo): AddressDelta[] {
  const byKey = new Map<string, Accumulator>();
  const touch = (script: Uint8Array, position: number): Accumulator | undefined => {
    if (scriptToDestination(script) === null) return undefined;
    const key = addressKey(script);
    const id = key.toString('latin1');
    let acc = byKey.get(id);
    if (acc === undefined) {
      acc = { key, received: 0n, sent: 0n, positions: [] };
      byKey.set(id, acc);
    }
    // Transactions are visited in block order, so a repeat can only be the last one listed.
    if (acc.positions[acc.positions.length - 1] !== position) acc.positions.push(position);
    return acc;
  };
  block.txs.forEach((tx, position) => {
    // Undo data skips the coinbase, which spends nothing: transaction i spent spent[i - 1].
    if (position > 0) {
      for (const coin of spent[position - 1]) {
        const acc = touch(coin.scriptPubKey, position);
        if (acc) acc.sent += coin.value;
      }
    }
    for (const out of tx.outputs) {
      const acc = touch(out.scriptPubKey, position);
      if (acc) acc.received += out.value;
    }
  });
  return [...byKey.values()];
}

/** The per-block record: compactsize count, then key ‖ i64le received ‖ i64le sent ‖ compactsize n ‖ n × u32le position. */
export function encodeDeltas(deltas: readonly AddressDelta[]): Buffer {
  const w = new Writer(64 * deltas.length + 8);
  w.compactSize(deltas.length);
  for (const d of deltas) {
    w.bytes(d.key).i64le(d.received).i64le(d.sent).compactSize(d.positions.length);
    for (const p of d.positions) w.u32le(p);
  }
  const bytes = w.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function decodeDeltas(bytes: Uint8Array): AddressDelta[] {
  const r = new Reader(bytes);
  const deltas: AddressDelta[] = [];
  const count = r.compactSize();
  for (let i = 0; i < count; i++) {
    const key = Buffer.from(r.bytes(32, 'address key'));
    const received = r.i64le();
    const sent = r.i64le();
    const positions: number[] = [];
    const n = r.compactSize();
    for (let j = 0; j < n; j++) positions.push(r.u32le());
    deltas.push({ key, received, sent, positions });
  }
  r.end('address deltas');
  return deltas;
}
