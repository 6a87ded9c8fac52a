/**
 * /rest/opoi/request/<request_id> (getopoirequest's object) and /rest/opoi/requests (the requests
 * of the active chain, by block height then id, a page at a time, optionally of one status).
 */
import { DecodeError, type RequestRecord, type RequestStatus, requestIdFromUuid, toHex } from '@cs/consensus';
import { nodeRequestToJson } from '../../opoi/json.ts';
import { JSON_ONLY, type Endpoint, type RestDeps } from '../endpoint.ts';
import { badRequest, notFound } from '../errors.ts';
import { decimalQuery } from '../params.ts';

const USAGE = '/rest/opoi/request/<request_id>.json or /rest/opoi/requests.json';
const STATUSES: readonly RequestStatus[] = ['PENDING', 'FULFILLED', 'EXPIRED'];
/** Requests in a page when `count` is not given, and the most one page holds. */
export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 1000;
const MAX_FROM = 2 ** 31 - 1;

function requestIdArg(text: string): string {
  try {
    return toHex(requestIdFromUuid(text));
  } catch (e) {
    if (e instanceof DecodeError) throw badRequest(`Invalid request_id: ${text} (a UUID, 8-4-4-4-12 hex digits)`);
    throw e;
  }
}

function statusQuery(query: URLSearchParams): RequestStatus | null {
  const raw = query.get('status');
  if (raw === null) return null;
  if (!(STATUSES as readonly string[]).includes(raw)) throw badRequest(`Invalid status: ${raw} (expected ${STATUSES.join(', ')})`);
  return raw as RequestStatus;
}

const byPlace = (a: RequestRecord, b: RequestRecord) => a.height - b.height || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function opoiEndpoint({ ctx }: RestDeps): Endpoint {
  const { chain } = ctx;
  return {
    group: 'opoi',
    formats: JSON_ONLY,
    handle({ args, query }) {
      if (args.length === 2 && args[0] === 'request') {
        const r = chain.opoi.request(requestIdArg(args[1]));
        if (!r) throw notFound('OPoI request not found');
        return { json: nodeRequestToJson(r, ctx) };
      }
      if (args.length !== 1 || args[0] !== 'requests') throw badRequest(`Invalid URI format. Expected ${USAGE}`);
      const status = statusQuery(query);
      const from = decimalQuery(query, 'from', 0, 0, MAX_FROM);
      const count = decimalQuery(query, 'count', DEFAULT_PAGE, 1, MAX_PAGE);
      const all = [...chain.opoi.requests()].filter((r) => status === null || r.status === status).sort(byPlace);
      const page = all.slice(from, from + count);
      return { json: { total: all.length, from, count: page.length, requests: page.map((r) => nodeRequestToJson(r, ctx)) } };
    },
  };
}
