/** The Blockchain category's methods on the UTXO set: one output (gettxout) and the whole set's statistics (gettxoutsetinfo). */
import { createHash } from 'node:crypto';
import { Writer, hashFromHex, hashToHex, type OutPoint } from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import type { Chain } from '../../../chain/chainstate.ts';
import { encodeCoin } from '../../../chain/coins.ts';
import { scriptPubKeyToJson } from '../../../format/json.ts';
import { MEMPOOL_HEIGHT } from '../../../mempool/coin-view.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import { INT32_MAX, INT32_MIN, jsonInteger, parseHashV } from '../../params.ts';
import type { RpcRegistry } from '../../registry.ts';
import { SOME_TXID } from '../examples.ts';

/** How often the walk of utxoSetStats gives the event loop a turn. */
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

export function registerUtxoSetMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { chain, mempool, params } = ctx;

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
}
