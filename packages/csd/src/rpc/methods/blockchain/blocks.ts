/** The Blockchain category's methods on single blocks: finding, reading, invalidating and reconsidering them. */
import { Block, ValidationError } from '@cs/consensus';
import type { BlockIndexEntry } from '../../../chain/block-index.ts';
import type { Chain } from '../../../chain/chainstate.ts';
import { blockToJson, headerToJson } from '../../../format/json.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import { INT32_MAX, INT32_MIN, jsonInteger, parseHashV, parseVerbosity } from '../../params.ts';
import type { RpcRegistry } from '../../registry.ts';
import { SOME_BLOCK_HASH } from '../examples.ts';

/** The block with this hash, or Core's -5 "Block not found". */
export function lookupBlock(chain: Chain, hash: string): BlockIndexEntry {
  const entry = chain.entry(hash);
  if (!entry) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'Block not found');
  return entry;
}

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

export function registerBlockMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { chain, params } = ctx;

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
