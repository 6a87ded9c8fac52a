import { Reader, Writer } from '@cs/consensus';
import { readCoin, writeCoin, type Coin } from './coins.ts';

/**
 * What connecting a block consumed: for each non-coinbase transaction, the coins its inputs
 * spent, in input order. Disconnecting the block puts them back.
 */
export type BlockUndo = Coin[][];

export function encodeUndo(undo: BlockUndo): Buffer {
  const w = new Writer(1024);
  w.compactSize(undo.length);
  for (const spent of undo) {
    w.compactSize(spent.length);
    for (const c of spent) writeCoin(w, c);
  }
  const bytes = w.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export function decodeUndo(bytes: Uint8Array): BlockUndo {
  const r = new Reader(bytes);
  const undo: BlockUndo = [];
  const txs = r.compactSize();
  for (let i = 0; i < txs; i++) {
    const n = r.compactSize();
    const spent: Coin[] = [];
    for (let j = 0; j < n; j++) spent.push(readCoin(r));
    undo.push(spent);
  }
  r.end('block undo');
  return undo;
}
