/** The OpenAPI 3.1 description of the bridge's HTTP API, served at /openapi.json. */
const error = { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const stage = {
  type: 'string',
  enum: ['awaiting_prompt', 'queued', 'assigned', 'received', 'committed', 'revealed', 'published', 'claimed', 'paid', 'lost', 'expired'],
};

export const OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'cs-bridge HTTP API', version: '0.1.0', description: 'OPoI prompt intake and the state of the bridge (docs/bridge.md).' },
  components: {
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-opoi-api-key' } },
    schemas: {
      Error: error,
      Pending: {
        type: 'object',
        properties: {
          request_id: { type: 'string', format: 'uuid' },
          model: { type: 'string' },
          max_tokens: { type: 'integer' },
          payment: { type: 'number', description: 'coins' },
          has_prompt: { type: 'boolean' },
          assigned_to: { type: ['string', 'null'], description: '<wallet>.<worker> of the miner working on it' },
          stage,
        },
      },
      Health: {
        type: 'object',
        properties: {
          status: { enum: ['ok', 'degraded'] },
          opoi_address: { type: 'string', description: "the bridge's staked OPoI address: name it as the REQUEST's executor" },
          stake: { enum: ['unknown', 'active', 'pending', 'no-stake', 'inactive', 'node-error'] },
          node_height: { type: 'integer' },
          last_error: { type: ['string', 'null'] },
          miners: { type: 'integer' },
          opoi_miners: { type: 'integer' },
        },
      },
      Submission: {
        type: 'object',
        properties: {
          request_id: { type: 'string', format: 'uuid' },
          stage,
          note: { type: ['string', 'null'] },
          submission_id: { type: ['integer', 'null'] },
          miner: { type: ['string', 'null'] },
          response_hash: { type: ['string', 'null'] },
          token_count: { type: ['integer', 'null'] },
          commit_txid: { type: ['string', 'null'] },
          reveal_txid: { type: ['string', 'null'] },
          payout_txid: { type: ['string', 'null'] },
          miner_share: { type: ['number', 'null'], description: "coins credited to the miner's wallet" },
          response_hex: { type: ['string', 'null'] },
        },
      },
    },
  },
  paths: {
    '/svc/opoi/prompt': {
      post: {
        summary: 'Hand over the plaintext prompt of a REQUEST broadcast on chain',
        security: [{ apiKey: [] }],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['request_id', 'prompt'],
                properties: { request_id: { type: 'string', format: 'uuid' }, prompt: { type: 'string' } },
              },
            },
          },
        },
        responses: {
          200: { description: 'accepted (again: idempotent)' },
          400: errorResponse('malformed body, or the SHA-256 of prompt is not the on-chain prompt hash'),
          401: errorResponse('missing or wrong x-opoi-api-key'),
          404: errorResponse('request_id not found on-chain: the REQUEST is unconfirmed; retry the same call after a block'),
          409: errorResponse('the request is no longer PENDING'),
          413: errorResponse('prompt larger than MAX_PROMPT_BYTES'),
          429: errorResponse('more than PROMPT_RATE_LIMIT calls this minute from this address'),
        },
      },
    },
    '/svc/opoi/pending': {
      get: {
        summary: 'The in-flight queue',
        responses: {
          200: {
            description: 'requests not finished',
            content: { 'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Pending' } } } },
          },
        },
      },
    },
    '/svc/opoi/submissions/{request_id}': {
      get: {
        summary: "A request's submission and its chain steps",
        parameters: [{ name: 'request_id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
        responses: {
          200: { description: 'the submission', content: { 'application/json': { schema: { $ref: '#/components/schemas/Submission' } } } },
          404: errorResponse('request_id not known to this bridge'),
        },
      },
    },
    '/healthz': {
      get: {
        summary: 'ok when the node answers and the stake is ACTIVE',
        responses: {
          200: { description: 'ok', content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } } },
          503: { description: 'degraded', content: { 'application/json': { schema: { $ref: '#/components/schemas/Health' } } } },
        },
      },
    },
    '/metrics': { get: { summary: 'Prometheus text format', responses: { 200: { description: 'metrics' } } } },
    '/openapi.json': { get: { summary: 'this document', responses: { 200: { description: 'OpenAPI 3.1' } } } },
  },
} as const;
