/**
 * Wallet RPC methods about transactions: listtransactions, listsinceblock, gettransaction,
 * abandontransaction (Core's wallet/rpc/transactions.cpp).
 */
import { amountToJson } from '@cs/runtime/amount';
import { txToJson } from '../../format/json.ts';
import type { WalletRpcContext } from './context.ts';
import { lookupBlock } from '../../rpc/methods/blockchain/blocks.ts';
import { parseHashV } from '../../rpc/params.ts';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { JsonObject } from '../../format/json-value.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import type { MineFilter } from '../tx-view.ts';
import type { Wallet } from '../wallet.ts';
import type { WalletTx } from '../wallet-tx.ts';
import { EXAMPLE_TXID, walletOf } from './common.ts';
import { listTransactionEntries, walletTxFields, type TxJsonContext } from './tx-json.ts';

const NOT_IN_WALLET = 'Invalid or non-wallet transaction id';

function jsonContext(ctx: WalletRpcContext, wallet: Wallet): TxJsonContext {
  return { view: wallet.view, mempool: ctx.mempool, params: ctx.params };
}

/** Core: watch-only entries are included by default only in wallets without private keys, which csd's wallet never is. */
function filterOf(includeWatchonly: boolean | undefined): MineFilter {
  return includeWatchonly ? 'all' : 'spendable';
}

function lookupWalletTx(wallet: Wallet, txid: string): WalletTx {
  const wtx = wallet.ledger.get(parseHashV(txid, 'txid'));
  if (!wtx) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, NOT_IN_WALLET);
  return wtx;
}

const ENTRY_FIELDS = [
  '    "involvesWatchonly" : true|false, (boolean, optional) Only returns true if imported addresses were involved in transaction.',
  '    "address" : "str",                 (string, optional) The cs address of the transaction (not returned if the output does not have an address, e.g. OP_RETURN null data).',
  '    "category" : "str",                (string) The transaction category: "send", "receive", "generate" (mature coinbase), "immature" (immature coinbase), "orphan" (coinbase of a block no longer in the chain)',
  '    "amount" : n,                      (numeric) The amount in coins. This is negative for the \'send\' category, and is positive for all other categories',
  '    "label" : "str",                   (string, optional) A comment for the address/transaction, if any',
  '    "vout" : n,                        (numeric) the vout value',
  '    "fee" : n,                        (numeric, optional) The amount of the fee in coins. This is negative and only available for the \'send\' category of transactions.',
  '    "confirmations" : n,               (numeric) The number of confirmations for the transaction. Negative confirmations means the transaction conflicted that many blocks ago.',
  '    "generated" : true|false,          (boolean, optional) Only present if the transaction\'s only input is a coinbase one.',
  '    "trusted" : true|false,            (boolean, optional) Whether we consider the transaction to be trusted and safe to spend from. Only present when the transaction has 0 confirmations (or negative confirmations, if conflicted).',
  '    "blockhash" : "hex",               (string, optional) The block hash containing the transaction.',
  '    "blockheight" : n,                 (numeric, optional) The block height containing the transaction.',
  '    "blockindex" : n,                  (numeric, optional) The index of the transaction in the block that includes it.',
  '    "blocktime" : xxx,                 (numeric, optional) The block time expressed in UNIX epoch time.',
  '    "txid" : "hex",                    (string) The transaction id.',
  '    "wtxid" : "hex",                   (string) The hash of serialized transaction, including witness data.',
  '    "walletconflicts" : [ "hex", ... ], (json array) Conflicting transaction ids.',
  '    "mempoolconflicts" : [ "hex", ... ], (json array) Transactions in the mempool that directly conflict with either this transaction or an ancestor transaction',
  '    "comment" : "str",                 (string, optional) If a comment is associated with the transaction, only present if not empty.',
  '    "to" : "str",                      (string, optional) If a comment to is associated with the transaction.',
  '    "time" : xxx,                      (numeric) The transaction time expressed in UNIX epoch time.',
  '    "timereceived" : xxx,              (numeric) The time received expressed in UNIX epoch time.',
  '    "bip125-replaceable" : "str",      (string) ("yes|no|unknown") Whether this transaction signals BIP125 replaceability or has an unconfirmed ancestor signaling BIP125 replaceability.',
  "    \"abandoned\" : true|false          (boolean, optional) 'true' if the transaction has been abandoned (inputs are respendable). Only available for the 'send' category of transactions.",
];

export function registerHistoryMethods(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registry.register({
    name: 'listtransactions',
    category: 'Wallet',
    description:
      'If a label name is provided, this will return only incoming transactions paying to addresses with the specified label.\n\n' +
      "Returns up to 'count' most recent transactions skipping the first 'from' transactions.",
    params: [
      {
        name: 'label',
        type: 'string',
        optional: true,
        description:
          'If set, should be a valid label name to return only incoming transactions\nwith the specified label, or "*" to disable filtering and return all transactions.',
      },
      { name: 'count', type: 'integer', default: 10, description: 'The number of transactions to return' },
      { name: 'skip', type: 'integer', default: 0, description: 'The number of transactions to skip' },
      {
        name: 'include_watchonly',
        type: 'boolean',
        default: false,
        description: "Include transactions to watch-only addresses (see 'importaddress')",
      },
    ],
    result: [
      '[                                   (json array)',
      '  {                                 (json object)',
      ...ENTRY_FIELDS,
      '  },',
      '  ...',
      ']',
    ].join('\n'),
    examples: [{ args: [] }, { args: ['*', 20, 100], description: 'List transactions 100 to 120' }],
    handler: async ([label, count, skip, includeWatchonly], call) => {
      const wallet = walletOf(ctx, call);
      if (count < 0) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Negative count');
      if (skip < 0) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Negative from');
      const c = jsonContext(ctx, wallet);
      const opts = { filter: filterOf(includeWatchonly), label: label === undefined || label === '*' ? undefined : label };
      // Newest first until enough are collected, then the window is cut and put oldest first (Core).
      const ordered = [...wallet.ledger.all()].sort((a, b) => b.orderPos - a.orderPos);
      const newestFirst: JsonObject[] = [];
      for (const wtx of ordered) {
        listTransactionEntries(c, wtx, opts, newestFirst);
        if (newestFirst.length >= count + skip) break;
      }
      return newestFirst.slice(skip, skip + count).reverse();
    },
  });

  registry.register({
    name: 'listsinceblock',
    category: 'Wallet',
    description:
      'Get all transactions in blocks since block [blockhash], or all transactions if omitted.\n' +
      'If "blockhash" is no longer a part of the main chain, transactions from the fork point onward are included.\n' +
      'Additionally, if include_removed is set, transactions affecting the wallet which were removed are returned in the "removed" array.',
    params: [
      {
        name: 'blockhash',
        type: 'string',
        optional: true,
        description: 'If set, the block hash to list transactions since, otherwise list all transactions.',
      },
      {
        name: 'target_confirmations',
        type: 'integer',
        default: 1,
        description:
          'Return the nth block hash from the main chain. e.g. 1 would mean the best block hash. Note: this is not used as a filter, but only affects [lastblock] in the return value',
      },
      {
        name: 'include_watchonly',
        type: 'boolean',
        default: false,
        description: "Include transactions to watch-only addresses (see 'importaddress')",
      },
      {
        name: 'include_removed',
        type: 'boolean',
        default: true,
        description: 'Show transactions that were removed due to a reorg in the "removed" array\n(not guaranteed to work on pruned nodes)',
      },
      { name: 'include_change', type: 'boolean', default: false, description: 'Also add entries for change outputs.' },
      {
        name: 'label',
        type: 'string',
        optional: true,
        description: 'Return only incoming transactions paying to addresses with the specified label.',
      },
    ],
    result: [
      '{                                     (json object)',
      '  "transactions" : [                  (json array)',
      '    {                                 (json object) as listtransactions entries',
      '    },',
      '    ...',
      '  ],',
      '  "removed" : [                       (json array, optional) <structure is the same as "transactions" above, only present if include_removed=true>',
      '    ...',
      '  ],',
      '  "lastblock" : "hex"                 (string) The hash of the block (target_confirmations-1) from the best block on the main chain, or the genesis hash if the referenced block does not exist yet. This is typically used to feed back into listsinceblock the next time you call it.',
      '}',
    ].join('\n'),
    examples: [{ args: [] }, { args: [EXAMPLE_TXID, 6] }],
    handler: async ([blockhash, targetConfirmations, includeWatchonly, includeRemoved, includeChange, label], call) => {
      const wallet = walletOf(ctx, call);
      const { chain } = ctx;
      const c = jsonContext(ctx, wallet);
      const opts = { filter: filterOf(includeWatchonly), label, includeChange };
      let height = -1;
      const removedBlocks = [];
      if (blockhash !== undefined) {
        let entry = lookupBlock(chain, parseHashV(blockhash, 'blockhash'));
        // Blocks of the given branch that left the active chain: their wallet transactions are "removed".
        while (!chain.contains(entry)) {
          removedBlocks.push(entry);
          entry = entry.prev!;
        }
        height = entry.height;
      }
      if (targetConfirmations < 1) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid parameter');
      const depth = height === -1 ? -1 : chain.height + 1 - height;
      const transactions: JsonObject[] = [];
      for (const wtx of [...wallet.ledger.all()].sort((a, b) => a.orderPos - b.orderPos)) {
        if (depth === -1 || Math.abs(wallet.view.depth(wtx)) < depth) listTransactionEntries(c, wtx, opts, transactions);
      }
      const removed: JsonObject[] = [];
      if (includeRemoved) {
        for (const entry of removedBlocks) {
          for (const tx of chain.readBlock(entry)?.txs ?? []) {
            const wtx = wallet.ledger.get(tx.txidHex);
            if (wtx) listTransactionEntries(c, wtx, { ...opts, minDepth: -100_000_000 }, removed);
          }
        }
      }
      const last = chain.atHeight(chain.height + 1 - targetConfirmations) ?? chain.atHeight(0)!;
      return { transactions, removed: includeRemoved ? removed : undefined, lastblock: last.hashHex };
    },
  });

  registry.register({
    name: 'gettransaction',
    category: 'Wallet',
    description: 'Get detailed information about in-wallet transaction <txid>',
    params: [
      { name: 'txid', type: 'string', description: 'The transaction id' },
      {
        name: 'include_watchonly',
        type: 'boolean',
        default: false,
        description: 'Whether to include watch-only addresses in balance calculation and details[]',
      },
      {
        name: 'verbose',
        type: 'boolean',
        default: false,
        description: 'Whether to include a `decoded` field containing the decoded transaction (equivalent to RPC decoderawtransaction)',
      },
    ],
    result: [
      '{                                       (json object)',
      '  "amount" : n,                         (numeric) The amount in coins',
      '  "fee" : n,                            (numeric, optional) The amount of the fee in coins. This is negative and only available for the \'send\' category of transactions.',
      // The fields of a listtransactions entry from "confirmations" to "bip125-replaceable", as Core lists them.
      ...ENTRY_FIELDS.slice(
        ENTRY_FIELDS.findIndex((l) => l.includes('"confirmations"')),
        ENTRY_FIELDS.findIndex((l) => l.includes('"bip125-replaceable"')) + 1,
      ).map((l) => l.slice(2)),
      '  "details" : [                         (json array)',
      '    {                                   (json object) as listtransactions entries: involvesWatchonly, address, category, amount, label, vout, fee, abandoned',
      '    },',
      '    ...',
      '  ],',
      '  "hex" : "hex",                        (string) Raw data for transaction',
      '  "decoded" : {                         (json object, optional) The decoded transaction (only present when `verbose` is passed)',
      '  }',
      '}',
    ].join('\n'),
    examples: [{ args: [EXAMPLE_TXID] }, { args: [EXAMPLE_TXID, true, true] }],
    handler: async ([txid, includeWatchonly, verbose], call) => {
      const wallet = walletOf(ctx, call);
      const wtx = lookupWalletTx(wallet, txid);
      const filter = filterOf(includeWatchonly);
      const { view } = wallet;
      const c = jsonContext(ctx, wallet);
      // Core's CachedTxGetCredit values an immature coinbase at zero.
      const credit = view.isImmatureCoinbase(wtx) ? 0n : view.credit(wtx, filter);
      const debit = view.debit(wtx, filter);
      const fromMe = debit > 0n;
      const fee = fromMe ? wtx.tx.outputs.reduce((sum, o) => sum + o.value, 0n) - debit : 0n;
      const details: JsonObject[] = [];
      listTransactionEntries(c, wtx, { filter }, details);
      // The detail entries repeat the transaction's own fields; Core's carry only the per-output ones.
      const perOutput = details.map(({ involvesWatchonly, address, category, amount, label, vout, fee: f, abandoned }) => ({
        involvesWatchonly,
        address,
        category,
        amount,
        label,
        vout,
        fee: f,
        abandoned,
      }));
      return {
        amount: amountToJson(credit - debit - fee),
        fee: fromMe ? amountToJson(fee) : undefined,
        ...walletTxFields(c, wtx),
        details: perOutput,
        hex: Buffer.from(wtx.tx.encode()).toString('hex'),
        decoded: verbose ? txToJson(wtx.tx, ctx.params) : undefined,
      };
    },
  });

  registry.register({
    name: 'abandontransaction',
    category: 'Wallet',
    description:
      'Mark in-wallet transaction <txid> as abandoned\n' +
      'This will mark this transaction and all its in-wallet descendants as abandoned which will allow\n' +
      'for their inputs to be respent.  It can be used to replace "stuck" or evicted transactions.\n' +
      'It only works on transactions which are not included in a block and are not currently in the mempool.\n' +
      'It has no effect on transactions which are already abandoned.',
    params: [{ name: 'txid', type: 'string', description: 'The transaction id' }],
    result: 'null    (json null)',
    examples: [{ args: [EXAMPLE_TXID] }],
    handler: async ([txid], call) => {
      const wallet = walletOf(ctx, call);
      const wtx = lookupWalletTx(wallet, txid);
      if (wallet.view.depth(wtx) !== 0 || wallet.view.inMempool(wtx)) {
        throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'Transaction not eligible for abandonment');
      }
      wallet.abandon(wtx);
      return null;
    },
  });
}
