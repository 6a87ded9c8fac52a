/**
 * The JSON of each WebSocket push (docs/notifications.md lists every field). Field names follow
 * the RPC results they mirror (getblock, getmempoolentry), amounts are in coins as in RPC.
 */
import { getDifficulty, hashToHex, type Block, type ChainParams } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import { amountToJson } from '@cs/runtime/amount';
import type { AddedEvent, RemovalReason, RemovedEvent } from '../mempool/events.ts';
import type { JsonObject } from '../format/json-value.ts';
import type { AddressActivity } from './address-activity.ts';

/** A block joining the active chain, or leaving it in a reorg (`disconnected: true`). */
export function newBlockPush(block: Block, entry: BlockIndexEntry, params: ChainParams, disconnected: boolean): JsonObject {
  const h = entry.header;
  return {
    type: 'new-blocks',
    hash: entry.hashHex,
    height: entry.height,
    previousblockhash: hashToHex(h.prevHash),
    time: h.time,
    mediantime: entry.medianTimePast(),
    version: h.version,
    merkleroot: hashToHex(h.merkleRoot),
    bits: h.bits.toString(16).padStart(8, '0'),
    difficulty: getDifficulty(h.bits, params.powLimitBits),
    chainwork: entry.chainWork.toString(16).padStart(64, '0'),
    nTx: block.txs.length,
    size: block.size,
    strippedsize: block.strippedSize,
    weight: block.weight,
    disconnected,
  };
}

export function mempoolAddedPush({ entry, sequence }: AddedEvent): JsonObject {
  return {
    type: 'mempool',
    event: 'added',
    txid: entry.txid,
    wtxid: entry.wtxid,
    fee: amountToJson(entry.fee),
    vsize: entry.vsize,
    weight: entry.weight,
    time: entry.time,
    sequence,
  };
}

export function mempoolRemovedPush({ entry, reason, sequence, replacedBy }: RemovedEvent): JsonObject {
  return {
    type: 'mempool',
    event: 'removed',
    txid: entry.txid,
    wtxid: entry.wtxid,
    reason,
    fee: amountToJson(entry.fee),
    vsize: entry.vsize,
    weight: entry.weight,
    sequence,
    ...(replacedBy ? { replacedby: replacedBy.txidHex } : {}),
  };
}

/**
 * Where a transaction touching a watched address stands:
 * - mempool: it entered the mempool;
 * - confirmed: a block on the active chain holds it;
 * - reorged: the block holding it left the active chain (it usually re-enters the mempool next);
 * - removed: it left the mempool without being confirmed (replaced, expired, evicted, conflict).
 */
export type AddressTxStatus =
  | { readonly status: 'mempool' }
  | { readonly status: 'confirmed' | 'reorged'; readonly block: BlockIndexEntry }
  | { readonly status: 'removed'; readonly reason: Exclude<RemovalReason, 'block'> };

export function addressTxPush(txid: string, activity: AddressActivity, where: AddressTxStatus): JsonObject {
  return {
    type: 'address-tx',
    address: activity.address,
    txid,
    status: where.status,
    confirmed: where.status === 'confirmed',
    received: amountToJson(activity.received),
    sent: amountToJson(activity.sent),
    ...('block' in where ? { blockhash: where.block.hashHex, height: where.block.height } : {}),
    ...('reason' in where ? { reason: where.reason } : {}),
  };
}
