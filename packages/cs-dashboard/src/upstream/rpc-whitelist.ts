/**
 * The csd JSON-RPC methods a browser may call through the dashboard: reads only. Anything that
 * sends, signs, changes the wallet, the mempool, the peers or the node's state stays out, so the
 * node's credentials held by the dashboard cannot be turned into a write by a page.
 */
export const RPC_WHITELIST: ReadonlySet<string> = new Set([
  'getbestblockhash',
  'getblock',
  'getblockchaininfo',
  'getblockcount',
  'getblockhash',
  'getblockheader',
  'getchaintips',
  'getconnectioncount',
  'getdifficulty',
  'getmempoolentry',
  'getmempoolinfo',
  'getmininginfo',
  'getnettotals',
  'getnetworkhashps',
  'getnetworkinfo',
  'getpeerinfo',
  'getrawmempool',
  'getrawtransaction',
  'gettxout',
  'getmodelmanifest',
  'getopoiaudit',
  'getopoicontent',
  'getopoirequest',
  'getopoistake',
  'getopoistats',
  'listmodelmanifests',
  'listopoiaudits',
  'listopoirequests',
  'listopoiresponses',
  'listopoistakes',
]);

/** Why a browser's call is refused, or null when it may go to the node. */
export function refuseRpc(body: unknown): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body must be one JSON object {"method", "params"}';
  const { method, params } = body as { method?: unknown; params?: unknown };
  if (typeof method !== 'string') return '"method" must be a string';
  if (!RPC_WHITELIST.has(method)) return `method ${JSON.stringify(method)} is not on the dashboard's read-only list (docs/dashboard.md)`;
  if (params !== undefined && !Array.isArray(params)) return '"params" must be an array';
  return null;
}
