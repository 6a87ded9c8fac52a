/**
 * BIP64's getutxos answer, as Core's rest.cpp writes it:
 *
 *   i32le chainHeight ‖ 32-byte chaintipHash (internal order) ‖ bitmap (compactsize length,
 *   bytes; bit i of byte i/8, least significant first, set when outpoint i is unspent) ‖
 *   utxos (compactsize count, then per unspent outpoint in request order: u32le 0 (Core's
 *   nTxVerDummy, the transaction version BIP64 once carried) ‖ u32le height ‖ i64le value ‖
 *   compactsize script length ‖ script).
 *
 * Unconfirmed outputs (with checkmempool) have height 2147483647, Core's MEMPOOL_HEIGHT.
 */
import { Writer, type ChainParams } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Coin } from '../chain/coins.ts';
import { amountToJson } from '@cs/runtime/amount';
import { scriptPubKeyToJson } from '../format/json.ts';
import type { JsonObject } from '../format/json-value.ts';

export interface UtxoAnswer {
  readonly tip: BlockIndexEntry;
  /** Per requested outpoint, its coin when unspent. */
  readonly coins: readonly (Coin | undefined)[];
}

function bitmap(coins: UtxoAnswer['coins']): Uint8Array {
  const bits = new Uint8Array(Math.ceil(coins.length / 8));
  coins.forEach((c, i) => {
    if (c) bits[i >> 3] |= 1 << (i & 7);
  });
  return bits;
}

export function encodeGetUtxos({ tip, coins }: UtxoAnswer): Uint8Array {
  const unspent = coins.filter((c) => c !== undefined);
  const w = new Writer(64 + unspent.reduce((n, c) => n + 24 + c.scriptPubKey.length, 0));
  w.i32le(tip.height).bytes(tip.hash).varBytes(bitmap(coins)).compactSize(unspent.length);
  for (const c of unspent) w.u32le(0).u32le(c.height).i64le(c.value).varBytes(c.scriptPubKey);
  return w.finish();
}

/** Core's JSON form: the bitmap as a string of '0' and '1', one per outpoint in request order. */
export function getUtxosToJson({ tip, coins }: UtxoAnswer, params: ChainParams): JsonObject {
  return {
    chainHeight: tip.height,
    chaintipHash: tip.hashHex,
    bitmap: coins.map((c) => (c ? '1' : '0')).join(''),
    utxos: coins
      .filter((c) => c !== undefined)
      .map((c) => ({ height: c.height, value: amountToJson(c.value), scriptPubKey: scriptPubKeyToJson(c.scriptPubKey, params) })),
  };
}
