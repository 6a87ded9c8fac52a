/**
 * The REST interface (-rest): read-only GET requests under /rest/ on the RPC port, without
 * authentication (DECISIONS.md), behind rpcallowip and CORS as the server applies them to every
 * route. Each request goes, in this order, through:
 *
 *   1. the endpoint named by the first path segment (404 for an unknown one);
 *   2. the client's budget for that endpoint's group (429 with Retry-After);
 *   3. warmup: while the node starts, 503 with the current step, as Core;
 *   4. the format suffix: one the endpoint cannot give is 404 with the ones it can, as Core;
 *   5. the endpoint itself: 400 for a malformed path, 404 for an unknown block or transaction,
 *      501/503 for a disabled or syncing index.
 *
 * Errors are JSON `{"error": "<text>"}`; a failure nobody expected becomes the server's 500
 * `{"error":"Internal server error"}` (rpc/server.ts). docs/rest.md is the reference.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonValue } from '../format/json-value.ts';
import type { RpcRegistry } from '../rpc/registry.ts';
import type { RouteContext, RouteHandler, RpcHttpServer } from '../rpc/server.ts';
import type { Warmup } from '../rpc/warmup.ts';
import { RawBlockCache } from './block-cache.ts';
import type { Endpoint, RestContext, RestDeps } from './endpoint.ts';
import { addressEndpoint } from './endpoints/address.ts';
import { blockEndpoint } from './endpoints/block.ts';
import { blockHashByHeightEndpoint, chainInfoEndpoint, headersEndpoint } from './endpoints/chain.ts';
import { getUtxosEndpoint } from './endpoints/getutxos.ts';
import { mempoolEndpoint } from './endpoints/mempool.ts';
import { opoiEndpoint } from './endpoints/opoi.ts';
import { txEndpoint } from './endpoints/tx.ts';
import { RestError } from './errors.ts';
import { formatList, splitFormat } from './format.ts';
import { RestRateLimits } from './rate-limits.ts';
import { writeError, writeReply } from './reply.ts';

/** Where the server mounts the handler (a prefix route). */
export const REST_PREFIX = '/rest/';

export interface RestOptions extends Omit<RestDeps, 'blocks'> {
  /** The node's start-up state; REST answers 503 until it is finished. */
  readonly warmup: Warmup;
  /** restratelimit: requests per minute per client and endpoint group (half for address and mempool); 0 = off. */
  readonly rateLimit: number;
  /** Monotonic milliseconds for the rate limits' windows (tests move it by hand). */
  readonly now?: () => number;
  /** Budget of the recently served blocks cache (default BLOCK_CACHE_BYTES; 0 reads every block from the database). */
  readonly blockCacheBytes?: number;
}

/** Every endpoint, by the first path segment after /rest/ (docs/api/csd-rest.openapi.json describes each; its test reads this table). */
export const REST_ENDPOINTS: readonly (readonly [name: string, create: (deps: RestDeps) => Endpoint])[] = [
  ['chaininfo', chainInfoEndpoint],
  ['block', blockEndpoint],
  ['tx', txEndpoint],
  ['address', addressEndpoint],
  ['mempool', mempoolEndpoint],
  ['getutxos', getUtxosEndpoint],
  ['headers', headersEndpoint],
  ['blockhashbyheight', blockHashByHeightEndpoint],
  ['opoi', opoiEndpoint],
];

export function createRestHandler(options: RestOptions): RouteHandler {
  const deps: RestDeps = { ...options, blocks: new RawBlockCache(options.ctx.chain, options.blockCacheBytes) };
  const endpoints = new Map<string, Endpoint>(REST_ENDPOINTS.map(([name, create]) => [name, create(deps)]));
  const limits = new RestRateLimits(options.rateLimit, options.now);
  const { warmup } = options;

  return async (req: IncomingMessage, res: ServerResponse, { path, peer }: RouteContext): Promise<void> => {
    const { path: bare, format } = splitFormat(path);
    const [name, ...args] = bare.split('/');
    const endpoint = endpoints.get(name);
    if (endpoint === undefined) return writeError(res, 404, `Unknown REST endpoint: ${REST_PREFIX}${path}`);
    if (!limits.tryTake(endpoint.group, peer)) {
      return writeError(res, 429, 'Rate limit exceeded', { 'Retry-After': limits.retryAfterSeconds(endpoint.group, peer) });
    }
    if (warmup.status !== null) return writeError(res, 503, `Service temporarily unavailable: ${warmup.status}`);
    if (format === null || !endpoint.formats.includes(format)) {
      return writeError(res, 404, `output format not found (available: ${formatList(endpoint.formats)})`);
    }
    try {
      writeReply(res, format, await endpoint.handle({ args, format, query: queryOf(req) }));
    } catch (e) {
      if (!(e instanceof RestError)) throw e;
      writeError(res, e.status, e.message, e.headers);
    }
  };
}

function queryOf(req: IncomingMessage): URLSearchParams {
  const url = req.url ?? '';
  const q = url.indexOf('?');
  return new URLSearchParams(q < 0 ? '' : url.slice(q + 1));
}

/** Serves REST on the node's RPC server (-rest), answering chaininfo and mempool contents through `registry`'s methods. */
export function registerRest(server: RpcHttpServer, registry: RpcRegistry, ctx: RestContext, rateLimit: number): void {
  const callRpc = (method: string, params: readonly JsonValue[]) => registry.call(method, params, { uri: REST_PREFIX, peer: '' });
  server.addGetRoute(REST_PREFIX, createRestHandler({ ctx, callRpc, warmup: registry.warmup, rateLimit }), { prefix: true });
}
