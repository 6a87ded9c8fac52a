/**
 * /rest/getutxos/[checkmempool/]<txid>-<n>/...: BIP64 through the URI, as Core. The optional
 * first segment `checkmempool` (or `1`, the digit the interface document shows) looks at the
 * mempool too: its transactions' outputs count as unspent and outputs its transactions spend
 * count as spent. Core's other way in, a binary POST body, does not exist here: REST is GET only.
 */
import { hashFromHex, type OutPoint } from '@cs/consensus';
import { ALL_FORMATS, type Endpoint, type RestDeps } from '../endpoint.ts';
import { badRequest } from '../errors.ts';
import { encodeGetUtxos, getUtxosToJson } from '../bip64.ts';

/** Core's MAX_GETUTXOS_OUTPOINTS. */
const MAX_OUTPOINTS = 15;
const OUTPOINT = /^([0-9a-fA-F]{64})-([0-9]{1,10})$/;
const MAX_VOUT = 0xffffffff;

interface UtxoRequest {
  readonly checkMempool: boolean;
  readonly outpoints: readonly OutPoint[];
}

function parseRequest(args: readonly string[]): UtxoRequest {
  const checkMempool = args[0] === 'checkmempool' || args[0] === '1';
  const segments = checkMempool ? args.slice(1) : args;
  if (segments.length === 0 || (segments.length === 1 && segments[0] === '')) throw badRequest('Error: empty request');
  const outpoints = segments.map((segment): OutPoint => {
    const m = OUTPOINT.exec(segment);
    const vout = m ? Number(m[2]) : NaN;
    if (!m || vout > MAX_VOUT) throw badRequest(`Parse error: '${segment}' is not an outpoint <txid>-<n>`);
    return { txid: hashFromHex(m[1]), vout };
  });
  if (outpoints.length > MAX_OUTPOINTS) throw badRequest(`Error: max outpoints exceeded (max: ${MAX_OUTPOINTS}, tried: ${outpoints.length})`);
  return { checkMempool, outpoints };
}

export function getUtxosEndpoint({ ctx }: RestDeps): Endpoint {
  const { chain, mempool, params } = ctx;
  return {
    group: 'getutxos',
    formats: ALL_FORMATS,
    handle({ args, format }) {
      const { checkMempool, outpoints } = parseRequest(args);
      const view = checkMempool ? mempool.coinView() : chain;
      const coins = outpoints.map((p) => (checkMempool && mempool.spender(p) ? undefined : view.getCoin(p)));
      const answer = { tip: chain.tip, coins };
      return format === 'json' ? { json: getUtxosToJson(answer, params) } : { bytes: encodeGetUtxos(answer) };
    },
  };
}
