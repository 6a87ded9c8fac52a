import {
  getDifficulty,
  hashToHex,
  scriptToAddress,
  solver,
  toAsm,
  toHex,
  type Block,
  type ChainParams,
  type Transaction,
  type TxOut,
} from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Coin } from '../chain/coins.ts';
import type { BlockUndo } from '../chain/undo.ts';
import type { MempoolEntry } from '../mempool/entry.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { JsonObject, JsonValue } from './json-value.ts';

/**
 * Chain objects as JSON, shaped as Bitcoin Core prints them (TxToUniv, blockToJSON,
 * blockheaderToJSON, ScriptToUniv). RPC and REST both use these, so the two interfaces agree
 * field for field.
 */

/**
 * Core's ScriptToUniv for output scripts: asm, hex (unless `includeHex` is false, as decodescript
 * asks), address when the script has one, type. Core's `desc` is left out: csd has no output
 * descriptors.
 */
export function scriptPubKeyToJson(script: Uint8Array, params: ChainParams, includeHex = true): JsonObject {
  const address = scriptToAddress(script, params.address);
  return {
    asm: toAsm(script),
    ...(includeHex ? { hex: toHex(script) } : {}),
    ...(address ? { address } : {}),
    type: solver(script).type,
  };
}

export function txOutToJson(out: TxOut, n: number, params: ChainParams): JsonObject {
  return { value: amountToJson(out.value), n, scriptPubKey: scriptPubKeyToJson(out.scriptPubKey, params) };
}

export interface TxJsonOptions {
  /** Add the serialized transaction as `hex` (getrawtransaction verbose, getblock verbosity 2). */
  readonly includeHex?: boolean;
  /**
   * The coins the inputs spent, in input order (block undo data), when known: adds `fee`. Never
   * given for a coinbase, which spends nothing (Core's txundo).
   */
  readonly spent?: readonly Coin[];
  /** With `spent`, also show each input's `prevout` (getblock verbosity 3, getrawtransaction verbosity 2). */
  readonly prevouts?: boolean;
}

/** Core's TxToUniv. */
export function txToJson(tx: Transaction, params: ChainParams, opts: TxJsonOptions = {}): JsonObject {
  const coinbase = tx.isCoinbase();
  const { spent } = opts;
  const vin = tx.inputs.map((input, i): JsonObject => {
    const witness = input.witness.length ? { txinwitness: input.witness.map(toHex) } : {};
    const prevout = spent && opts.prevouts ? { prevout: prevoutToJson(spent[i], params) } : {};
    if (coinbase) return { coinbase: toHex(input.scriptSig), ...witness, sequence: input.sequence };
    return {
      txid: hashToHex(input.prevout.txid),
      vout: input.prevout.vout,
      scriptSig: { asm: toAsm(input.scriptSig, true), hex: toHex(input.scriptSig) },
      ...witness,
      ...prevout,
      sequence: input.sequence,
    };
  });
  return {
    txid: tx.txidHex,
    hash: tx.wtxidHex,
    version: tx.version,
    size: tx.size,
    vsize: tx.vsize,
    weight: tx.weight,
    locktime: tx.locktime,
    vin,
    vout: tx.outputs.map((o, n) => txOutToJson(o, n, params)),
    ...(spent ? { fee: amountToJson(txFee(tx, spent)) } : {}),
    ...(opts.includeHex ? { hex: toHex(tx.encode()) } : {}),
  };
}

/** What a transaction pays its miner: the value of the coins it spent minus the value of its outputs. */
function txFee(tx: Transaction, spent: readonly Coin[]): bigint {
  const inputs = spent.reduce((sum, c) => sum + c.value, 0n);
  return tx.outputs.reduce((rest, o) => rest - o.value, inputs);
}

/** The `prevout` of an input in Core's TxToUniv: the spent coin, with `generated` for a coinbase output. */
function prevoutToJson(coin: Coin, params: ChainParams): JsonObject {
  return {
    generated: coin.coinbase,
    height: coin.height,
    value: amountToJson(coin.value),
    scriptPubKey: scriptPubKeyToJson(coin.scriptPubKey, params),
  };
}

/** What header JSON needs from the chain: confirmations and the next block depend on the active chain. */
export interface ChainView {
  readonly height: number;
  contains(e: BlockIndexEntry): boolean;
  next(e: BlockIndexEntry): BlockIndexEntry | undefined;
}

/**
 * Where a confirmed transaction sits, as getrawtransaction shows it after the transaction's own
 * fields: `blockhash`, then `confirmations`, `time` and `blocktime` on the active chain, or
 * `confirmations` 0 for a block off it.
 */
export function txPlacementToJson(entry: BlockIndexEntry, chain: ChainView): JsonObject {
  if (!chain.contains(entry)) return { blockhash: entry.hashHex, confirmations: 0 };
  return { blockhash: entry.hashHex, confirmations: chain.height - entry.height + 1, time: entry.time, blocktime: entry.time };
}

/** -1 confirmations for a block off the active chain, as Core. */
export function confirmations(entry: BlockIndexEntry, chain: ChainView): number {
  return chain.contains(entry) ? chain.height - entry.height + 1 : -1;
}

/** Core's blockheaderToJSON, plus the Equihash nonce and solution as hex (docs/protocol.md). */
export function headerToJson(entry: BlockIndexEntry, chain: ChainView, params: ChainParams): JsonObject {
  const h = entry.header;
  const next = chain.next(entry);
  return {
    hash: entry.hashHex,
    confirmations: confirmations(entry, chain),
    height: entry.height,
    version: h.version,
    versionHex: (h.version >>> 0).toString(16).padStart(8, '0'),
    merkleroot: hashToHex(h.merkleRoot),
    time: h.time,
    mediantime: entry.medianTimePast(),
    nonce: toHex(h.nonce),
    solution: toHex(h.solution),
    bits: h.bits.toString(16).padStart(8, '0'),
    difficulty: getDifficulty(h.bits, params.powLimitBits),
    chainwork: entry.chainWork.toString(16).padStart(64, '0'),
    nTx: entry.txCount,
    ...(entry.prev ? { previousblockhash: entry.prev.hashHex } : {}),
    ...(next ? { nextblockhash: next.hashHex } : {}),
  };
}

/**
 * Core's blockToJSON: verbosity 1 lists txids; 2 full transactions, with fees when the block's
 * undo data is given; 3 adds each input's prevout from the undo data too.
 */
export function blockToJson(
  block: Block,
  entry: BlockIndexEntry,
  chain: ChainView,
  params: ChainParams,
  verbosity: 1 | 2 | 3,
  undo?: BlockUndo,
): JsonObject {
  const header = headerToJson(entry, chain, params);
  const { nTx, previousblockhash, nextblockhash, ...rest } = header;
  const tx: JsonValue[] =
    verbosity === 1
      ? block.txs.map((t) => t.txidHex)
      : block.txs.map((t, i) =>
          // The undo data skips the coinbase: transaction i spent undo[i - 1].
          txToJson(t, params, { includeHex: true, spent: i > 0 ? undo?.[i - 1] : undefined, prevouts: verbosity === 3 }),
        );
  return {
    ...rest,
    nTx,
    ...(previousblockhash !== undefined ? { previousblockhash } : {}),
    ...(nextblockhash !== undefined ? { nextblockhash } : {}),
    strippedsize: block.strippedSize,
    size: block.size,
    weight: block.weight,
    tx,
  };
}

/**
 * Core's entryToJSON (getrawmempool verbose, getmempoolentry, getmempoolancestors/descendants,
 * REST mempool/contents). `unbroadcast` is the mempool's unbroadcast set, taken once per call.
 * Sizes are the sigop-adjusted virtual sizes the pool's limits use, as in Core.
 */
export function mempoolEntryToJson(entry: MempoolEntry, mempool: Mempool, unbroadcast: ReadonlySet<string>): JsonObject {
  const txids = (set: ReadonlySet<MempoolEntry>) => [...set].map((e) => e.txid).sort();
  return {
    vsize: entry.vsize,
    weight: entry.weight,
    time: entry.time,
    height: entry.height,
    descendantcount: entry.countWithDescendants,
    descendantsize: entry.sizeWithDescendants,
    ancestorcount: entry.countWithAncestors,
    ancestorsize: entry.sizeWithAncestors,
    wtxid: entry.wtxid,
    fees: {
      base: amountToJson(entry.fee),
      modified: amountToJson(entry.modifiedFee),
      ancestor: amountToJson(entry.modFeesWithAncestors),
      descendant: amountToJson(entry.modFeesWithDescendants),
    },
    depends: txids(entry.parents),
    spentby: txids(entry.children),
    'bip125-replaceable': mempool.isReplaceable(entry),
    unbroadcast: unbroadcast.has(entry.txid),
  };
}
