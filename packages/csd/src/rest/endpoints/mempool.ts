/**
 * /rest/mempool/info (getmempoolinfo's object) and /rest/mempool/contents (getrawmempool's,
 * with Core 28's query parameters `verbose`, default true, and `mempool_sequence`, default false).
 */
import { mempoolInfoJson } from '../../mempool/info.ts';
import { JSON_ONLY, type Endpoint, type RestDeps } from '../endpoint.ts';
import { badRequest } from '../errors.ts';
import { expectArgs } from '../params.ts';

const USAGE = '/rest/mempool/<info|contents>.json';

function booleanQuery(query: URLSearchParams, name: string, fallback: boolean): boolean {
  const raw = query.get(name) ?? String(fallback);
  if (raw !== 'true' && raw !== 'false') throw badRequest(`The "${name}" query parameter must be either "true" or "false".`);
  return raw === 'true';
}

export function mempoolEndpoint({ ctx, callRpc }: RestDeps): Endpoint {
  return {
    group: 'mempool',
    formats: JSON_ONLY,
    async handle({ args, query }) {
      expectArgs(args, [1], USAGE);
      if (args[0] === 'info') return { json: mempoolInfoJson(ctx.mempool.info()) };
      if (args[0] !== 'contents') throw badRequest(`Invalid URI format. Expected ${USAGE}`);
      const verbose = booleanQuery(query, 'verbose', true);
      const sequence = booleanQuery(query, 'mempool_sequence', false);
      if (verbose && sequence) throw badRequest('Verbose results cannot contain mempool sequence values. (hint: set "verbose=false")');
      return { json: await callRpc('getrawmempool', [verbose, sequence]) };
    },
  };
}
