/**
 * /rest/opoi/request/<request_id> (getopoirequest's object), /rest/opoi/requests (the requests
 * of the active chain, by block height then id, a page at a time, optionally of one status),
 * /rest/opoi/audit/<request_id> (getopoiaudit's object), /rest/opoi/manifest/<model_id>
 * (getmodelmanifest's) and /rest/opoi/manifests (listmodelmanifests').
 */
import { DecodeError, type RequestRecord, type RequestStatus, isValidModelName, requestIdFromUuid, toHex } from '@cs/consensus';
import { auditedToJson, manifestToJson, nodeRequestToJson } from '../../opoi/json.ts';
import { JSON_ONLY, type Endpoint, type RestDeps } from '../endpoint.ts';
import { badRequest, notFound } from '../errors.ts';
import { decimalQuery } from '../params.ts';

const USAGE =
  '/rest/opoi/request/<request_id>.json, /rest/opoi/requests.json, /rest/opoi/audit/<request_id>.json, ' +
  '/rest/opoi/manifest/<model_id>.json or /rest/opoi/manifests.json';
const STATUSES: readonly RequestStatus[] = ['PENDING', 'PUBLISHING', 'AUDITING', 'FULFILLED', 'REJECTED', 'EXPIRED'];
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

/** A model id from the path: its segments joined again (ids may hold '/'), percent-decoded. */
function modelIdArg(segments: readonly string[]): string {
  const raw = segments.join('/');
  let id: string;
  try {
    id = decodeURIComponent(raw);
  } catch {
    throw badRequest(`Invalid model_id: ${raw}`);
  }
  if (!isValidModelName(id)) throw badRequest(`Invalid model_id: ${id} (at most 64 characters: letters, digits and ._:/+-)`);
  return id;
}

const byPlace = (a: RequestRecord, b: RequestRecord) => a.height - b.height || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export function opoiEndpoint({ ctx }: RestDeps): Endpoint {
  const { chain, params } = ctx;
  return {
    group: 'opoi',
    formats: JSON_ONLY,
    handle({ args, query }) {
      if (args.length === 2 && args[0] === 'request') {
        const r = chain.opoi.request(requestIdArg(args[1]));
        if (!r) throw notFound('OPoI request not found');
        return { json: nodeRequestToJson(r, ctx) };
      }
      if (args.length === 2 && args[0] === 'audit') {
        const r = chain.opoi.request(requestIdArg(args[1]));
        if (!r) throw notFound('OPoI request not found');
        const a = chain.opoi.audit(r.id);
        if (!a) throw notFound('OPoI audit not found (an OPEN request, or an answer not published yet)');
        return { json: auditedToJson(r, a, params) };
      }
      if (args.length >= 2 && args[0] === 'manifest') {
        const m = chain.opoi.manifest(modelIdArg(args.slice(1)));
        if (!m) throw notFound('Model manifest not found');
        return { json: manifestToJson(m, chain.height, params) };
      }
      if (args.length === 1 && args[0] === 'manifests') {
        const all = [...chain.opoi.manifests()].sort((a, b) => a.height - b.height || (a.modelId < b.modelId ? -1 : 1));
        return { json: all.map((m) => manifestToJson(m, chain.height, params)) };
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
