/** The Mining category's statistics and prioritisation: the network's hash rate, mining information, fee deltas. */
import { getDifficulty } from '@cs/consensus';
import { jsonTypeName, type JsonObject } from '../../../format/json-value.ts';
import { networkHashPerSecond } from '../../../mining/hashrate.ts';
import type { TemplateSource } from '../../../mining/template.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import { INT32_MAX, INT32_MIN, jsonInteger, parseHashV } from '../../params.ts';
import type { RpcRegistry } from '../../registry.ts';
import { bitsHex, targetHex } from './target-hex.ts';

/** Core's getnetworkhashps default: the last 120 blocks. */
const DEFAULT_HASHPS_BLOCKS = 120;

export function registerMiningInfoMethods(registry: RpcRegistry, ctx: ChainContext, templates: TemplateSource): void {
  const { chain, mempool, params } = ctx;

  registry.register({
    name: 'getnetworkhashps',
    category: 'Mining',
    description: [
      'Returns the estimated network hashes per second based on the last n blocks.',
      'Pass in [blocks] to override # of blocks, -1 specifies since last difficulty change.',
      'Pass in [height] to estimate the network speed at the time when a certain block was found.',
      'For Equihash, one hash is one solution tested against the target: the unit is solutions',
      'per second (Sol/s). The difficulty changes every block (LWMA-3), so -1 means the LWMA window',
      'of 60 blocks that the current difficulty was computed from.',
    ].join('\n'),
    params: [
      {
        name: 'nblocks',
        type: 'integer',
        default: DEFAULT_HASHPS_BLOCKS,
        description: 'The number of previous blocks to calculate estimate from, or -1 for blocks since last difficulty change.',
      },
      { name: 'height', type: 'integer', default: -1, description: 'To estimate at the time of the given height.' },
    ],
    result: 'n    (numeric) Hashes (Equihash solutions) per second estimated',
    examples: [{ args: [] }],
    handler: async ([nblocksArg, heightArg]) => {
      // Core reads both as int.
      const nblocks = jsonInteger(nblocksArg, INT32_MIN, INT32_MAX);
      const height = jsonInteger(heightArg, INT32_MIN, INT32_MAX);
      if (nblocks < -1 || nblocks === 0) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid nblocks. Must be a positive number or -1.');
      if (height < -1 || height > chain.height) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Block does not exist at specified height');
      const end = height === -1 ? chain.tip : chain.atHeight(height)!;
      return networkHashPerSecond(end, nblocks === -1 ? params.lwmaWindow : nblocks);
    },
  });

  registry.register({
    name: 'getmininginfo',
    category: 'Mining',
    description: 'Returns a json object containing mining-related information.',
    params: [],
    result: [
      '{                              (json object)',
      '  "blocks" : n,                (numeric) The current block',
      '  "currentblockweight" : n,    (numeric, optional) The block weight (including reserved weight for block header, txs count and coinbase tx) of the last assembled block (only present if a block was ever assembled)',
      '  "currentblocktx" : n,        (numeric, optional) The number of block transactions (excluding coinbase) of the last assembled block (only present if a block was ever assembled)',
      '  "bits" : "hex",              (string) The current nBits, compact representation of the block difficulty target',
      '  "difficulty" : n,            (numeric) The current difficulty (1 = the network\'s powLimit)',
      '  "target" : "hex",            (string) The current target',
      '  "networkhashps" : n,         (numeric) The network hashes (Equihash solutions) per second',
      '  "pooledtx" : n,              (numeric) The size of the mempool',
      '  "chain" : "str",             (string) current network name (main, test, regtest)',
      '  "next" : {                   (json object) The next block',
      '    "height" : n,              (numeric) The next height',
      '    "bits" : "hex",            (string) The next target nBits',
      '    "difficulty" : n,          (numeric) The next difficulty',
      '    "target" : "hex"           (string) The next target',
      '  },',
      '  "warnings" : [               (json array) any network and blockchain warnings',
      '    "str",                     (string) warning',
      '    ...',
      '  ]',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => {
      const tip = chain.tip;
      const nextBits = chain.nextWorkRequired(tip);
      const last = templates.lastAssembled;
      return {
        blocks: chain.height,
        ...(last ? { currentblockweight: last.weight, currentblocktx: last.txCount } : {}),
        bits: bitsHex(tip.header.bits),
        difficulty: getDifficulty(tip.header.bits, params.powLimitBits),
        target: targetHex(tip.header.bits),
        networkhashps: networkHashPerSecond(tip, DEFAULT_HASHPS_BLOCKS),
        pooledtx: mempool.size,
        chain: params.name,
        next: {
          height: tip.height + 1,
          bits: bitsHex(nextBits),
          difficulty: getDifficulty(nextBits, params.powLimitBits),
          target: targetHex(nextBits),
        },
        // Core's warnings come from version-bit signalling and peers' clocks; this node has neither.
        warnings: [],
      };
    },
  });

  registry.register({
    name: 'prioritisetransaction',
    category: 'Mining',
    description: 'Accepts the transaction into mined blocks at a higher (or lower) priority',
    params: [
      { name: 'txid', type: 'string', description: 'The transaction id.' },
      {
        // Core declares it an omitted optional number before a required argument; our parameter
        // specs keep required arguments first, so it is a required "any" checked by the handler
        // (null passes, as in Core, which is what named calls without it send), shown as optional.
        name: 'dummy',
        type: 'any',
        placeholder: true,
        description:
          'API-Compatibility for previous API. Must be zero or null.\nDEPRECATED. For forward compatibility use named arguments and omit this parameter.',
      },
      {
        name: 'fee_delta',
        type: 'integer',
        description: [
          'The fee value (in base units) to add (or subtract, if negative).',
          'Note, that this value is not a fee rate. It is a value to modify absolute fee of the TX.',
          'The fee is not actually paid, only the algorithm for selecting transactions into a block',
          'considers the transaction as it would have paid a higher (or lower) fee.',
        ].join('\n'),
      },
    ],
    result: 'true|false    (boolean) Returns true',
    examples: [{ args: ['txid', 0.0, 10000] }],
    handler: async ([txidArg, dummy, feeDelta]) => {
      const txid = parseHashV(txidArg, 'txid');
      if (dummy !== null && dummy !== undefined) {
        if (typeof dummy !== 'number') {
          throw new RpcError(
            RpcErrorCode.TYPE_ERROR,
            `Wrong type passed:\n${JSON.stringify({ 'Position 2 (dummy)': `JSON value of type ${jsonTypeName(dummy)} is not of expected type number` }, null, 4)}`,
          );
        }
        if (dummy !== 0)
          throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Priority is no longer supported, dummy argument to prioritisetransaction must be 0.');
      }
      templates.prioritise(txid, BigInt(feeDelta));
      return true;
    },
  });

  registry.register({
    name: 'getprioritisedtransactions',
    category: 'Mining',
    description: 'Returns a map of all user-created (see prioritisetransaction) fee deltas by txid, and whether the tx is present in mempool.',
    params: [],
    result: [
      '{                                 (json object) prioritisation keyed by txid',
      '  "<transactionid>" : {           (json object)',
      '    "fee_delta" : n,              (numeric) transaction fee delta in base units',
      '    "in_mempool" : true|false,    (boolean) whether this transaction is currently in mempool',
      '    "modified_fee" : n            (numeric, optional) modified fee in base units. Only returned if in_mempool=true',
      '  },',
      '  ...',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => {
      const out: Record<string, JsonObject> = {};
      for (const p of mempool.prioritised()) {
        out[p.txid] = {
          fee_delta: Number(p.feeDelta),
          in_mempool: p.inMempool,
          ...(p.modifiedFee !== undefined ? { modified_fee: Number(p.modifiedFee) } : {}),
        };
      }
      return out;
    },
  });
}
