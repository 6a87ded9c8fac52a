/** The Generating category: regtest mining, to an address or with chosen transactions. */
import { AddressError, type Block, Transaction, ValidationError, addressToScript, fromHex, toHex, type ChainParams } from '@cs/consensus';
import { jsonTypeName } from '../../../format/json-value.ts';
import { mineBlock } from '../../../mining/assemble.ts';
import { BlockNotAcceptedError, DEFAULT_MAX_TRIES, createBlockWithTransactions, generateBlocks, submitMinedBlock } from '../../../mining/generate.ts';
import type { TemplateSource } from '../../../mining/template.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import type { RpcRegistry } from '../../registry.ts';

export function registerGeneratingMethods(registry: RpcRegistry, ctx: ChainContext, templates: TemplateSource): void {
  const { chain, mempool, params } = ctx;

  const regtestOnly = (): void => {
    // As Zcash: on main and test, ZelHash cannot be CPU-mined in useful time (docs/mining.md).
    if (!params.mineBlocksOnDemand) throw new RpcError(RpcErrorCode.METHOD_NOT_FOUND, 'This method can only be used on regtest');
  };

  registry.register({
    name: 'generatetoaddress',
    category: 'Generating',
    description:
      'Mine to a specified address and return the block hashes.\nRegtest only: ZelHash (main, test) cannot be mined on a CPU in useful time.',
    params: [
      { name: 'nblocks', type: 'integer', description: 'How many blocks are generated.' },
      { name: 'address', type: 'string', description: 'The address to send the newly generated coins to.' },
      {
        name: 'maxtries',
        type: 'integer',
        default: DEFAULT_MAX_TRIES,
        description: 'How many iterations (Equihash nonces, shared by all the blocks) to try.',
      },
    ],
    result: ['[           (json array) hashes of blocks generated', '  "hex",    (string) blockhash', '  ...', ']'].join('\n'),
    examples: [{ args: [11, 'myaddress'], description: 'Generate 11 blocks to myaddress' }],
    handler: async ([nblocks, address, maxtries]) => {
      regtestOnly();
      const payTo = addressScript(address, params, 'Error: Invalid address');
      try {
        return await generateBlocks(chain, templates, ctx.clock.now, payTo, nblocks, maxtries, registry.stopping);
      } catch (e) {
        throw notAccepted(e);
      }
    },
  });

  registry.register({
    name: 'generateblock',
    category: 'Generating',
    description: [
      'Mine a set of ordered transactions to a specified address and return the block hash.',
      "The coinbase pays the block subsidy and the transactions' fees.",
      'Regtest only: ZelHash (main, test) cannot be mined on a CPU in useful time.',
    ].join('\n'),
    params: [
      { name: 'output', type: 'string', description: 'The address to send the newly generated coins to.' },
      {
        name: 'transactions',
        type: 'array',
        description: [
          'An array of hex strings which are either txids or raw transactions.',
          'Txids must reference transactions currently in the mempool.',
          'All transactions must be valid and in valid order, otherwise the block will be rejected.',
          '[',
          '  "rawtx/txid",    (string)',
          '  ...',
          ']',
        ].join('\n'),
      },
      {
        name: 'submit',
        type: 'boolean',
        default: true,
        description: 'Whether to submit the block before the RPC call returns or to return it as hex.',
      },
    ],
    result: [
      '{                   (json object)',
      '  "hash" : "hex",   (string) hash of generated block',
      '  "hex" : "hex"     (string, optional) hex of generated block, only present when submit=false',
      '}',
    ].join('\n'),
    examples: [{ args: ['myaddress', ['rawtx', 'mempool_txid']], description: 'Generate a block to myaddress, with txs rawtx and mempool_txid' }],
    handler: async ([output, transactions, submit]) => {
      regtestOnly();
      const payTo = addressScript(output, params, 'Error: Invalid address or descriptor');
      const txs = transactions.map((item) => {
        if (typeof item !== 'string')
          throw new RpcError(RpcErrorCode.MISC_ERROR, `JSON value of type ${jsonTypeName(item)} is not of expected type string`);
        if (/^[0-9a-fA-F]{64}$/.test(item)) {
          const entry = mempool.get(item.toLowerCase());
          if (!entry) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `Transaction ${item} not in mempool.`);
          return entry.tx;
        }
        try {
          return Transaction.decode(fromHex(item));
        } catch {
          throw new RpcError(RpcErrorCode.DESERIALIZATION_ERROR, `Transaction decode failed for ${item}. Make sure the tx has at least one input.`);
        }
      });

      let block: Block;
      try {
        block = createBlockWithTransactions(chain, payTo, txs, ctx.clock.now());
      } catch (e) {
        if (e instanceof ValidationError) {
          throw new RpcError(RpcErrorCode.VERIFY_ERROR, `TestBlockValidity failed: ${e.reason}${e.debug ? `, ${e.debug}` : ''}`);
        }
        throw e;
      }
      const solved = mineBlock(block, params, DEFAULT_MAX_TRIES).block;
      if (!solved) throw new RpcError(RpcErrorCode.MISC_ERROR, 'Failed to make block.');
      if (!submit) return { hash: solved.header.hashHex, hex: toHex(solved.encode()) };
      try {
        await submitMinedBlock(chain, solved);
      } catch (e) {
        throw notAccepted(e);
      }
      return { hash: solved.header.hashHex };
    },
  });
}

/** The output script of an address of this network, or -5 with Core's message. */
function addressScript(address: string, params: ChainParams, message: string): Uint8Array {
  try {
    return addressToScript(address, params.address);
  } catch (e) {
    if (e instanceof AddressError) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, message);
    throw e;
  }
}

/** Core's GenerateBlock failure: the chain refused a block this node mined. */
function notAccepted(e: unknown): unknown {
  return e instanceof BlockNotAcceptedError ? new RpcError(RpcErrorCode.INTERNAL_ERROR, `ProcessNewBlock, ${e.message}`) : e;
}
