/** The Blockchain category's methods on the mempool's contents (Core's rpc/mempool.cpp). */
import { mempoolEntryToJson } from '../../../format/json.ts';
import type { JsonObject, JsonValue } from '../../../format/json-value.ts';
import type { MempoolEntry } from '../../../mempool/entry.ts';
import { mempoolInfoJson } from '../../../mempool/info.ts';
import type { ChainContext } from '../../context.ts';
import { RpcError, RpcErrorCode } from '../../errors.ts';
import { parseHashV } from '../../params.ts';
import type { RpcRegistry } from '../../registry.ts';
import { SOME_TXID } from '../examples.ts';

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

export function registerMempoolMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { mempool } = ctx;

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
}
