/** The OpenAPI 3.1 description of the bridge's HTTP API, served at /openapi.json. */
import { AUDIT_STAGES, STAGES } from '../store/records.ts';
const error = { type: 'object', properties: { error: { type: 'string' } }, required: ['error'] };
const errorResponse = (description: string) => ({ description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } });
const stage = { type: 'string', enum: STAGES };
const auditStage = { type: 'string', enum: AUDIT_STAGES };
const taskType = { enum: ['OPEN', 'VERIFIABLE'] };
const txid = { type: ['string', 'null'] };
const check = {
  type: ['object', 'null'],
  description: "a VERIFIABLE answer's check by a second miner before the COMMIT (null: not checked yet, or OPEN)",
  properties: {
    miner: { type: ['string', 'null'], description: '<wallet>.<worker> of the checking miner (null when unchecked)' },
    verdict: { enum: ['valid', 'unchecked', null], description: 'null while checking; unchecked: no second miner held the file' },
  },
};

export const OPENAPI = {
  openapi: '3.1.0',
  info: { title: 'cs-bridge HTTP API', version: '0.1.0', description: 'OPoI prompt intake and the state of the bridge (docs/bridge.md).' },
  components: {
    securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-opoi-api-key' } },
    schemas: {
      Error: error,
      PendingRequest: {
        type: 'object',
        required: ['kind', 'request_id', 'stage'],
        properties: {
          kind: { const: 'request' },
          request_id: { type: 'string', format: 'uuid' },
          task_type: taskType,
          model: { type: 'string', description: 'the model name, or the manifest id of a VERIFIABLE request' },
          max_tokens: { type: 'integer' },
          payment: { type: 'number', description: 'coins' },
          has_prompt: { type: 'boolean' },
          assigned_to: { type: ['string', 'null'], description: '<wallet>.<worker> of the miner working on it' },
          stage,
          check,
        },
      },
      PendingAudit: {
        type: 'object',
        description: "an audit the bridge's OPoI address was drawn for",
        required: ['kind', 'request_id', 'stage'],
        properties: {
          kind: { const: 'audit' },
          request_id: { type: 'string', format: 'uuid' },
          task_type: { const: 'VERIFIABLE' },
          model: { type: 'string', description: 'the manifest id the answer is replayed with' },
          max_tokens: { type: 'integer' },
          token_count: { type: 'integer', description: 'token ids of the published answer' },
          assigned_to: { type: ['string', 'null'], description: '<wallet>.<worker> of the miner replaying it, or whose verdict is committed' },
          stage: auditStage,
          verdict: { enum: ['valid', 'invalid', null] },
          commit_txid: txid,
          reveal_txid: txid,
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
          task_type: taskType,
          miner: { type: ['string', 'null'] },
          response_hash: {
            type: ['string', 'null'],
            description: 'what the COMMIT binds: SHA-256 of the text (OPEN), verifiableResponseHash (VERIFIABLE)',
          },
          token_count: { type: ['integer', 'null'] },
          token_ids: { type: ['array', 'null'], items: { type: 'integer' }, description: "a VERIFIABLE answer's token ids" },
          check,
          commit_txid: txid,
          reveal_txid: txid,
          publish_txid: { type: ['string', 'null'], description: 'the PUBLISH of a VERIFIABLE answer' },
          payout_txid: txid,
          miner_share: { type: ['number', 'null'], description: "coins credited to the miner's wallet" },
          check_share: { type: ['number', 'null'], description: "coins credited to the checking miner's wallet" },
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
          409: errorResponse(
            "the request is no longer PENDING, names another executor, or is VERIFIABLE under a manifest the bridge's stake does not serve",
          ),
          413: errorResponse('prompt larger than MAX_PROMPT_BYTES'),
          429: errorResponse('more than PROMPT_RATE_LIMIT calls this minute from this address'),
        },
      },
    },
    '/svc/opoi/pending': {
      get: {
        summary: 'The in-flight queue: requests, then audits the bridge was drawn for',
        responses: {
          200: {
            description: 'requests and audits not finished',
            content: {
              'application/json': {
                schema: {
                  type: 'array',
                  items: { oneOf: [{ $ref: '#/components/schemas/PendingRequest' }, { $ref: '#/components/schemas/PendingAudit' }] },
                },
              },
            },
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
