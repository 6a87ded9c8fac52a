/**
 * The OpenAPI 3.1 description of the pool's monitoring API (docs/pool.md, "HTTP API"), checked
 * in as docs/api/pool.openapi.json (npm run gen:api) and tested against a running cs-pool.
 * Amounts are integers in base units, times milliseconds since the epoch, hashrates Sol/s.
 */
const integer = { type: 'integer' } as const;
const number = { type: 'number' } as const;
const string = { type: 'string' } as const;
const amounts = { type: 'object', additionalProperties: integer, description: 'base units by address' } as const;
const shares = {
  type: 'object',
  required: ['valid', 'invalid', 'stale'],
  properties: { valid: integer, invalid: integer, stale: integer, duplicate: integer, low: integer },
} as const;
const error = { description: 'not found', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } } as const;
const json = (description: string, schema: object) => ({ description, content: { 'application/json': { schema } } });
const address = { name: 'address', in: 'path', required: true, schema: { type: 'string', pattern: '^[A-Za-z0-9]{1,100}$' } } as const;

export const POOL_OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'cs-pool monitoring API', version: '0.1.0', description: 'Read-only pool, miner and block state (docs/pool.md, "HTTP API").' },
  components: {
    schemas: {
      Error: { type: 'object', required: ['error'], properties: { error: string } },
      Block: {
        type: 'object',
        required: ['height', 'hash', 'status', 'confirmations', 'reward', 'fee', 'finder', 'worker', 'solo', 'time', 'credits'],
        properties: {
          height: integer,
          hash: string,
          status: { enum: ['new', 'pending', 'confirmed', 'orphaned'] },
          confirmations: integer,
          reward: { ...integer, description: 'base units' },
          fee: { ...integer, description: 'base units kept by the pool' },
          finder: string,
          worker: string,
          solo: { type: 'boolean' },
          time: integer,
          credits: amounts,
        },
      },
      Payment: {
        type: 'object',
        required: ['id', 'txid', 'status', 'time'],
        properties: {
          id: integer,
          txid: string,
          status: { enum: ['signed', 'broadcast', 'confirmed', 'failed'] },
          time: integer,
          amounts,
          amount: integer,
        },
      },
      Worker: {
        type: 'object',
        required: ['worker', 'hashrate', 'valid', 'invalid', 'stale', 'lastShare', 'connected'],
        properties: { worker: string, hashrate: number, valid: integer, invalid: integer, stale: integer, lastShare: integer, connected: integer },
      },
    },
  },
  paths: {
    '/api/pool/stats': {
      get: {
        summary: 'The pool: configuration, miners, hashrate, shares, blocks by status, the network',
        responses: {
          200: json('pool statistics', {
            type: 'object',
            required: ['chain', 'scheme', 'fee', 'poolAddress', 'ports', 'connectedMiners', 'hashrate', 'shares', 'lastShare', 'blocks', 'network'],
            properties: {
              chain: string,
              scheme: { enum: ['pplns', 'prop', 'solo'] },
              fee: { ...number, description: 'percent' },
              minPayout: integer,
              poolAddress: string,
              ports: { type: 'object', additionalProperties: integer },
              algorithm: string,
              personalization: string,
              connectedMiners: integer,
              hashrate: number,
              shares,
              lastShare: integer,
              blocks: {
                type: 'object',
                required: ['new', 'pending', 'confirmed', 'orphaned', 'rejected'],
                properties: { new: integer, pending: integer, confirmed: integer, orphaned: integer, rejected: integer },
              },
              network: {
                oneOf: [
                  {
                    type: 'object',
                    required: ['height', 'difficulty', 'hashrate'],
                    properties: { height: integer, difficulty: number, hashrate: number },
                  },
                  { type: 'object', required: ['error'], properties: { error: string }, description: 'csd did not answer' },
                ],
              },
            },
          }),
        },
      },
    },
    '/api/blocks': {
      get: {
        summary: 'Blocks found, newest first',
        responses: { 200: json('blocks', { type: 'array', items: { $ref: '#/components/schemas/Block' } }) },
      },
    },
    '/api/workers': {
      get: {
        summary: 'Every worker that connected or sent a share since the pool started, of every address',
        responses: {
          200: json('workers', {
            type: 'array',
            items: {
              allOf: [{ $ref: '#/components/schemas/Worker' }, { type: 'object', required: ['address'], properties: { address: string } }],
            },
          }),
        },
      },
    },
    '/api/payments': {
      get: {
        summary: 'Payouts, newest first',
        responses: { 200: json('payments', { type: 'array', items: { $ref: '#/components/schemas/Payment' } }) },
      },
    },
    '/api/user/{address}': {
      get: {
        summary: 'A miner address: balance, hashrate, shares, workers online, the payments that paid it',
        parameters: [address],
        responses: {
          200: json('the address', {
            type: 'object',
            required: ['address', 'balance', 'hashrate', 'shares', 'lastShare', 'workers', 'payments'],
            properties: {
              address: string,
              balance: {
                type: 'object',
                required: ['immature', 'pending', 'paid'],
                properties: { immature: integer, pending: integer, paid: integer },
                description: 'base units',
              },
              hashrate: number,
              shares,
              lastShare: integer,
              workers: { ...integer, description: 'workers connected now' },
              payments: { type: 'array', items: { $ref: '#/components/schemas/Payment' } },
            },
          }),
          404: error,
        },
      },
    },
    '/api/user/{address}/workers': {
      get: {
        summary: "A miner address's workers",
        parameters: [address],
        responses: { 200: json('workers', { type: 'array', items: { $ref: '#/components/schemas/Worker' } }), 404: error },
      },
    },
    '/metrics': {
      get: { summary: 'Prometheus text format', responses: { 200: { description: 'metrics', content: { 'text/plain': { schema: string } } } } },
    },
  },
} as const;
