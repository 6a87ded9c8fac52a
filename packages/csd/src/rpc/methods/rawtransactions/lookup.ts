/** getrawtransaction: a transaction from the mempool, the transaction index or a given block. */
import { hashToHex, type Transaction } from '@cs/consensus';
import type { BlockIndexEntry } from '../../../chain/block-index.ts';
import type { Coin } from '../../../chain/coins.ts';
import { txPlacementToJson, txToJson } from '../../../format/json.ts';
import type { JsonObject } from '../../../format/json-value.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import { parseHashV, parseVerbosity } from '../../params.ts';
import type { RpcRegistry } from '../../registry.ts';
import { SOME_BLOCK_HASH, SOME_TXID } from '../examples.ts';
import { TX_RESULT_FIELDS } from './decode.ts';

const NO_SUCH_TX_HINT = 'Use gettransaction for wallet transactions.';

/**
 * Core's TxToJSON: the transaction (with fee and prevouts when `spent`, the coins its inputs
 * spent, is known), then where it was confirmed as seen from the active chain.
 */
function locatedTxJson(ctx: ChainContext, tx: Transaction, block: BlockIndexEntry | undefined, spent: readonly Coin[] | undefined): JsonObject {
  const json = txToJson(tx, ctx.params, { includeHex: true, spent, prevouts: true });
  return block ? { ...json, ...txPlacementToJson(block, ctx.chain) } : json;
}

export function registerLookupMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { chain, mempool, params, txIndex } = ctx;
  const genesisCoinbase = hashToHex(params.genesis.header.merkleRoot);

  registry.register({
    name: 'getrawtransaction',
    category: 'Rawtransactions',
    description:
      'By default, this call only returns a transaction if it is in the mempool. If -txindex is enabled\n' +
      'and no blockhash argument is passed, it will return the transaction if it is in the mempool or any block.\n' +
      'If a blockhash argument is passed, it will return the transaction if\n' +
      'the specified block is available and the transaction is in that block.\n\n' +
      'Hint: Use gettransaction for wallet transactions.\n\n' +
      'If verbosity is 0 or omitted, returns the serialized transaction as a hex-encoded string.\n' +
      'If verbosity is 1, returns a JSON Object with information about the transaction.\n' +
      'If verbosity is 2, returns a JSON Object with information about the transaction, including fee and prevout information.',
    params: [
      { name: 'txid', type: 'string', description: 'The transaction id' },
      {
        name: 'verbosity',
        type: 'any',
        default: 0,
        description: '0 for hex-encoded data, 1 for a JSON object, and 2 for JSON object with fee and prevout (true and false mean 1 and 0)',
      },
      { name: 'blockhash', type: 'string', optional: true, description: 'The block in which to look for the transaction' },
    ],
    result: [
      'if verbosity is not set or set to 0',
      '"str"    (string) The serialized transaction as a hex-encoded string for \'txid\'',
      '',
      'if verbosity is set to 1',
      '{                             (json object)',
      '  "in_active_chain" : true|false, (boolean, optional) Whether specified block is in the active chain or not (only present with explicit "blockhash" argument)',
      ...TX_RESULT_FIELDS.map((l) => (l === '  ]' ? '  ],' : l)),
      '  "hex" : "hex",               (string) The serialized, hex-encoded data for \'txid\'',
      '  "blockhash" : "hex",         (string, optional) the block hash',
      '  "confirmations" : n,         (numeric, optional) The confirmations',
      '  "time" : xxx,                (numeric, optional) Same as "blocktime"',
      '  "blocktime" : xxx            (numeric, optional) The block time expressed in UNIX epoch time',
      '}',
      '',
      'for verbosity = 2',
      '{                             (json object)',
      '  ...,                         Same output as verbosity = 1',
      '  "fee" : n,                   (numeric, optional) transaction fee in coins, omitted if block undo data is not available',
      '  "vin" : [                    (json array)',
      '    {                          (json object) utxo being spent',
      '      ...,                     Same output as verbosity = 1',
      '      "prevout" : {            (json object, optional) The previous output, omitted if block undo data is not available',
      '        "generated" : true|false, (boolean) Coinbase or not',
      '        "height" : n,          (numeric) The height of the prevout',
      '        "value" : n,           (numeric) The value in coins',
      '        "scriptPubKey" : {     (json object) asm, hex, address (when there is one) and type of the spent output',
      '        }',
      '      }',
      '    },',
      '    ...',
      '  ]',
      '}',
    ].join('\n'),
    examples: [
      { args: [SOME_TXID] },
      { args: [SOME_TXID, 1] },
      { args: [SOME_TXID, 2, SOME_BLOCK_HASH], description: 'A confirmed transaction, with fee and prevouts' },
    ],
    handler: async ([txidArg, verbosityArg, blockhashArg]) => {
      const txid = parseHashV(txidArg, 'parameter 1');
      if (txid === genesisCoinbase) {
        throw new RpcError(
          RpcErrorCode.INVALID_ADDRESS_OR_KEY,
          'The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved',
        );
      }
      const verbosity = parseVerbosity(verbosityArg, 0, true);
      let given: BlockIndexEntry | undefined;
      if (blockhashArg !== undefined) {
        given = chain.entry(parseHashV(blockhashArg, 'parameter 3'));
        if (!given) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'Block hash not found');
      }

      // Core's GetTransaction: the mempool (only without a block), the index (when its block
      // matches), then the given block itself.
      let tx: Transaction | undefined = given ? undefined : mempool.get(txid)?.tx;
      let blockHash: string | undefined;
      let blockTxs: readonly Transaction[] | undefined;
      if (!tx && txIndex) {
        const found = await txIndex.find(txid);
        if (found && (!given || found.blockHash === given.hashHex)) ({ tx, blockHash } = found);
      }
      if (!tx && given) {
        blockTxs = chain.readBlock(given)?.txs;
        tx = blockTxs?.find((t) => t.txidHex === txid);
        if (tx) blockHash = given.hashHex;
      }
      if (!tx) {
        let message: string;
        if (given) {
          if (!given.hasData()) throw new RpcError(RpcErrorCode.MISC_ERROR, 'Block not available');
          message = 'No such transaction found in the provided block';
        } else if (!txIndex) {
          message = 'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries';
        } else if (!txIndex.synced()) {
          message = 'No such mempool transaction. Blockchain transactions are still in the process of being indexed';
        } else {
          message = 'No such mempool or blockchain transaction';
        }
        throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `${message}. ${NO_SUCH_TX_HINT}`);
      }

      if (verbosity <= 0) return Buffer.from(tx.encode()).toString('hex');
      const block = blockHash !== undefined ? chain.entry(blockHash) : undefined;
      // Verbosity 2 adds the fee and prevouts from the block's undo data, which skips the
      // coinbase (it spends nothing): the transaction at position i spent undo[i - 1].
      let spent: readonly Coin[] | undefined;
      if (verbosity >= 2 && block && !tx.isCoinbase()) {
        const position = (blockTxs ?? chain.readBlock(block)?.txs)?.findIndex((t) => t.txidHex === txid) ?? -1;
        if (position > 0) spent = chain.readUndo(block)?.[position - 1];
      }
      const json = locatedTxJson(ctx, tx, block, spent);
      return given ? { in_active_chain: chain.contains(given), ...json } : json;
    },
  });
}
