/**
 * The OpenAPI description of miningcore's routes (miningcore.ts), merged into the pool's document
 * (openapi.ts). Names, types and units are miningcore's (its Api/Responses classes, written by
 * ASP.NET in camelCase with null fields left out): amounts in coins, hashrates in solutions per
 * second, times ISO 8601 UTC. Objects allow no other field, so a misspelt one fails the tests.
 */
import { address, errorResponse, json, paging } from './openapi-parts.ts';

const integer = { type: 'integer' } as const;
const number = { type: 'number' } as const;
const string = { type: 'string' } as const;
const boolean = { type: 'boolean' } as const;
const time = { type: 'string', pattern: '^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d(\\.\\d+)?Z$', description: 'ISO 8601, UTC' } as const;
const coins = (description: string) => ({ type: 'number', description: `${description}, in coins` }) as const;

/** An object of exactly these properties, the `required` ones always present. */
function object(properties: Record<string, object>, optional: readonly string[] = []) {
  return {
    type: 'object',
    additionalProperties: false,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    properties,
  } as const;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` }) as const;
const problem = errorResponse;
const id = { name: 'id', in: 'path', required: true, schema: string, description: 'the pool id, cs-<chain> (cs-main, cs-test, cs-regtest)' } as const;
const notFound = problem('no pool of that id');
const badQuery = problem('a query parameter out of range');

const workerPerformance = object({ hashrate: { ...number, description: 'Sol/s' }, sharesPerSecond: number });
const workers = { type: 'object', additionalProperties: ref('McWorkerPerformance'), description: 'by worker name' } as const;

export const MININGCORE_SCHEMAS = {
  McPoolInfo: object(
    {
      id: string,
      coin: object({ type: string, name: string, symbol: string, family: string, algorithm: string }),
      ports: {
        type: 'object',
        description: 'by port number',
        additionalProperties: object(
          {
            listenAddress: string,
            name: string,
            difficulty: number,
            varDiff: object({ minDiff: number, maxDiff: number, targetTime: number, retargetTime: number, variancePercent: number }),
            tls: boolean,
            tlsAuto: boolean,
          },
          ['varDiff'],
        ),
      },
      paymentProcessing: object(
        {
          enabled: boolean,
          minimumPayment: coins('the smallest balance paid'),
          payoutScheme: { enum: ['PPLNS', 'PROP', 'SOLO'] },
          payoutSchemeConfig: object({ factor: number }),
        },
        ['payoutSchemeConfig'],
      ),
      shareBasedBanning: object({ enabled: boolean, checkThreshold: integer, invalidPercent: number, time: { ...number, description: 'seconds' } }),
      clientConnectionTimeout: { ...number, description: 'seconds' },
      jobRebroadcastTimeout: { ...number, description: 'seconds' },
      blockRefreshInterval: { ...integer, description: 'milliseconds; 0: new blocks are pushed (ZeroMQ, long poll), not polled' },
      poolFeePercent: number,
      address: string,
      poolStats: object(
        {
          lastPoolBlockTime: time,
          connectedMiners: { ...integer, description: 'addresses with a worker connected now' },
          poolHashrate: { ...integer, description: 'Sol/s' },
          sharesPerSecond: { ...integer, description: 'valid shares per second, truncated as miningcore does' },
        },
        ['lastPoolBlockTime'],
      ),
      networkStats: object({
        networkType: { enum: ['Main', 'TestNet', 'RegTest'] },
        networkHashrate: { ...number, description: 'Sol/s' },
        networkDifficulty: { ...number, description: "powLimit / the target: getmininginfo's difficulty" },
        nextNetworkTarget: string,
        nextNetworkBits: string,
        lastNetworkBlockTime: { ...time, description: "the tip's block time" },
        blockHeight: integer,
        connectedPeers: integer,
        nodeVersion: string,
        rewardType: { const: 'POW' },
      }),
      topMiners: { type: 'array', items: ref('McMinerPerformance') },
      totalPaid: coins('everything paid to miners'),
      totalBlocks: integer,
      lastPoolBlockTime: time,
      poolEffort: { ...number, description: 'the open round: its shares over the network difficulty at the last block (1 = one block of work)' },
    },
    ['lastPoolBlockTime'],
  ),
  McMinerPerformance: object({ miner: string, hashrate: { ...number, description: 'Sol/s' }, sharesPerSecond: number }),
  McWorkerPerformance: workerPerformance,
  McBlock: object(
    {
      poolId: string,
      blockHeight: integer,
      networkDifficulty: number,
      status: { enum: ['pending', 'confirmed', 'orphaned'], description: 'pending: not mature yet (new, side or pending here)' },
      type: { const: 'block' },
      confirmationProgress: { type: 'number', minimum: 0, maximum: 1, description: 'confirmations / -maturity' },
      effort: { ...number, description: "its round's shares (since the block before) over its network difficulty" },
      transactionConfirmationData: { ...string, description: 'the coinbase txid' },
      reward: coins("what the pool's coinbase paid"),
      hash: string,
      miner: { ...string, description: 'the finder' },
      source: string,
      created: time,
    },
    ['effort'],
  ),
  McPayment: object({
    coin: string,
    address: string,
    amount: coins('paid to this address'),
    transactionConfirmationData: { ...string, description: 'the txid' },
    created: time,
  }),
  McMinerStats: object(
    {
      pendingShares: { ...number, description: 'the summed difficulty of its shares in the round still open' },
      pendingBalance: coins('mature, not paid yet'),
      totalPaid: coins('paid so far'),
      todayPaid: coins('paid since 00:00 UTC'),
      lastPayment: time,
      performance: object({ created: time, workers }),
      performanceSamples: { type: 'array', items: object({ created: time, workers }) },
    },
    ['lastPayment', 'performance'],
  ),
  McAggregatedPoolStats: object({
    poolHashrate: number,
    connectedMiners: integer,
    validSharesPerSecond: integer,
    networkHashrate: number,
    networkDifficulty: number,
    created: time,
  }),
} as const;

export const MININGCORE_PATHS = {
  '/api/pools': {
    get: {
      summary: "miningcore's pool list: this pool",
      responses: { 200: json('pools', object({ pools: { type: 'array', items: ref('McPoolInfo') } })) },
    },
  },
  '/api/pools/{id}': {
    get: {
      summary: "miningcore's pool: configuration, poolStats, networkStats",
      parameters: [id],
      responses: { 200: json('the pool', object({ pool: ref('McPoolInfo') })), 404: notFound },
    },
  },
  '/api/pools/{id}/blocks': {
    get: {
      summary: 'Blocks found, newest first (miningcore)',
      parameters: [
        id,
        ...paging,
        {
          name: 'state',
          in: 'query',
          required: false,
          schema: { enum: ['pending', 'confirmed', 'orphaned'] },
          description: 'repeatable; default all',
        },
      ],
      responses: { 200: json('blocks', { type: 'array', items: ref('McBlock') }), 400: badQuery, 404: notFound },
    },
  },
  '/api/pools/{id}/payments': {
    get: {
      summary: 'Payments sent, one row per address paid, newest first (miningcore)',
      parameters: [id, ...paging],
      responses: { 200: json('payments', { type: 'array', items: ref('McPayment') }), 400: badQuery, 404: notFound },
    },
  },
  '/api/pools/{id}/miners': {
    get: {
      summary: 'Miners by hashrate over the last 10 minutes, highest first (miningcore)',
      parameters: [id, ...paging],
      responses: { 200: json('miners', { type: 'array', items: ref('McMinerPerformance') }), 400: badQuery, 404: notFound },
    },
  },
  '/api/pools/{id}/miners/{address}': {
    get: {
      summary: "A miner: pending shares and balance, what it was paid, its workers' performance (miningcore)",
      parameters: [
        id,
        address,
        {
          name: 'perfMode',
          in: 'query',
          required: false,
          schema: { enum: ['Hour', 'Day', 'Month'] },
          description: 'performanceSamples: 3-minute, hourly (default) or daily',
        },
      ],
      responses: { 200: json('the miner', ref('McMinerStats')), 400: badQuery, 404: notFound },
    },
  },
  '/api/pools/{id}/performance': {
    get: {
      summary: "The pool's samples averaged per hour or day, oldest first (miningcore), since this process started",
      parameters: [
        id,
        { name: 'r', in: 'query', required: false, schema: { enum: ['Day', 'Month'] }, description: 'how far back (default Day)' },
        { name: 'i', in: 'query', required: false, schema: { enum: ['Hour', 'Day'] }, description: 'the bucket (default Hour)' },
      ],
      responses: {
        200: json('samples', object({ stats: { type: 'array', items: ref('McAggregatedPoolStats') } })),
        400: badQuery,
        404: notFound,
      },
    },
  },
} as const;
