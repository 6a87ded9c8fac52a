/**
 * The OpenAPI 3.1 description of csd's REST interface (docs/rest.md), checked in as
 * docs/api/csd-rest.openapi.json (npm run gen:api) and tested against a running csd. The JSON
 * answers are the objects RPC methods give, so their schemas are those methods' result schemas
 * (docs/api/rpc-methods.json), passed in by the generator.
 */

/** A result schema of an RPC method; `alternative` picks one of a result with several forms (getblock's verbosities). */
export type ResultSchemaOf = (method: string, alternative?: number) => object;

const string = { type: 'string' } as const;
const hash = (name: string) => ({ name, in: 'path', required: true, schema: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' } }) as const;
const json = (description: string, schema: object) => ({ description, content: { 'application/json': { schema } } });
const error = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const BAD = error('malformed path or parameter (the message says which)');
const WARMUP = error('the node is starting, or an index it needs is catching up');

/** `.json` with its schema, plus `.bin` (bytes) and `.hex` (their hex) forms of the same path. */
function formats(path: string, summary: string, parameters: readonly object[], schema: object, errors: Readonly<Record<number, object>>) {
  const get = (content: object) => ({ get: { summary, parameters, responses: { 200: content, 400: BAD, 503: WARMUP, ...errors } } });
  return {
    [`${path}.json`]: get(json('JSON', schema)),
    [`${path}.bin`]: get({ description: 'binary', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }),
    [`${path}.hex`]: get({ description: 'hex', content: { 'text/plain': { schema: string } } }),
  };
}

export function restOpenApi(result: ResultSchemaOf) {
  const notFound = (what: string) => ({ 404: error(`${what} not found`) });
  const getutxos = {
    type: 'object',
    required: ['chainHeight', 'chaintipHash', 'bitmap', 'utxos'],
    properties: {
      chainHeight: { type: 'integer' },
      chaintipHash: string,
      bitmap: { type: 'string', pattern: '^[01]*$' },
      utxos: {
        type: 'array',
        items: {
          type: 'object',
          required: ['height', 'value', 'scriptPubKey'],
          properties: { height: { type: 'integer' }, value: { type: 'number' }, scriptPubKey: { type: 'object' } },
        },
      },
    },
  };
  const outpoint = {
    name: 'outpoint',
    in: 'path',
    required: true,
    description: '<txid>-<n>; up to 15 of them, separated by /',
    schema: { type: 'string', pattern: '^[0-9a-fA-F]{64}-[0-9]+$' },
  };
  const requestId = { name: 'request_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } };
  const modelId = {
    name: 'model_id',
    in: 'path',
    required: true,
    description: 'A registered manifest id (letters, digits and ._:/+-; a / may stay unencoded). The .json suffix is required: ids hold dots.',
    schema: { type: 'string', maxLength: 64 },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'csd REST',
      version: '0.1.0',
      description: 'The read-only REST interface of csd (-rest), on the RPC port (docs/rest.md). 429 answers a client over its rate limit.',
    },
    components: { schemas: { Error: { type: 'object', required: ['error'], properties: { error: string } } } },
    paths: {
      '/rest/chaininfo.json': {
        get: { summary: 'getblockchaininfo', responses: { 200: json('chain state', result('getblockchaininfo')), 503: WARMUP } },
      },
      ...formats(
        '/rest/block/{hash}',
        'A block; JSON lists its txids (getblock verbosity 1)',
        [hash('hash')],
        result('getblock', 1),
        notFound('Block'),
      ),
      ...formats(
        '/rest/block/notxdetails/{hash}',
        'The same as /rest/block (kept for Core clients)',
        [hash('hash')],
        result('getblock', 1),
        notFound('Block'),
      ),
      ...formats(
        '/rest/headers/{hash}',
        'Up to count headers from the block along the active chain',
        [hash('hash'), { name: 'count', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 2000, default: 5 } }],
        { type: 'array', items: result('getblockheader', 0) },
        notFound('Block'),
      ),
      ...formats(
        '/rest/headers/{count}/{hash}',
        "Core's older form of /rest/headers",
        [{ name: 'count', in: 'path', required: true, schema: { type: 'integer', minimum: 1, maximum: 2000 } }, hash('hash')],
        { type: 'array', items: result('getblockheader', 0) },
        notFound('Block'),
      ),
      ...formats(
        '/rest/blockhashbyheight/{height}',
        "The active chain's block at a height",
        [{ name: 'height', in: 'path', required: true, schema: { type: 'integer', minimum: 0 } }],
        { type: 'object', required: ['blockhash'], properties: { blockhash: string } },
        { 404: error('height above the tip') },
      ),
      ...formats('/rest/tx/{txid}', 'A transaction, from the mempool or the transaction index', [hash('txid')], result('getrawtransaction', 1), {
        ...notFound('Transaction'),
        501: error('not in the mempool and -txindex=0'),
      }),
      '/rest/address/{address}.json': {
        get: {
          summary: 'An address: balances and one page of its transactions, newest first (the address index)',
          parameters: [
            { name: 'address', in: 'path', required: true, schema: string },
            { name: 'from', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
            { name: 'to', in: 'query', description: 'exclusive; at most from + 1000', schema: { type: 'integer', minimum: 1, default: 50 } },
          ],
          responses: {
            200: json('the address', {
              type: 'object',
              required: [
                'address',
                'balance',
                'totalReceived',
                'totalSent',
                'unconfirmedBalance',
                'txApperances',
                'unconfirmedTxApperances',
                'transactions',
                'totalItems',
                'from',
                'to',
              ],
              properties: {
                address: string,
                balance: { type: 'number' },
                totalReceived: { type: 'number' },
                totalSent: { type: 'number' },
                unconfirmedBalance: { type: 'number' },
                txApperances: { type: 'integer' },
                unconfirmedTxApperances: { type: 'integer' },
                transactions: { type: 'array', items: string },
                totalItems: { type: 'integer' },
                from: { type: 'integer' },
                to: { type: 'integer' },
              },
            }),
            400: BAD,
            501: error('-addressindex=0'),
            503: WARMUP,
          },
        },
      },
      '/rest/mempool/info.json': {
        get: { summary: 'getmempoolinfo', responses: { 200: json('mempool state', result('getmempoolinfo')), 503: WARMUP } },
      },
      '/rest/mempool/contents.json': {
        get: {
          summary: 'getrawmempool',
          parameters: [
            { name: 'verbose', in: 'query', schema: { type: 'boolean', default: true } },
            { name: 'mempool_sequence', in: 'query', schema: { type: 'boolean', default: false } },
          ],
          responses: { 200: json('the mempool', result('getrawmempool')), 400: BAD, 503: WARMUP },
        },
      },
      ...formats('/rest/getutxos/{outpoint}', 'BIP64: which outputs are unspent in the UTXO set', [outpoint], getutxos, {}),
      ...formats('/rest/getutxos/checkmempool/{outpoint}', 'BIP64, the mempool counting', [outpoint], getutxos, {}),
      '/rest/opoi/request/{request_id}.json': {
        get: {
          summary: 'getopoirequest',
          parameters: [requestId],
          responses: { 200: json('the request', result('getopoirequest')), 400: BAD, 404: error('unknown, or its REQUEST unconfirmed'), 503: WARMUP },
        },
      },
      '/rest/opoi/requests.json': {
        get: {
          summary: 'A page of OPoI requests, by block height then request id',
          parameters: [
            { name: 'status', in: 'query', schema: { enum: ['PENDING', 'PUBLISHING', 'AUDITING', 'FULFILLED', 'REJECTED', 'EXPIRED'] } },
            { name: 'from', in: 'query', schema: { type: 'integer', minimum: 0, default: 0 } },
            { name: 'count', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 1000, default: 100 } },
          ],
          responses: {
            200: json('the page', {
              type: 'object',
              required: ['total', 'from', 'count', 'requests'],
              properties: {
                total: { type: 'integer' },
                from: { type: 'integer' },
                count: { type: 'integer' },
                requests: { type: 'array', items: result('getopoirequest') },
              },
            }),
            400: BAD,
            503: WARMUP,
          },
        },
      },
      '/rest/opoi/audit/{request_id}.json': {
        get: {
          summary: 'getopoiaudit',
          parameters: [requestId],
          responses: {
            200: json('the audit', result('getopoiaudit')),
            400: BAD,
            404: error('unknown request, or no audit (OPEN, or the answer not published yet)'),
            503: WARMUP,
          },
        },
      },
      '/rest/opoi/manifest/{model_id}.json': {
        get: {
          summary: 'getmodelmanifest',
          parameters: [modelId],
          responses: { 200: json('the manifest', result('getmodelmanifest')), 400: BAD, 404: error('no confirmed manifest of that id'), 503: WARMUP },
        },
      },
      '/rest/opoi/manifests.json': {
        get: {
          summary: 'listmodelmanifests: the registered manifests, oldest first',
          responses: { 200: json('the manifests', result('listmodelmanifests')), 503: WARMUP },
        },
      },
    },
  };
}
