/**
 * The active chain: /rest/chaininfo (getblockchaininfo's object), /rest/headers (a run of
 * headers along the active chain) and /rest/blockhashbyheight, as Core 28 offers them.
 */
import { concatBytes } from '@cs/consensus';
import type { BlockIndexEntry } from '../../chain/block-index.ts';
import { headerToJson } from '../../format/json.ts';
import { ALL_FORMATS, JSON_ONLY, type Endpoint, type RestDeps } from '../endpoint.ts';
import { badRequest, notFound } from '../errors.ts';
import { expectArgs, parseDecimal, parseHash } from '../params.ts';

/** Core's MAX_REST_HEADERS_RESULTS. */
const MAX_HEADERS = 2000;
/** Core's count when /rest/headers/<hash> is given without ?count=. */
const DEFAULT_HEADERS = 5;
const INT32_MAX = 0x7fffffff;

export function chainInfoEndpoint({ callRpc }: RestDeps): Endpoint {
  return {
    group: 'chaininfo',
    formats: JSON_ONLY,
    async handle({ args }) {
      expectArgs(args, [0], '/rest/chaininfo.json');
      return { json: await callRpc('getblockchaininfo', []) };
    },
  };
}

/**
 * /rest/headers/<count>/<hash> (Core's older form) and /rest/headers/<hash>?count=<count>: up to
 * `count` headers from the given block along the active chain. A block off the active chain
 * yields none (as Core); an unknown one is "Block not found".
 */
export function headersEndpoint({ ctx }: RestDeps): Endpoint {
  const { chain, params } = ctx;
  return {
    group: 'headers',
    formats: ALL_FORMATS,
    handle({ args, format, query }) {
      expectArgs(args, [1, 2], '/rest/headers/<count>/<hash>.<ext> or /rest/headers/<hash>.<ext>?count=<count>');
      const rawCount = args.length === 2 ? args[0] : (query.get('count') ?? String(DEFAULT_HEADERS));
      const count = parseDecimal(rawCount, 1, MAX_HEADERS);
      if (count === null) throw badRequest(`Header count is invalid or out of acceptable range (1-${MAX_HEADERS}): ${rawCount}`);
      const start = chain.entry(parseHash(args[args.length - 1]));
      if (!start) throw notFound('Block not found');
      const headers: BlockIndexEntry[] = [];
      for (let e = chain.contains(start) ? start : undefined; e && headers.length < count; e = chain.next(e)) headers.push(e);
      if (format === 'json') return { json: headers.map((e) => headerToJson(e, chain, params)) };
      return { bytes: concatBytes(...headers.map((e) => e.header.encode())) };
    },
  };
}

/** /rest/blockhashbyheight/<height>: .bin is the hash in internal byte order, .hex and .json in display order (as Core). */
export function blockHashByHeightEndpoint({ ctx }: RestDeps): Endpoint {
  const { chain } = ctx;
  return {
    group: 'blockhashbyheight',
    formats: ALL_FORMATS,
    handle({ args, format }) {
      expectArgs(args, [1], '/rest/blockhashbyheight/<height>.<ext>');
      const height = parseDecimal(args[0], 0, INT32_MAX);
      if (height === null) throw badRequest(`Invalid height: ${args[0]}`);
      const entry = chain.atHeight(height);
      if (!entry) throw notFound('Block height out of range');
      if (format === 'json') return { json: { blockhash: entry.hashHex } };
      return format === 'bin' ? { bytes: entry.hash } : { text: entry.hashHex };
    },
  };
}
