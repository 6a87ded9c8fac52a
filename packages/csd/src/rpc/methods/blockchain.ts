/**
 * The Blockchain category, as Core's rpc/blockchain.cpp and rpc/mempool.cpp offer it: the active
 * chain and its blocks, the UTXO set, the mempool's contents, and invalidate/reconsider. Results
 * are shaped by format/json.ts, which REST shares, so both interfaces agree field for field.
 */
import { createHash } from 'node:crypto';
import { Block, ValidationError, Writer, getDifficulty, hashFromHex, hashToHex, type OutPoint } from '@cs/consensus';
import type { BlockIndexEntry } from '../../chain/block-index.ts';
import { encodeCoin } from '../../chain/coins.ts';
import type { Chain } from '../../chain/chainstate.ts';
import { amountToJson } from '@cs/runtime/amount';
import { blockToJson, headerToJson, mempoolEntryToJson, scriptPubKeyToJson } from '../../format/json.ts';
import { MEMPOOL_HEIGHT } from '../../mempool/coin-view.ts';
import type { MempoolEntry } from '../../mempool/entry.ts';
import { mempoolInfoJson } from '../../mempool/info.ts';
import type { ChainContext } from '../context.ts';
import { RpcError, RpcErrorCode } from '../errors.ts';
import { type JsonObject, type JsonValue, withJsonText } from '../../format/json-value.ts';
import { INT32_MAX, INT32_MIN, jsonInteger, parseHashV, parseVerbosity } from '../params.ts';
import type { RpcRegistry } from '../registry.ts';

/**
 * Core's DEFAULT_MAX_TIP_AGE: a node whose tip is older than a day is still catching up (initial
 * block download). The same window decides when verificationprogress reaches 1.
 */
export const MAX_TIP_AGE = 24 * 60 * 60;

/** The block with this hash, or Core's -5 "Block not found". */
export function lookupBlock(chain: Chain, hash: string): BlockIndexEntry {
  const entry = chain.entry(hash);
  if (!entry) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'Block not found');
  return entry;
}

// ---- chain state summaries ----

/**
 * Core's GuessVerificationProgress, simplified: Core estimates the transactions still to come
 * from a hard-coded transaction rate, which a young chain does not have. csd counts blocks: the
 * blocks expected since the tip, beyond the MAX_TIP_AGE window in which a tip still counts as
 * current, are the ones missing. So the progress is 1 while the tip is at most a day old (the
 * rule initialblockdownload uses) and falls smoothly as the tip ages past that.
 */
function verificationProgress(tip: BlockIndexEntry, bestHeader: BlockIndexEntry, now: number, targetSpacing: number): number {
  // Blocks whose headers are known but which are not connected yet are missing too.
  const missing = Math.max(0, now - tip.time - MAX_TIP_AGE) / targetSpacing;
  const byTime = missing === 0 ? 1 : tip.height / (tip.height + missing);
  return bestHeader.height > tip.height ? Math.min(byTime, tip.height / bestHeader.height) : byTime;
}

/**
 * Core's IsInitialBlockDownload: true while the tip is older than MAX_TIP_AGE by the node's clock,
 * and false for good once it has been false, so a node whose blocks merely slow down does not
 * flip back (Core latches the same way). Core also requires the network's minimum chain work;
 * the cs chain has no such checkpoint, so on regtest the first freshly mined block ends it.
 */
function initialBlockDownload(ctx: ChainContext): () => boolean {
  let finished = false;
  return () => {
    if (finished) return false;
    if (ctx.chain.tip.time < ctx.clock.now() - MAX_TIP_AGE) return true;
    // Still a day's worth of blocks behind the best known header: syncing, however recent the tip.
    if (ctx.chain.bestHeader.height - ctx.chain.tip.height > MAX_TIP_AGE / ctx.params.targetSpacing) return true;
    finished = true;
    return false;
  };
}

/** Height of the most-work header not known to be invalid (Core's m_best_header). */
export interface WalkPacing {
  readonly yieldEvery?: number;
  /** What a pause waits for; by default the next turn of the event loop. */
  readonly pause?: () => Promise<void>;
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * What gettxoutsetinfo reports, in one pass over the UTXO set (in key order: txid, then index).
 *
 * `hash_serialized_3` is SHA256d over every coin serialized as Core's TxOutSer does: the outpoint
 * (txid in internal byte order, index as u32le), u32le(height × 2 + coinbase), the value (i64le)
 * and the script (compactsize length + bytes). Core walks its coins in LevelDB key order, so equal
 * sets hash alike within csd, not necessarily across implementations.
 *
 * The walk reads one LMDB snapshot, taken when it starts, and pauses every `yieldEvery` coins to
 * give the event loop a turn: a large UTXO set takes many seconds to walk, during which other
 * calls are served and blocks keep connecting, without changing what the walk sees.
 */
export async function utxoSetStats(chain: Chain, withHash: boolean, { yieldEvery = 4096, pause = nextTurn }: WalkPacing = {}) {
  const hasher = withHash ? createHash('sha256') : null;
  let txouts = 0;
  let transactions = 0;
  let bogosize = 0;
  let totalAmount = 0n;
  let diskSize = 0;
  let lastTxid: Buffer | null = null;
  for (const { key, coin } of chain.coins()) {
    if (txouts > 0 && txouts % yieldEvery === 0) await pause();
    const txid = key.subarray(0, 32);
    if (lastTxid === null || !txid.equals(lastTxid)) {
      transactions++;
      // A copy: the database may hand out the next key in the same buffer.
      lastTxid = Buffer.from(txid);
    }
    txouts++;
    // Core's GetBogoSize: txid, index, height and coinbase flag, amount, script length, script.
    bogosize += 32 + 4 + 4 + 8 + 2 + coin.scriptPubKey.length;
    totalAmount += coin.value;
    diskSize += key.length + encodeCoin(coin).length;
    if (hasher) {
      const w = new Writer(64 + coin.scriptPubKey.length)
        .bytes(txid)
        .u32le(key.readUInt32BE(32))
        .u32le((coin.height * 2 + (coin.coinbase ? 1 : 0)) >>> 0)
        .i64le(coin.value)
        .varBytes(coin.scriptPubKey);
      hasher.update(w.finish());
    }
  }
  const hash = hasher ? hashToHex(createHash('sha256').update(hasher.digest()).digest()) : null;
  return { txouts, transactions, bogosize, totalAmount, diskSize, hash };
}

// ---- mempool listings ----

/**
 * Core's GetSortedDepthAndScore: fewer in-pool ancestors first, then higher modified fee rate,
 * then by txid, so that parents come before their children.
 */
function sortedByDepthAndScore(entries: Iterable<MempoolEntry>): MempoolEntry[] {
  return [...entries].sort((a, b) => {
    if (a.countWithAncestors !== b.countWithAncestors) return a.countWithAncestors - b.countWithAncestors;
    const fa = a.modifiedFee * BigInt(b.vsize);
    const fb = b.modifiedFee * BigInt(a.vsize);
    if (fa !== fb) return fa > fb ? -1 : 1;
    return a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : 0;
  });
}

function mempoolEntryOrThrow(ctx: ChainContext, txid: string): MempoolEntry {
  const entry = ctx.mempool.get(txid);
  if (!entry) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
  return entry;
}

/** A list of txids, or with `verbose` an object of entries by txid (getmempoolancestors/descendants). */
function entriesJson(ctx: ChainContext, entries: Iterable<MempoolEntry>, verbose: boolean): JsonValue {
  const sorted = [...entries].sort((a, b) => (a.txid < b.txid ? -1 : a.txid > b.txid ? 1 : 0));
  if (!verbose) return sorted.map((e) => e.txid);
  const unbroadcast = new Set(ctx.mempool.unbroadcast());
  return Object.fromEntries(sorted.map((e) => [e.txid, mempoolEntryToJson(e, ctx.mempool, unbroadcast)]));
}

// ---- help texts shared by several methods ----

const HEADER_RESULT = [
  '  "hash" : "hex",              (string) the block hash (same as provided)',
  '  "confirmations" : n,         (numeric) The number of confirmations, or -1 if the block is not on the main chain',
  '  "height" : n,                (numeric) The block height or index',
  '  "version" : n,               (numeric) The block version',
  '  "versionHex" : "hex",        (string) The block version formatted in hexadecimal',
  '  "merkleroot" : "hex",        (string) The merkle root',
  '  "time" : xxx,                (numeric) The block time expressed in UNIX epoch time',
  '  "mediantime" : xxx,          (numeric) The median block time expressed in UNIX epoch time',
  '  "nonce" : "hex",             (string) The 32-byte Equihash header nonce, hex-encoded',
  '  "solution" : "hex",          (string) The Equihash solution, hex-encoded',
  '  "bits" : "hex",              (string) The bits',
  '  "difficulty" : n,            (numeric) The difficulty (relative to the network\'s easiest target)',
  '  "chainwork" : "hex",         (string) Expected number of hashes required to produce the chain up to this block (in hex)',
  '  "nTx" : n,                   (numeric) The number of transactions in the block',
  '  "previousblockhash" : "hex", (string, optional) The hash of the previous block (if available)',
  '  "nextblockhash" : "hex",     (string, optional) The hash of the next block (if available)',
];

const MEMPOOL_ENTRY_RESULT = [
  '  "vsize" : n,                 (numeric) virtual transaction size as defined in BIP 141, adjusted for sigops (-bytespersigop)',
  '  "weight" : n,                (numeric) transaction weight as defined in BIP 141',
  '  "time" : xxx,                (numeric) local time transaction entered pool in seconds since 1 Jan 1970 GMT',
  '  "height" : n,                (numeric) block height when transaction entered pool',
  '  "descendantcount" : n,       (numeric) number of in-mempool descendant transactions (including this one)',
  '  "descendantsize" : n,        (numeric) virtual transaction size of in-mempool descendants (including this one)',
  '  "ancestorcount" : n,         (numeric) number of in-mempool ancestor transactions (including this one)',
  '  "ancestorsize" : n,          (numeric) virtual transaction size of in-mempool ancestors (including this one)',
  '  "wtxid" : "hex",             (string) hash of serialized transaction, including witness data',
  '  "fees" : {                   (json object)',
  '    "base" : n,                (numeric) transaction fee, denominated in coins',
  '    "modified" : n,            (numeric) transaction fee with fee deltas used for mining priority, denominated in coins',
  '    "ancestor" : n,            (numeric) transaction fees of in-mempool ancestors (including this one) with fee deltas used for mining priority, denominated in coins',
  '    "descendant" : n           (numeric) transaction fees of in-mempool descendants (including this one) with fee deltas used for mining priority, denominated in coins',
  '  },',
  '  "depends" : [ "hex", ... ],  (json array) unconfirmed transactions used as inputs for this transaction',
  '  "spentby" : [ "hex", ... ],  (json array) unconfirmed transactions spending outputs from this transaction',
  '  "bip125-replaceable" : true|false, (boolean) Whether this transaction could be replaced (signals BIP125, itself or through an unconfirmed ancestor)',
  '  "unbroadcast" : true|false   (boolean) Whether this transaction is currently unbroadcast (initial broadcast not yet acknowledged by any peers)',
];

function indent(lines: readonly string[], by: string): string[] {
  return lines.map((l) => by + l);
}

const SOME_BLOCK_HASH = '00000000c937983704a73af28acdec37b049d214adbda81d7e2a3dd146f6ed09';
const SOME_TXID = 'a08e6907dbbd3d809776dbfc5d82e371b764ed838b5655e72f463568df1aadf0';

export function registerBlockchainMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { chain, mempool, params } = ctx;
  const isInitialBlockDownload = initialBlockDownload(ctx);
  let lastChainInfo:
    | { tip: BlockIndexEntry; bestHeader: BlockIndexEntry; progress: number; ibd: boolean; size: number; answer: JsonObject }
    | undefined;

  registry.register({
    name: 'getblockchaininfo',
    category: 'Blockchain',
    description: 'Returns an object containing various state info regarding blockchain processing.',
    params: [],
    result: [
      '{                                  (json object)',
      '  "chain" : "str",                 (string) current network name (main, test, regtest)',
      '  "blocks" : n,                    (numeric) the height of the most-work fully-validated chain. The genesis block has height 0',
      '  "headers" : n,                   (numeric) the current number of headers we have validated',
      '  "bestblockhash" : "str",         (string) the hash of the currently best block',
      '  "difficulty" : n,                (numeric) the current difficulty',
      '  "time" : xxx,                    (numeric) The block time expressed in UNIX epoch time',
      '  "mediantime" : xxx,              (numeric) The median block time expressed in UNIX epoch time',
      '  "verificationprogress" : n,      (numeric) estimate of verification progress [0..1]: 1 while the tip is at most 24 hours old',
      '  "initialblockdownload" : true|false, (boolean) (debug information) estimate of whether this node is in Initial Block Download mode',
      '  "chainwork" : "hex",             (string) total amount of work in active chain, in hexadecimal',
      '  "size_on_disk" : n,              (numeric) the size of the block database (blocks, undo data, index and UTXO set) on disk',
      '  "pruned" : true|false,           (boolean) if the blocks are subject to pruning (csd does not prune)',
      '  "warnings" : [ "str", ... ]      (json array) any network and blockchain warnings',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => {
      const tip = chain.tip;
      const bestHeader = chain.bestHeader;
      const progress = verificationProgress(tip, bestHeader, ctx.clock.now(), params.targetSpacing);
      const ibd = isInitialBlockDownload();
      const size = chain.sizeOnDisk();
      // Polled by explorers, pools and monitors: the answer changes with the tip, the headers or
      // the size on disk (re-read once a second), and is serialized once per change.
      const last = lastChainInfo;
      if (last && last.tip === tip && last.bestHeader === bestHeader && last.progress === progress && last.ibd === ibd && last.size === size)
        return last.answer;
      const answer = withJsonText({
        chain: params.name,
        blocks: tip.height,
        headers: bestHeader.height,
        bestblockhash: tip.hashHex,
        difficulty: getDifficulty(tip.header.bits, params.powLimitBits),
        time: tip.time,
        mediantime: tip.medianTimePast(),
        verificationprogress: progress,
        initialblockdownload: ibd,
        chainwork: tip.chainWork.toString(16).padStart(64, '0'),
        size_on_disk: size,
        pruned: false,
        // Core's warnings come from pre-release builds, unknown soft-fork signals and peers'
        // clock offsets; none of these exists in csd yet.
        warnings: [],
      });
      lastChainInfo = { tip, bestHeader, progress, ibd, size, answer };
      return answer;
    },
  });

  registry.register({
    name: 'getbestblockhash',
    category: 'Blockchain',
    description: 'Returns the hash of the best (tip) block in the most-work fully-validated chain.',
    params: [],
    result: '"hex"    (string) the block hash, hex-encoded',
    examples: [{ args: [] }],
    handler: async () => chain.tip.hashHex,
  });

  registry.register({
    name: 'getblockcount',
    category: 'Blockchain',
    description: 'Returns the height of the most-work fully-validated chain.\nThe genesis block has height 0.',
    params: [],
    result: 'n    (numeric) The current block count',
    examples: [{ args: [] }],
    handler: async () => chain.height,
  });

  registry.register({
    name: 'getblockhash',
    category: 'Blockchain',
    description: 'Returns hash of block in best-block-chain at height provided.',
    params: [{ name: 'height', type: 'integer', description: 'The height index' }],
    result: '"hex"    (string) The block hash',
    examples: [{ args: [1000] }],
    handler: async ([heightArg]) => {
      // Core reads the height as an int: beyond that range it is a -1, below the tip's a -8.
      const height = jsonInteger(heightArg, INT32_MIN, INT32_MAX);
      const entry = height >= 0 ? chain.atHeight(height) : undefined;
      if (!entry) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Block height out of range');
      return entry.hashHex;
    },
  });

  registry.register({
    name: 'getblockheader',
    category: 'Blockchain',
    description:
      "If verbose is false, returns a string that is serialized, hex-encoded data for blockheader 'hash'.\n" +
      "If verbose is true, returns an Object with information about blockheader 'hash'.",
    params: [
      { name: 'blockhash', type: 'string', description: 'The block hash' },
      { name: 'verbose', type: 'boolean', default: true, description: 'true for a json object, false for the hex-encoded data' },
    ],
    result: [
      'for verbose = true',
      '{                             (json object)',
      ...HEADER_RESULT,
      '}',
      '',
      'for verbose=false',
      '"hex"    (string) A string that is serialized, hex-encoded data for block \'hash\' (the full header with its Equihash solution)',
    ].join('\n'),
    examples: [{ args: [SOME_BLOCK_HASH] }],
    handler: async ([blockhash, verbose]) => {
      const entry = lookupBlock(chain, parseHashV(blockhash, 'hash'));
      if (!verbose) return Buffer.from(entry.header.encode()).toString('hex');
      return headerToJson(entry, chain, params);
    },
  });

  registry.register({
    name: 'getblock',
    category: 'Blockchain',
    description:
      "If verbosity is 0, returns a string that is serialized, hex-encoded data for block 'hash'.\n" +
      "If verbosity is 1, returns an Object with information about block 'hash'.\n" +
      "If verbosity is 2, returns an Object with information about block 'hash' and information about each transaction.\n" +
      "If verbosity is 3, returns an Object with information about block 'hash' and information about each transaction, including prevout information for inputs (only for unpruned blocks in the current best chain).",
    params: [
      { name: 'blockhash', type: 'string', description: 'The block hash' },
      {
        name: 'verbosity',
        type: 'any',
        default: 1,
        description:
          '0 for hex-encoded data, 1 for a JSON object, 2 for JSON object with transaction data, and 3 for JSON object with transaction data including prevout information for inputs (true and false mean 1 and 0)',
      },
    ],
    result: [
      'for verbosity = 0',
      '"hex"    (string) A string that is serialized, hex-encoded data for block \'hash\'',
      '',
      'for verbosity = 1',
      '{                             (json object)',
      ...HEADER_RESULT.slice(0, -3),
      '  "nTx" : n,                   (numeric) The number of transactions in the block',
      '  "previousblockhash" : "hex", (string, optional) The hash of the previous block (if available)',
      '  "nextblockhash" : "hex",     (string, optional) The hash of the next block (if available)',
      '  "strippedsize" : n,          (numeric) The block size excluding witness data',
      '  "size" : n,                  (numeric) The block size',
      '  "weight" : n,                (numeric) The block weight as defined in BIP 141',
      '  "tx" : [ "hex", ... ]        (json array) The transaction ids',
      '}',
      '',
      'for verbosity = 2',
      '{                             (json object)',
      '  ...,                         Same output as verbosity = 1',
      '  "tx" : [                     (json array)',
      '    {                          (json object)',
      '      ...,                     The transactions in the format of the getrawtransaction RPC, with "hex"',
      '      "fee" : n                (numeric, optional) The transaction fee in coins, omitted if block undo data is not available (blocks off the active chain)',
      '    },',
      '    ...',
      '  ]',
      '}',
      '',
      'for verbosity = 3',
      '{                             (json object)',
      '  ...,                         Same output as verbosity = 2',
      '  "tx" : [                     (json array)',
      '    {                          (json object)',
      '      "vin" : [                (json array)',
      '        {                      (json object)',
      '          ...,                 The same output as verbosity = 2',
      '          "prevout" : {        (json object, optional) (Only if undo information is available)',
      '            "generated" : true|false, (boolean) Coinbase or not',
      '            "height" : n,      (numeric) The height of the prevout',
      '            "value" : n,       (numeric) The value in coins',
      '            "scriptPubKey" : { (json object) asm, hex, address (when there is one) and type of the spent output',
      '            }',
      '          }',
      '        },',
      '        ...',
      '      ]',
      '    },',
      '    ...',
      '  ]',
      '}',
    ].join('\n'),
    examples: [{ args: [SOME_BLOCK_HASH] }, { args: [SOME_BLOCK_HASH, 2], description: 'With transaction details' }],
    handler: async ([blockhash, verbosityArg]) => {
      const entry = lookupBlock(chain, parseHashV(blockhash, 'blockhash'));
      const verbosity = parseVerbosity(verbosityArg, 1, true);
      const raw = chain.readRawBlock(entry);
      if (!raw) throw new RpcError(RpcErrorCode.MISC_ERROR, 'Block not found on disk');
      if (verbosity <= 0) return raw.toString('hex');
      const block = Block.decode(raw);
      if (verbosity === 1) return blockToJson(block, entry, chain, params, 1);
      return blockToJson(block, entry, chain, params, verbosity === 2 ? 2 : 3, chain.readUndo(entry));
    },
  });

  registry.register({
    name: 'getchaintips',
    category: 'Blockchain',
    description: 'Return information about all known tips in the block tree, including the main chain as well as orphaned branches.',
    params: [],
    result: [
      '[                        (json array)',
      '  {                      (json object)',
      '    "height" : n,        (numeric) height of the chain tip',
      '    "hash" : "hex",      (string) block hash of the tip',
      '    "branchlen" : n,     (numeric) zero for main chain, otherwise length of branch connecting the tip to the main chain',
      '    "status" : "str"     (string) status of the chain, "active" for the main chain',
      '                         Possible values for status:',
      '                         1.  "invalid"               This branch contains at least one invalid block',
      '                         2.  "headers-only"          Not all blocks for this branch are available, but the headers are valid',
      '                         3.  "valid-headers"         All blocks are available for this branch, but they were never fully validated',
      '                         4.  "valid-fork"            This branch is not part of the active chain, but is fully validated',
      '                         5.  "active"                This is the tip of the active main chain, which is certainly valid',
      '  },',
      '  ...',
      ']',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () =>
      chain.chainTips().map((t) => ({ height: t.entry.height, hash: t.entry.hashHex, branchlen: t.branchLength, status: t.status })),
  });

  registry.register({
    name: 'getdifficulty',
    category: 'Blockchain',
    description: "Returns the proof-of-work difficulty as a multiple of the network's easiest target (powLimit).",
    params: [],
    result: "n    (numeric) the proof-of-work difficulty as a multiple of the network's easiest target",
    examples: [{ args: [] }],
    handler: async () => getDifficulty(chain.tip.header.bits, params.powLimitBits),
  });

  registry.register({
    name: 'gettxout',
    category: 'Blockchain',
    description: 'Returns details about an unspent transaction output.',
    params: [
      { name: 'txid', type: 'string', description: 'The transaction id' },
      { name: 'n', type: 'integer', description: 'vout number' },
      {
        name: 'include_mempool',
        type: 'boolean',
        default: true,
        description: "Whether to include the mempool. Note that an unspent output that is spent in the mempool won't appear.",
      },
    ],
    result: [
      'If the UTXO was not found',
      'null    (json null)',
      '',
      'Otherwise',
      '{                             (json object)',
      '  "bestblock" : "hex",        (string) The hash of the block at the tip of the chain',
      '  "confirmations" : n,        (numeric) The number of confirmations (0 for an output of a mempool transaction)',
      '  "value" : n,                (numeric) The transaction value in coins',
      '  "scriptPubKey" : {          (json object)',
      '    "asm" : "str",            (string) Disassembly of the output script',
      '    "hex" : "hex",            (string) The raw output script bytes, hex-encoded',
      '    "address" : "str",        (string, optional) The cs address (only if a well-defined address exists)',
      '    "type" : "str"            (string) The type, eg pubkeyhash',
      '  },',
      '  "coinbase" : true|false     (boolean) Coinbase or not',
      '}',
    ].join('\n'),
    examples: [{ args: [SOME_TXID, 1] }],
    handler: async ([txidArg, n, includeMempool]) => {
      const txid = parseHashV(txidArg, 'txid');
      // Core reads n as an int and casts it to the outpoint's uint32: -1 names output 4294967295.
      const outpoint: OutPoint = { txid: hashFromHex(txid), vout: jsonInteger(n, INT32_MIN, INT32_MAX) >>> 0 };
      const coin = includeMempool ? mempool.coinView().getCoin(outpoint) : chain.getCoin(outpoint);
      if (!coin || (includeMempool && mempool.spender(outpoint))) return null;
      const tip = chain.tip;
      return {
        bestblock: tip.hashHex,
        confirmations: coin.height === MEMPOOL_HEIGHT ? 0 : tip.height - coin.height + 1,
        value: amountToJson(coin.value),
        scriptPubKey: scriptPubKeyToJson(coin.scriptPubKey, params),
        coinbase: coin.coinbase,
      };
    },
  });

  registry.register({
    name: 'gettxoutsetinfo',
    category: 'Blockchain',
    description: 'Returns statistics about the unspent transaction output set.\n' + 'Note this call may take some time: it reads the whole UTXO set.',
    params: [
      {
        name: 'hash_type',
        type: 'string',
        default: 'hash_serialized_3',
        description:
          "Which UTXO set hash should be calculated. Options: 'hash_serialized_3' (SHA256d of the serialized coins, see docs/rpc.md), 'none'.",
      },
      {
        name: 'hash_or_height',
        type: 'any',
        optional: true,
        description:
          'The block hash or height of the target height (needs a coin statistics index, which csd does not have yet: only the current tip is answered)',
      },
      { name: 'use_index', type: 'boolean', default: true, description: 'Use coinstatsindex, if available (csd has none yet).' },
    ],
    result: [
      '{                                 (json object)',
      '  "height" : n,                   (numeric) The block height (index) of the returned statistics',
      '  "bestblock" : "hex",            (string) The hash of the block at which these statistics are calculated',
      '  "txouts" : n,                   (numeric) The number of unspent transaction outputs',
      '  "bogosize" : n,                 (numeric) Database-independent, meaningless metric indicating the UTXO set size',
      '  "hash_serialized_3" : "hex",    (string, optional) The serialized hash (only present if \'hash_serialized_3\' hash_type is chosen)',
      '  "total_amount" : n,             (numeric) The total amount of coins in the UTXO set',
      '  "transactions" : n,             (numeric) The number of transactions with unspent outputs',
      '  "disk_size" : n                 (numeric) The bytes of the coin records (keys and values) in the database',
      '}',
    ].join('\n'),
    examples: [{ args: [] }, { args: ['none'], description: 'Without the hash (faster)' }],
    handler: async ([hashType, hashOrHeight]) => {
      if (hashType !== 'hash_serialized_3' && hashType !== 'none') {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `'${hashType}' is not a valid hash_type`);
      }
      if (hashOrHeight !== undefined) {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Querying specific block heights requires coinstatsindex');
      }
      // The walk's snapshot starts in this same turn of the event loop, before any block can
      // connect: the tip read here is the one the statistics describe.
      const tip = chain.tip;
      const stats = await utxoSetStats(chain, hashType === 'hash_serialized_3');
      return {
        height: tip.height,
        bestblock: tip.hashHex,
        txouts: stats.txouts,
        bogosize: stats.bogosize,
        ...(stats.hash !== null ? { hash_serialized_3: stats.hash } : {}),
        total_amount: amountToJson(stats.totalAmount),
        transactions: stats.transactions,
        disk_size: stats.diskSize,
      };
    },
  });

  registry.register({
    name: 'savemempool',
    category: 'Blockchain',
    description: 'Dumps the mempool to disk. It will fail until the previous dump is fully loaded.',
    params: [],
    result: ['{                    (json object)', '  "filename" : "str"    (string) the directory and file where the mempool was saved', '}'].join(
      '\n',
    ),
    examples: [{ args: [] }],
    handler: async () => {
      if (!mempool.info().loaded) throw new RpcError(RpcErrorCode.MISC_ERROR, 'The mempool was not loaded yet');
      const filename = ctx.config.paths.mempoolFile;
      try {
        await mempool.save(filename);
      } catch (err) {
        ctx.log.warn({ err, filename }, 'savemempool failed');
        throw new RpcError(RpcErrorCode.MISC_ERROR, 'Unable to dump mempool to disk');
      }
      return { filename };
    },
  });

  registry.register({
    name: 'getmempoolinfo',
    category: 'Blockchain',
    description: 'Returns details on the active state of the TX memory pool.',
    params: [],
    result: [
      '{                            (json object)',
      '  "loaded" : true|false,     (boolean) True if the initial load attempt of the persisted mempool finished',
      '  "size" : n,                (numeric) Current tx count',
      '  "bytes" : n,               (numeric) Sum of all virtual transaction sizes as defined in BIP 141. Differs from actual serialized size because witness data is discounted',
      '  "usage" : n,               (numeric) Total memory usage for the mempool',
      '  "total_fee" : n,           (numeric) Total fees for the mempool in coins, ignoring modified fees through prioritisetransaction',
      '  "maxmempool" : n,          (numeric) Maximum memory usage for the mempool',
      '  "mempoolminfee" : n,       (numeric) Minimum fee rate in coins/kvB for tx to be accepted. Is the maximum of minrelaytxfee and minimum mempool fee',
      '  "minrelaytxfee" : n,       (numeric) Current minimum relay fee for transactions',
      '  "incrementalrelayfee" : n, (numeric) minimum fee rate increment for mempool limiting or replacement in coins/kvB',
      '  "unbroadcastcount" : n,    (numeric) Current number of transactions that haven\'t passed initial broadcast yet',
      '  "fullrbf" : true|false     (boolean) True if the mempool accepts RBF without replaceability signaling inspection',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => mempoolInfoJson(mempool.info()),
  });

  registry.register({
    name: 'getrawmempool',
    category: 'Blockchain',
    description:
      'Returns all transaction ids in memory pool as a json array of string transaction ids.\n\n' +
      'Hint: use getmempoolentry to fetch a specific transaction from the mempool.',
    params: [
      { name: 'verbose', type: 'boolean', default: false, description: 'True for a json object, false for array of transaction ids' },
      {
        name: 'mempool_sequence',
        type: 'boolean',
        default: false,
        description: 'If verbose=false, returns a json object with transaction list and mempool sequence number attached.',
      },
    ],
    result: [
      'for verbose = false',
      '[ "hex", ... ]    (json array) The transaction ids, parents before children',
      '',
      'for verbose = true',
      '{                 (json object)',
      '  "transactionid" : {   (json object)',
      ...indent(MEMPOOL_ENTRY_RESULT, '  '),
      '  },',
      '  ...',
      '}',
      '',
      'for verbose = false and mempool_sequence = true',
      '{                            (json object)',
      '  "txids" : [ "hex", ... ],  (json array) The transaction ids',
      '  "mempool_sequence" : n     (numeric) The mempool sequence value.',
      '}',
    ].join('\n'),
    examples: [{ args: [true] }],
    handler: async ([verbose, withSequence]) => {
      const entries = sortedByDepthAndScore(mempool.entries());
      if (verbose) {
        if (withSequence) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Verbose results cannot contain mempool sequence values.');
        const unbroadcast = new Set(mempool.unbroadcast());
        const out: Record<string, JsonObject> = {};
        for (const e of entries) out[e.txid] = mempoolEntryToJson(e, mempool, unbroadcast);
        return out;
      }
      const txids = entries.map((e) => e.txid);
      return withSequence ? { txids, mempool_sequence: mempool.sequence } : txids;
    },
  });

  registry.register({
    name: 'getmempoolentry',
    category: 'Blockchain',
    description: 'Returns mempool data for given transaction',
    params: [{ name: 'txid', type: 'string', description: 'The transaction id (must be in mempool)' }],
    result: ['{                             (json object)', ...MEMPOOL_ENTRY_RESULT, '}'].join('\n'),
    examples: [{ args: [SOME_TXID] }],
    handler: async ([txid]) => {
      const entry = mempoolEntryOrThrow(ctx, parseHashV(txid, 'parameter 1'));
      return mempoolEntryToJson(entry, mempool, new Set(mempool.unbroadcast()));
    },
  });

  for (const [name, relatives, word] of [
    ['getmempoolancestors', (e: MempoolEntry) => mempool.ancestors(e), 'ancestors'],
    ['getmempooldescendants', (e: MempoolEntry) => mempool.descendants(e), 'descendants'],
  ] as const) {
    registry.register({
      name,
      category: 'Blockchain',
      description: `If txid is in the mempool, returns all in-mempool ${word}.`,
      params: [
        { name: 'txid', type: 'string', description: 'The transaction id (must be in mempool)' },
        { name: 'verbose', type: 'boolean', default: false, description: 'True for a json object, false for array of transaction ids' },
      ],
      result: [
        'for verbose = false',
        `[ "hex", ... ]    (json array) The transaction ids of the in-mempool ${word.slice(0, -1)} transactions`,
        '',
        'for verbose = true',
        '{                 (json object)',
        '  "transactionid" : {   (json object)',
        ...indent(MEMPOOL_ENTRY_RESULT, '  '),
        '  },',
        '  ...',
        '}',
      ].join('\n'),
      examples: [{ args: [SOME_TXID] }],
      handler: async ([txid, verbose]) => {
        const entry = mempoolEntryOrThrow(ctx, parseHashV(txid, 'parameter 1'));
        return entriesJson(ctx, relatives(entry), verbose);
      },
    });
  }

  registry.register({
    name: 'invalidateblock',
    category: 'Blockchain',
    description: 'Permanently marks a block as invalid, as if it violated a consensus rule.',
    params: [{ name: 'blockhash', type: 'string', description: 'the hash of the block to mark as invalid' }],
    result: 'null    (json null)',
    examples: [{ args: [SOME_BLOCK_HASH] }],
    handler: async ([blockhash]) => {
      const entry = lookupBlock(chain, parseHashV(blockhash, 'blockhash'));
      await asDatabaseError(chain.invalidateBlock(entry.hashHex));
      return null;
    },
  });

  registry.register({
    name: 'reconsiderblock',
    category: 'Blockchain',
    description:
      'Removes invalidity status of a block, its ancestors and its descendants, reconsider them for activation.\n' +
      'This can be used to undo the effects of invalidateblock.',
    params: [{ name: 'blockhash', type: 'string', description: 'the hash of the block to reconsider' }],
    result: 'null    (json null)',
    examples: [{ args: [SOME_BLOCK_HASH] }],
    handler: async ([blockhash]) => {
      const entry = lookupBlock(chain, parseHashV(blockhash, 'blockhash'));
      await asDatabaseError(chain.reconsiderBlock(entry.hashHex));
      return null;
    },
  });
}

/**
 * Core answers a failed invalidate/reconsider with RPC_DATABASE_ERROR and the validation state's
 * text ("reason, debug").
 */
async function asDatabaseError(work: Promise<void>): Promise<void> {
  try {
    await work;
  } catch (e) {
    if (e instanceof ValidationError) {
      throw new RpcError(RpcErrorCode.DATABASE_ERROR, e.debug ? `${e.reason}, ${e.debug}` : e.reason);
    }
    throw e;
  }
}
