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
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { JsonObject, JsonValue } from '../rpc/json.ts';

/**
 * Chain objects as JSON, shaped as Bitcoin Core prints them (TxToUniv, blockToJSON,
 * blockheaderToJSON, ScriptToUniv). RPC and REST both use these, so the two interfaces agree
 * field for field.
 */

/** Base units to coin units. Exact: every amount up to MAX_MONEY prints as its 8-decimal value. */
export function amountToJson(units: bigint): number {
  return Number(units) / 1e8;
}

/** Core's ScriptToUniv for output scripts: asm, hex, type, and address when the script has one. */
export function scriptPubKeyToJson(script: Uint8Array, params: ChainParams): JsonObject {
  const address = scriptToAddress(script, params.address);
  return {
    asm: toAsm(script),
    hex: toHex(script),
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
  /** Fee in base units when known (getblock verbosity 2 with undo data). */
  readonly fee?: bigint;
}

/** Core's TxToUniv. */
export function txToJson(tx: Transaction, params: ChainParams, opts: TxJsonOptions = {}): JsonObject {
  const coinbase = tx.isCoinbase();
  const vin = tx.inputs.map((input): JsonObject => {
    const witness = input.witness.length ? { txinwitness: input.witness.map(toHex) } : {};
    if (coinbase) return { coinbase: toHex(input.scriptSig), ...witness, sequence: input.sequence };
    return {
      txid: hashToHex(input.prevout.txid),
      vout: input.prevout.vout,
      scriptSig: { asm: toAsm(input.scriptSig, true), hex: toHex(input.scriptSig) },
      ...witness,
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
    ...(opts.fee !== undefined ? { fee: amountToJson(opts.fee) } : {}),
    ...(opts.includeHex ? { hex: toHex(tx.encode()) } : {}),
  };
}

/** What header JSON needs from the chain: confirmations and the next block depend on the active chain. */
export interface ChainView {
  readonly height: number;
  contains(e: BlockIndexEntry): boolean;
  next(e: BlockIndexEntry): BlockIndexEntry | undefined;
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

/** Core's blockToJSON: verbosity 1 lists txids, 2 full transactions (with fees when `fees` is given). */
export function blockToJson(
  block: Block,
  entry: BlockIndexEntry,
  chain: ChainView,
  params: ChainParams,
  verbosity: 1 | 2,
  fees?: readonly (bigint | undefined)[],
): JsonObject {
  const header = headerToJson(entry, chain, params);
  const { nTx, previousblockhash, nextblockhash, ...rest } = header;
  const tx: JsonValue[] =
    verbosity === 1
      ? block.txs.map((t) => t.txidHex)
      : block.txs.map((t, i) => txToJson(t, params, { includeHex: true, fee: fees?.[i] }));
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
