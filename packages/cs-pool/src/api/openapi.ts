/**
 * The OpenAPI 3.1 description of the pool's monitoring API (docs/pool.md, "HTTP API"), checked
 * in as docs/api/pool.openapi.json (npm run gen:api) and tested against a running cs-pool.
 * Amounts are integers in base units, times milliseconds since the epoch, hashrates Sol/s, except
 * on miningcore's routes (openapi-miningcore.ts), which keep miningcore's units.
 */
import { MININGCORE_PATHS, MININGCORE_SCHEMAS } from './openapi-miningcore.ts';
import { address, errorResponse, json, paging } from './openapi-parts.ts';

const integer = { type: 'integer' } as const;
const number = { type: 'number' } as const;
const string = { type: 'string' } as const;
const amounts = { type: 'object', additionalProperties: integer, description: 'base units by address' } as const;
const shares = {
  type: 'object',
  required: ['valid', 'invalid', 'stale'],
  properties: { valid: integer, invalid: integer, stale: integer, duplicate: integer, low: integer },
} as const;
const error = errorResponse('not found');
/** Without either paging parameter the whole list comes. */
const badPaging = errorResponse('page or pageSize out of range');
const workerWithAddress = {
  allOf: [{ $ref: '#/components/schemas/Worker' }, { type: 'object', required: ['address'], properties: { address: string } }],
} as const;

export const POOL_OPENAPI = {
  openapi: '3.1.0',
  info: {
    title: 'cs-pool monitoring API',
    version: '0.1.0',
    description:
      'Read-only pool, miner and block state (docs/pool.md, "HTTP API"), and miningcore\'s API under /api/pools (docs/pool.md, "miningcore\'s API").',
  },
  components: {
    schemas: {
      ...MININGCORE_SCHEMAS,
      Error: { type: 'object', required: ['error'], properties: { error: string } },
      Block: {
        type: 'object',
        required: ['height', 'hash', 'status', 'confirmations', 'reward', 'fee', 'finder', 'worker', 'solo', 'time', 'credits'],
        properties: {
          height: integer,
          hash: string,
          status: {
            enum: ['new', 'side', 'pending', 'confirmed', 'orphaned'],
            description: 'side: not on the active chain now, not credited; orphaned: not on it at maturity, never paid',
          },
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
        required: ['worker', 'hashrate', 'valid', 'invalid', 'stale', 'lastShare', 'connected', 'since', 'disconnected'],
        properties: {
          worker: string,
          hashrate: { ...number, description: 'Sol/s over the last 10 minutes, or since its first login when that is more recent' },
          valid: integer,
          invalid: integer,
          stale: integer,
          lastShare: integer,
          connected: { ...integer, description: 'its connections now' },
          since: { ...integer, description: 'its first login since the pool started' },
          disconnected: { ...integer, description: 'when its last connection closed; 0 while connected' },
        },
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
            required: [
              'chain',
              'scheme',
              'fee',
              'soloFee',
              'poolAddress',
              'ports',
              'connectedMiners',
              'hashrate',
              'shares',
              'lastShare',
              'blocks',
              'payments',
              'network',
            ],
            properties: {
              chain: string,
              scheme: { enum: ['pplns', 'prop', 'solo'] },
              fee: { ...number, description: 'percent of each PPLNS or PROP block reward' },
              soloFee: { ...number, description: 'percent of each solo block reward, 0 by default' },
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
                required: ['new', 'side', 'pending', 'confirmed', 'orphaned', 'rejected'],
                properties: { new: integer, side: integer, pending: integer, confirmed: integer, orphaned: integer, rejected: integer },
              },
              payments: {
                type: 'object',
                required: ['signed', 'broadcast', 'confirmed', 'failed'],
                properties: { signed: integer, broadcast: integer, confirmed: integer, failed: integer },
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
        parameters: paging,
        responses: { 200: json('blocks', { type: 'array', items: { $ref: '#/components/schemas/Block' } }), 400: badPaging },
      },
    },
    '/api/workers': {
      get: {
        summary: 'The workers connected now, of every address',
        responses: { 200: json('workers', { type: 'array', items: workerWithAddress }) },
      },
    },
    '/api/workers/history': {
      get: {
        summary: 'Every worker that logged in since the pool started, connected or not, of every address',
        responses: { 200: json('workers', { type: 'array', items: workerWithAddress }) },
      },
    },
    '/api/payments': {
      get: {
        summary: 'Payouts, newest first',
        parameters: paging,
        responses: { 200: json('payments', { type: 'array', items: { $ref: '#/components/schemas/Payment' } }), 400: badPaging },
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
        summary: "A miner address's workers connected now",
        parameters: [address],
        responses: { 200: json('workers', { type: 'array', items: { $ref: '#/components/schemas/Worker' } }), 404: error },
      },
    },
    '/api/user/{address}/workers/history': {
      get: {
        summary: 'Every worker of a miner address that logged in since the pool started, connected or not',
        parameters: [address],
        responses: { 200: json('workers', { type: 'array', items: { $ref: '#/components/schemas/Worker' } }), 404: error },
      },
    },
    '/metrics': {
      get: { summary: 'Prometheus text format', responses: { 200: { description: 'metrics', content: { 'text/plain': { schema: string } } } } },
    },
    ...MININGCORE_PATHS,
  },
} as const;
