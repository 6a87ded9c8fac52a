/**
 * Wallet RPC methods about the wallet as a whole: getbalance, getbalances, getunconfirmedbalance,
 * getwalletinfo, listunspent, rescanblockchain, listwallets (Core's wallet/rpc/coins.cpp,
 * wallet.cpp and transactions.cpp).
 */
import { scriptToAddress, toHex } from '@cs/consensus';
import { amountToJson, amountFromValue } from '@cs/runtime/amount';
import type { WalletRpcContext } from './context.ts';
import { feeRateToCoins } from '../../policy/feerate.ts';
import { jsonString } from '../../rpc/params.ts';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import { isJsonObject, type JsonObject } from '../../format/json-value.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { computeBalances, type BalanceParts } from '../balances.ts';
import { listCoins } from '../coins.ts';
import { WALLET_FORMAT_VERSION } from '../records.ts';
import { WalletError } from '../errors.ts';
import { EXAMPLE_ADDRESS, parseAddress, walletCall, walletOf } from './common.ts';

function partsJson(p: BalanceParts): JsonObject {
  return { trusted: amountToJson(p.trusted), untrusted_pending: amountToJson(p.untrustedPending), immature: amountToJson(p.immature) };
}

/** listunspent's query_options. */
interface QueryOptions {
  readonly minimumAmount: bigint;
  readonly maximumAmount: bigint | null;
  readonly maximumCount: number | null;
  readonly minimumSumAmount: bigint | null;
  readonly includeImmature: boolean;
}

function parseQueryOptions(value: JsonObject | undefined): QueryOptions {
  const o = value ?? {};
  const known = ['minimumAmount', 'maximumAmount', 'maximumCount', 'minimumSumAmount', 'include_immature_coinbase'];
  for (const key of Object.keys(o)) if (!known.includes(key)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Unexpected key ${key}`);
  const amount = (key: string) => (o[key] === undefined || o[key] === null ? null : amountFromValue(o[key]));
  const count = o.maximumCount;
  if (count !== undefined && count !== null && (typeof count !== 'number' || !Number.isInteger(count))) {
    throw new RpcError(RpcErrorCode.TYPE_ERROR, 'JSON value for maximumCount is not an integer');
  }
  return {
    minimumAmount: amount('minimumAmount') ?? 0n,
    maximumAmount: amount('maximumAmount'),
    maximumCount: typeof count === 'number' && count > 0 ? count : null,
    minimumSumAmount: amount('minimumSumAmount'),
    includeImmature: o.include_immature_coinbase === true,
  };
}

export function registerBalanceMethods(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registry.register({
    name: 'getbalance',
    category: 'Wallet',
    description:
      'Returns the total available balance.\n' +
      'The available balance is what the wallet considers currently spendable, and is\n' +
      'thus affected by options which limit spendability such as -spendzeroconfchange.',
    params: [
      { name: 'dummy', type: 'string', optional: true, description: 'Remains for backward compatibility. Must be excluded or set to "*".' },
      { name: 'minconf', type: 'integer', default: 0, description: 'Only include transactions confirmed at least this many times.' },
      {
        name: 'include_watchonly',
        type: 'boolean',
        default: false,
        description: "Also include balance in watch-only addresses (see 'importaddress')",
      },
      {
        name: 'avoid_reuse',
        type: 'boolean',
        default: false,
        description:
          '(only available if avoid_reuse wallet flag is set) Do not include balance in dirty outputs; addresses are considered dirty if they have previously been used in a transaction.',
      },
    ],
    result: 'n    (numeric) The total amount in coins received for this wallet.',
    examples: [{ args: [] }, { args: ['*', 6] }],
    handler: async ([dummy, minconf, includeWatchonly, avoidReuse], call) => {
      const wallet = walletOf(ctx, call);
      if (dummy !== undefined && dummy !== '*')
        throw new RpcError(RpcErrorCode.METHOD_DEPRECATED, 'dummy first argument must be excluded or set to "*".');
      if (avoidReuse) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'wallet does not have the "avoid reuse" feature enabled');
      const b = computeBalances(wallet.view, minconf);
      return amountToJson(b.mine.trusted + (includeWatchonly ? b.watchonly.trusted : 0n));
    },
  });

  registry.register({
    name: 'getbalances',
    category: 'Wallet',
    description: 'Returns an object with all balances in coins.',
    params: [],
    result: [
      '{                               (json object)',
      '  "mine" : {                    (json object) balances from outputs that the wallet can sign',
      '    "trusted" : n,              (numeric) trusted balance (outputs created by the wallet or confirmed outputs)',
      '    "untrusted_pending" : n,    (numeric) untrusted pending balance (outputs created by others that are in the mempool)',
      '    "immature" : n              (numeric) balance from immature coinbase outputs',
      '  },',
      '  "watchonly" : {               (json object, optional) watchonly balances (not present if wallet does not watch anything)',
      '    "trusted" : n,              (numeric) trusted balance (outputs created by the wallet or confirmed outputs)',
      '    "untrusted_pending" : n,    (numeric) untrusted pending balance (outputs created by others that are in the mempool)',
      '    "immature" : n              (numeric) balance from immature coinbase outputs',
      '  },',
      '  "lastprocessedblock" : {      (json object) hash and height of the block this information was generated on',
      '    "hash" : "hex",             (string) hash of the block this information was generated on',
      '    "height" : n                (numeric) height of the block this information was generated on',
      '  }',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async (_args, call) => {
      const wallet = walletOf(ctx, call);
      const b = computeBalances(wallet.view);
      return {
        mine: partsJson(b.mine),
        watchonly: wallet.keyring.watchesScripts ? partsJson(b.watchonly) : undefined,
        lastprocessedblock: { hash: ctx.chain.tip.hashHex, height: ctx.chain.height },
      };
    },
  });

  registry.register({
    name: 'getunconfirmedbalance',
    category: 'Wallet',
    description: 'DEPRECATED\nIdentical to getbalances().mine.untrusted_pending',
    params: [],
    result: 'n    (numeric) The balance',
    examples: [{ args: [] }],
    handler: async (_args, call) => amountToJson(computeBalances(walletOf(ctx, call).view).mine.untrustedPending),
  });

  registry.register({
    name: 'getwalletinfo',
    category: 'Wallet',
    description: 'Returns an object containing various wallet state info.',
    params: [],
    result: [
      '{                                         (json object)',
      '  "walletname" : "str",                   (string) the wallet name ("" for the default wallet, the only one csd has)',
      '  "walletversion" : n,                    (numeric) the wallet record format version',
      '  "format" : "str",                       (string) the database format: "lmdb" (the node\'s own database)',
      '  "balance" : n,                          (numeric) DEPRECATED. Identical to getbalances().mine.trusted',
      '  "unconfirmed_balance" : n,              (numeric) DEPRECATED. Identical to getbalances().mine.untrusted_pending',
      '  "immature_balance" : n,                 (numeric) DEPRECATED. Identical to getbalances().mine.immature',
      '  "txcount" : n,                          (numeric) the total number of transactions in the wallet',
      '  "keypoolsize" : n,                      (numeric) how many unused receiving keys the wallet watches ahead (all address types)',
      '  "keypoolsize_hd_internal" : n,          (numeric) how many unused change keys the wallet watches ahead (all address types)',
      '  "unlocked_until" : xxx,                 (numeric, optional) the UNIX epoch time until which the wallet is unlocked for transfers, or 0 if the wallet is locked (only present for passphrase-encrypted wallets)',
      '  "paytxfee" : n,                         (numeric) the transaction fee configuration, set in coins/kvB',
      '  "hdseedid" : "hex",                     (string) the Hash160 of the HD seed\'s master public key',
      '  "private_keys_enabled" : true|false,    (boolean) false if privatekeys are disabled for this wallet (enforced watch-only wallet)',
      '  "avoid_reuse" : true|false,             (boolean) whether this wallet tracks clean/dirty coins in terms of reuse',
      '  "scanning" : {                          (json object) current scanning details, or false if no scan is in progress',
      '    "duration" : n,                       (numeric) elapsed seconds since scan start',
      '    "progress" : n                        (numeric) scanning progress percentage [0.0, 1.0]',
      '  },',
      '  "descriptors" : true|false,             (boolean) whether this wallet uses descriptors for output script management (false: BIP32 accounts)',
      '  "external_signer" : true|false,         (boolean) whether this wallet is configured to use an external signer such as a hardware wallet',
      '  "blank" : true|false,                   (boolean) Whether this wallet intentionally does not contain any keys, scripts, or descriptors',
      '  "birthtime" : xxx,                      (numeric) The start time for blocks scanning. It could be modified by (re)importing any descriptor with an earlier timestamp.',
      '  "lastprocessedblock" : {                (json object) hash and height of the block this information was generated on',
      '    "hash" : "hex",                       (string) hash of the block this information was generated on',
      '    "height" : n                          (numeric) height of the block this information was generated on',
      '  }',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async (_args, call) => {
      const wallet = walletOf(ctx, call);
      const b = computeBalances(wallet.view);
      const scan = wallet.rescanner.progress;
      return {
        walletname: wallet.name,
        walletversion: WALLET_FORMAT_VERSION,
        format: 'lmdb',
        balance: amountToJson(b.mine.trusted),
        unconfirmed_balance: amountToJson(b.mine.untrustedPending),
        immature_balance: amountToJson(b.mine.immature),
        txcount: wallet.ledger.size,
        keypoolsize: wallet.keypoolSize(),
        keypoolsize_hd_internal: wallet.keypoolSize(),
        unlocked_until: wallet.encryption.encrypted ? wallet.encryption.unlockedUntil : undefined,
        paytxfee: feeRateToCoins(wallet.payTxFee),
        hdseedid: toHex(wallet.keyring.seedId),
        private_keys_enabled: true,
        avoid_reuse: false,
        scanning: scan ? { duration: Math.floor((Date.now() - scan.startedAt) / 1000), progress: scan.progress } : false,
        descriptors: false,
        external_signer: false,
        blank: false,
        birthtime: wallet.keyring.birth,
        lastprocessedblock: { hash: ctx.chain.tip.hashHex, height: ctx.chain.height },
      };
    },
  });

  registry.register({
    name: 'listunspent',
    category: 'Wallet',
    description:
      'Returns array of unspent transaction outputs\n' +
      'with between minconf and maxconf (inclusive) confirmations.\n' +
      'Optionally filter to only include txouts paid to specified addresses.\n' +
      'Coins locked with lockunspent are left out.',
    params: [
      { name: 'minconf', type: 'integer', default: 1, description: 'The minimum confirmations to filter' },
      { name: 'maxconf', type: 'integer', default: 9999999, description: 'The maximum confirmations to filter' },
      { name: 'addresses', type: 'array', default: [], description: 'The cs addresses to filter' },
      {
        name: 'include_unsafe',
        type: 'boolean',
        default: true,
        description: 'Include outputs that are not safe to spend\nSee description of "safe" attribute below.',
      },
      {
        name: 'query_options',
        type: 'object',
        optional: true,
        description:
          'JSON with query options: minimumAmount (default 0), maximumAmount (default unlimited), maximumCount (default unlimited),\n' +
          'minimumSumAmount (default unlimited), include_immature_coinbase (default false)',
      },
    ],
    result: [
      '[                                (json array)',
      '  {                              (json object)',
      '    "txid" : "hex",              (string) the transaction id',
      '    "vout" : n,                  (numeric) the vout value',
      '    "address" : "str",           (string, optional) the cs address',
      '    "label" : "str",             (string, optional) The associated label, or "" for the default label',
      '    "scriptPubKey" : "str",      (string) the output script',
      '    "amount" : n,                (numeric) the transaction output amount in coins',
      '    "confirmations" : n,         (numeric) The number of confirmations',
      '    "ancestorcount" : n,         (numeric, optional) The number of in-mempool ancestor transactions, including this one (if transaction is in the mempool)',
      '    "ancestorsize" : n,          (numeric, optional) The virtual transaction size of in-mempool ancestors, including this one (if transaction is in the mempool)',
      '    "ancestorfees" : n,          (numeric, optional) The total fees of in-mempool ancestors (including this one) with fee deltas used for mining priority in base units (if transaction is in the mempool)',
      '    "spendable" : true|false,    (boolean) Whether we have the private keys to spend this output',
      '    "solvable" : true|false,     (boolean) Whether we know how to spend this output, ignoring the lack of keys',
      '    "safe" : true|false          (boolean) Whether this output is considered safe to spend. Unconfirmed transactions\n' +
        '                                 from outside keys and unconfirmed replacement transactions are considered unsafe\n' +
        '                                 and are not eligible for spending by fundrawtransaction and sendtoaddress.',
      '  },',
      '  ...',
      ']',
    ].join('\n'),
    examples: [{ args: [] }, { args: [6, 9999999, [EXAMPLE_ADDRESS]] }, { args: [1, 9999999, [], true, { minimumAmount: 0.005 }] }],
    handler: async ([minconf, maxconf, addresses, includeUnsafe, queryOptions], call) => {
      const wallet = walletOf(ctx, call);
      let scripts: Set<string> | undefined;
      if (addresses.length > 0) {
        scripts = new Set();
        for (const value of addresses) {
          const address = jsonString(value);
          const script = toHex(parseAddress(ctx, address));
          if (scripts.has(script)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Invalid parameter, duplicated address: ${address}`);
          scripts.add(script);
        }
      }
      if (queryOptions !== undefined && !isJsonObject(queryOptions)) throw new RpcError(RpcErrorCode.TYPE_ERROR, 'query_options must be an object');
      const q = parseQueryOptions(queryOptions);
      const coins = listCoins(wallet.view, wallet.locks, {
        minDepth: minconf,
        maxDepth: maxconf,
        includeUnsafe,
        includeWatchOnly: true,
        includeImmature: q.includeImmature,
        scripts,
      }).sort((a, b) => b.depth - a.depth || a.wtx.orderPos - b.wtx.orderPos || a.vout - b.vout);
      const out: JsonObject[] = [];
      let sum = 0n;
      for (const coin of coins) {
        const value = coin.output.value;
        if (value < q.minimumAmount || (q.maximumAmount !== null && value > q.maximumAmount)) continue;
        const entry = coin.depth === 0 ? ctx.mempool.get(coin.txid) : undefined;
        const address = scriptToAddress(coin.output.scriptPubKey, ctx.params.address);
        out.push({
          txid: coin.txid,
          vout: coin.vout,
          address: address ?? undefined,
          label: wallet.keyring.label(coin.output.scriptPubKey),
          scriptPubKey: toHex(coin.output.scriptPubKey),
          amount: amountToJson(value),
          confirmations: coin.depth,
          ancestorcount: entry?.countWithAncestors,
          ancestorsize: entry?.sizeWithAncestors,
          ancestorfees: entry ? Number(entry.modFeesWithAncestors) : undefined,
          spendable: coin.spendable,
          solvable: coin.spendable,
          safe: coin.safe,
        });
        sum += value;
        if (q.minimumSumAmount !== null && sum >= q.minimumSumAmount) break;
        if (q.maximumCount !== null && out.length >= q.maximumCount) break;
      }
      return out;
    },
  });

  registry.register({
    name: 'rescanblockchain',
    category: 'Wallet',
    description:
      'Rescan the local blockchain for wallet related transactions.\n' +
      'Note: Use "getwalletinfo" to query the scanning progress.\n' +
      'The rescan is significantly faster when used on a descriptor wallet\n' +
      'and block filters are available (not in csd: every block is read).',
    params: [
      { name: 'start_height', type: 'integer', default: 0, description: 'block height where the rescan should start' },
      {
        name: 'stop_height',
        type: 'integer',
        optional: true,
        description: 'the last block height that should be scanned. If none is provided it will rescan up to the tip at return time.',
      },
    ],
    result: [
      '{                        (json object)',
      '  "start_height" : n,    (numeric) The block height where the rescan started (the requested height or 0)',
      '  "stop_height" : n      (numeric) The height of the last rescanned block.',
      '}',
    ].join('\n'),
    examples: [{ args: [100000, 120000] }],
    handler: async ([startHeight, stopHeight], call) => {
      const wallet = walletOf(ctx, call);
      const tip = ctx.chain.height;
      if (startHeight < 0 || startHeight > tip) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid start_height');
      if (stopHeight !== undefined) {
        if (stopHeight < 0 || stopHeight > tip) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Invalid stop_height');
        if (stopHeight < startHeight) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'stop_height must be greater than start_height');
      }
      return walletCall(async () => {
        let stop: number;
        try {
          stop = await wallet.rescanner.scan(startHeight, stopHeight ?? null);
        } catch (e) {
          // Core words it differently here than for the imports.
          if (e instanceof WalletError && e.kind === 'rescan-aborted') throw new WalletError(e.kind, 'Rescan aborted.');
          throw e;
        }
        wallet.scanMempool();
        return { start_height: startHeight, stop_height: stop };
      });
    },
  });

  registry.register({
    name: 'abortrescan',
    category: 'Wallet',
    description:
      'Stops current wallet rescan triggered by an RPC call, e.g. by an importprivkey call.\n' +
      'Note: Use "getwalletinfo" to query the scanning progress.',
    params: [],
    result: 'true|false    (boolean) Whether the abort was successful',
    examples: [{ args: [], description: 'Import a private key, then abort the rescan it started' }],
    handler: async (_args, call) => walletOf(ctx, call).rescanner.abort(),
  });

  registry.register({
    name: 'listwallets',
    category: 'Wallet',
    description: 'Returns a list of currently loaded wallets.\ncsd has one wallet, the default one, named "".',
    params: [],
    result: ['[           (json array)', '  "str",    (string) the wallet name', '  ...', ']'].join('\n'),
    examples: [{ args: [] }],
    handler: async () => (ctx.wallet ? [ctx.wallet.name] : []),
  });
}
