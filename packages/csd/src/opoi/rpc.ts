/**
 * The Opoi category: the proof-of-inference lifecycle over JSON-RPC, with the reference node's
 * method names and positional orders. Reads need only the chain; the actions are wallet sends
 * (opoi/wallet-actions.ts), so they exist only with a wallet. Arguments are checked before
 * anything is signed (-5 address, -6 funds, -8 parameter, naming the field); what only the chain
 * can decide (windows, stakes, duplicates) comes back as -26 with the rule's bad-opoi-* reason.
 */
import { randomBytes } from 'node:crypto';
import {
  type Actor,
  DecodeError,
  OpoiKind,
  type RequestRecord,
  TASK_OPEN,
  actorKey,
  commitmentHash,
  escrowAmount,
  fromHex,
  isValidModelName,
  minimumPaymentFloor,
  requestIdHexFromUuid,
  stakeStatus,
  toHex,
} from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import type { OpoiContext } from './context.ts';
import { RpcError, RpcErrorCode } from '../rpc/errors.ts';
import type { JsonValue } from '../format/json-value.ts';
import { broadcastError } from '../rpc/methods/rawtransactions/submit.ts';
import type { RpcRegistry } from '../rpc/registry.ts';
import { parseAddress, walletCall, walletOf } from '../wallet/rpc/common.ts';
import type { SendOutcome } from '../wallet/send.ts';
import { ContentError } from './content.ts';
import { actorAddress, nodeRequestToJson, pendingPayout, responseToJson, stakeToJson, uuidOf } from './json.ts';
import { actorOf, sendMinerAction, sendPayout, sendRequest, sendStake } from './wallet-actions.ts';

const EXAMPLE_UUID = '0b4f6a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5b';
const EXAMPLE_HASH = 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9';
const EXAMPLE_MINER = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';
const REQUEST_STATUSES = ['PENDING', 'FULFILLED', 'EXPIRED'];
const STAKE_STATUSES = ['ACTIVE', 'SUSPENDED', 'UNSTAKING', 'UNSTAKED'];
const HEX64 = /^[0-9a-f]{64}$/;

// The results in Core's RPCResult layout, one field per line (docs/api/rpc-methods.json and
// @cs/client's types are generated from them); fields follow opoi/json.ts.
const COMMIT_FIELDS = [
  '"request_id" : "str",           (string) The request id (a UUID)',
  '"miner" : "str",                (string) The committing miner address',
  '"commitment" : "hex",           (string) The commitment',
  '"commit_txid" : "hex",          (string) The COMMIT transaction',
  '"commit_height" : n,            (numeric) Its block height',
  '"revealed" : true|false,        (boolean) Whether the miner revealed',
  '"response_hash" : "hex",        (string, optional) The revealed response hash (once revealed)',
  '"token_count" : n,              (numeric, optional) The revealed token count (once revealed)',
  '"reveal_txid" : "hex",          (string, optional) The REVEAL transaction (once revealed)',
  '"reveal_height" : n,            (numeric, optional) Its block height (once revealed)',
  '"winner" : true|false           (boolean) Whether this commit won the request',
];
const REQUEST_FIELDS = [
  '"request_id" : "str",                       (string) The request id (a UUID)',
  '"status" : "str",                           (string) PENDING, FULFILLED or EXPIRED',
  '"requester" : "str",                        (string) The requester address',
  '"model" : "str",                            (string) The model name',
  '"prompt_hash" : "hex",                      (string) SHA-256 of the prompt',
  '"max_tokens" : n,                           (numeric) The most tokens the answer may have',
  '"payment" : n,                              (numeric) The payment in coins',
  '"fee_per_token" : n,                        (numeric) The per-token fee in coins',
  '"task_type" : "str",                        (string) OPEN',
  '"task_class" : "str",                       (string) The requester\'s label',
  '"prompt_token_count" : n,                   (numeric) Declared prompt tokens',
  '"block_height" : n,                         (numeric) Height of the REQUEST\'s block',
  '"block_hash" : "hex",                       (string or null) Its hash (null off the active chain)',
  '"confirmations" : n,                        (numeric) Confirmations of the REQUEST',
  '"tx_hash" : "hex",                          (string) The REQUEST transaction',
  '"escrow" : {                                (json object) The escrow output',
  '  "txid" : "hex",                           (string) The REQUEST transaction',
  '  "vout" : n,                               (numeric) Always 0',
  '  "amount" : n                              (numeric) The escrow in coins',
  '},',
  '"commit_window_opens_at_height" : n,        (numeric) The first height a COMMIT may have',
  '"commit_window_closes_at_height" : n,       (numeric or null) The last (null until the first COMMIT)',
  '"commit_window_closed" : true|false,        (boolean) Whether the tip is past it',
  '"reveal_deadline_height" : n,               (numeric or null) The last height a REVEAL may have (null until the first COMMIT)',
  '"expires_at_height" : n,                    (numeric or null) When the request expires without a COMMIT (null once committed)',
  '"response_commits" : n,                     (numeric) The number of COMMITs',
  '"response_reveals" : n,                     (numeric) The number of REVEALs',
  '"commits" : [                               (json array) The commits',
  '  {                                         (json object)',
  ...COMMIT_FIELDS.map((l) => `    ${l}`),
  '  },',
  '  ...',
  '],',
  '"resolved_height" : n,                      (numeric or null) The height it resolved at',
  '"winner" : "str",                           (string or null) The winning miner address',
  '"winner_token_count" : n,                   (numeric or null) The winner\'s token count',
  '"winner_amount" : n,                        (numeric or null) What the winner is paid, in coins (FULFILLED)',
  '"refund_amount" : n,                        (numeric or null) What returns to the requester, in coins (once resolved)',
  '"payout_status" : "str",                    (string) none, claimable, pending or confirmed',
  '"payout_txid" : "hex",                      (string or null) The payout transaction (pending or confirmed)',
  '"payout_height" : n                         (numeric or null) Its block height (confirmed)',
];
const STAKE_FIELDS = [
  '"miner_address" : "str",        (string) The staked address',
  '"status" : "str",               (string) ACTIVE, SUSPENDED, UNSTAKING or UNSTAKED (for the next block)',
  '"collateral_txid" : "hex",      (string) The STAKE transaction',
  '"collateral_vout" : n,          (numeric) The collateral output (0)',
  '"amount" : n,                   (numeric) The collateral in coins',
  '"model_id" : "str",             (string) The model the miner serves',
  '"endpoint" : "str",             (string) Where the miner can be reached',
  '"txid" : "hex",                 (string) The STAKE transaction',
  '"height" : n,                   (numeric) Its block height',
  '"renewed_height" : n,           (numeric) The last STAKE or RENEW height',
  '"renew_by_height" : n,          (numeric) The height by which a RENEW keeps it ACTIVE',
  '"unstake_height" : n,           (numeric or null) The UNSTAKE height',
  '"unlock_height" : n             (numeric or null) When the collateral can be spent after UNSTAKE',
];

/** A Core-style object result from field lines: `{`, the fields indented, `}`. */
function objectResult(fields: readonly string[], indent = ''): string[] {
  return [`${indent}{                              (json object)`, ...fields.map((l) => `${indent}  ${l}`), `${indent}}`];
}

/** A Core-style array-of-objects result. */
function arrayResult(fields: readonly string[]): string {
  return [
    '[                                (json array)',
    ...objectResult(fields, '  ').map((l, i, all) => (i === all.length - 1 ? `${l},` : l)),
    '  ...',
    ']',
  ].join('\n');
}

/** Field lines of a flat result object, `"name" : value, (type) description`. */
function fields(...lines: string[]): string {
  return objectResult(lines.map((l, i) => (i === lines.length - 1 ? l : l.replace(/^("[^"]*" : \S+?)(\s)/, '$1,$2')))).join('\n');
}

function invalid(message: string): RpcError {
  return new RpcError(RpcErrorCode.INVALID_PARAMETER, message);
}

/** 32 hex digits of a UUID argument, or -8 naming the field. */
function parseRequestId(value: string): string {
  try {
    return requestIdHexFromUuid(value);
  } catch (e) {
    if (e instanceof DecodeError) throw invalid(`request_id must be a UUID (8-4-4-4-12 hex digits), not '${value}'`);
    throw e;
  }
}

/** A SHA-256 in lower-case hex, or -8 naming the field. */
function parseHash(value: string, name: string): Uint8Array {
  if (!HEX64.test(value)) throw invalid(`${name} must be 64 lower-case hex digits (a SHA-256)`);
  return fromHex(value);
}

function confirmedRequest(ctx: OpoiContext, id: string): RequestRecord {
  const r = ctx.chain.opoi.request(id);
  if (!r) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'OPoI request not found on-chain (unknown, or its REQUEST is unconfirmed)');
  return r;
}

/** The txid of a send, or the mempool's refusal as -26 with the rule's reason. */
function sent(outcome: SendOutcome): string {
  if (outcome.kind === 'rejected') throw broadcastError(outcome.failure);
  return outcome.txid;
}

export function registerOpoiMethods(registry: RpcRegistry, ctx: OpoiContext): void {
  const { chain, params } = ctx;
  const p = params.opoi;

  /** The actor of an address argument (-5 for a bad or non-key-hash address). */
  const actorArg = (address: string, name: string): Actor => {
    const script = parseAddress(ctx, address);
    try {
      return actorOf(script, name);
    } catch {
      throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `${name} must be a P2WPKH or P2PKH address`);
    }
  };

  registry.register({
    name: 'getopoirequest',
    category: 'Opoi',
    description:
      'Returns the on-chain state of an OPoI request: its fields, windows, commits and reveals, outcome and payout.\n' +
      'Fails with -5 while the REQUEST transaction is unconfirmed.',
    params: [{ name: 'request_id', type: 'string', description: 'The request id (a UUID)' }],
    result: objectResult(REQUEST_FIELDS).join('\n'),
    examples: [{ args: [EXAMPLE_UUID] }],
    handler: async ([requestId]) => nodeRequestToJson(confirmedRequest(ctx, parseRequestId(requestId)), ctx),
  });

  registry.register({
    name: 'listopoirequests',
    category: 'Opoi',
    description: 'Lists the OPoI requests on the active chain, oldest first, optionally only those with one status.',
    params: [{ name: 'status', type: 'string', optional: true, description: 'PENDING, FULFILLED or EXPIRED' }],
    result: arrayResult(REQUEST_FIELDS),
    examples: [{ args: [] }, { args: ['PENDING'] }],
    handler: async ([status]) => {
      if (status !== undefined && !REQUEST_STATUSES.includes(status)) throw invalid(`status must be one of ${REQUEST_STATUSES.join(', ')}`);
      const list = [...chain.opoi.requests()].filter((r) => status === undefined || r.status === status);
      return list.sort((a, b) => a.height - b.height || (a.id < b.id ? -1 : 1)).map((r) => nodeRequestToJson(r, ctx));
    },
  });

  registry.register({
    name: 'listopoiresponses',
    category: 'Opoi',
    description: 'Lists the response commits (with their reveals) of one request, or of every request.',
    params: [{ name: 'request_id', type: 'string', optional: true, description: 'Only this request (a UUID)' }],
    result: arrayResult(COMMIT_FIELDS),
    examples: [{ args: [EXAMPLE_UUID] }],
    handler: async ([requestId]) => {
      const ids = requestId === undefined ? [...chain.opoi.requests()].map((r) => r.id) : [confirmedRequest(ctx, parseRequestId(requestId)).id];
      return ids.flatMap((id) => {
        const r = chain.opoi.request(id)!;
        return chain.opoi.commitsOf(id).map((c) => responseToJson(c, r, params));
      });
    },
  });

  registry.register({
    name: 'getopoistats',
    category: 'Opoi',
    description:
      'Returns counts of OPoI requests, stakes, commits and reveals on the active chain, the coins held in escrow, the\n' +
      "network's OPoI parameters, and a digest of the whole OPoI state (equal digests: equal state).",
    params: [],
    result: '{ "height", "requests": {...}, "stakes": {...}, "commits", "reveals", "escrow_locked", "params": {...}, "state_digest" }',
    examples: [{ args: [] }],
    handler: async () => {
      const requests = { total: 0, PENDING: 0, FULFILLED: 0, EXPIRED: 0, paid: 0 };
      let escrow = 0n;
      let commits = 0;
      let reveals = 0;
      for (const r of chain.opoi.requests()) {
        requests.total++;
        requests[r.status]++;
        commits += r.commits;
        reveals += r.reveals;
        if (r.payoutTxid !== null) requests.paid++;
        else escrow += r.escrowValue;
      }
      const stakes: Record<string, number> = { total: 0, ACTIVE: 0, SUSPENDED: 0, UNSTAKING: 0, UNSTAKED: 0 };
      for (const s of chain.opoi.stakes()) {
        stakes.total++;
        stakes[stakeStatus(s, chain.height + 1, p)]++;
      }
      return {
        height: chain.height,
        requests: {
          total: requests.total,
          pending: requests.PENDING,
          fulfilled: requests.FULFILLED,
          expired: requests.EXPIRED,
          paid: requests.paid,
        },
        stakes: { total: stakes.total, active: stakes.ACTIVE, suspended: stakes.SUSPENDED, unstaking: stakes.UNSTAKING, unstaked: stakes.UNSTAKED },
        commits,
        reveals,
        escrow_locked: amountToJson(escrow),
        params: {
          min_stake: amountToJson(p.minStake),
          fee_base: amountToJson(p.feeBase),
          fee_per_prompt_token: amountToJson(p.feePerPromptToken),
          request_expiry: p.requestExpiry,
          commit_window: p.commitWindow,
          reveal_window: p.revealWindow,
          stake_renewal: p.stakeRenewal,
          unstake_cooldown: p.unstakeCooldown,
          max_commits: p.maxCommits,
          max_tokens: p.maxTokens,
        },
        state_digest: chain.opoi.digest(),
      };
    },
  });

  registry.register({
    name: 'getopoistake',
    category: 'Opoi',
    description: 'Returns the stake of a miner address, with its status for the next block.',
    params: [{ name: 'miner_address', type: 'string', description: 'The staking address' }],
    result: objectResult(STAKE_FIELDS).join('\n'),
    examples: [{ args: [EXAMPLE_MINER] }],
    handler: async ([address]) => {
      const s = chain.opoi.stake(actorKey(actorArg(address, 'miner_address')));
      if (!s) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'miner_address has no stake');
      return stakeToJson(s, chain.height, params);
    },
  });

  registry.register({
    name: 'listopoistakes',
    category: 'Opoi',
    description: 'Lists the stakes on the active chain, optionally only those with one status.',
    params: [{ name: 'status', type: 'string', optional: true, description: STAKE_STATUSES.join(', ') }],
    result: arrayResult(STAKE_FIELDS),
    examples: [{ args: ['ACTIVE'] }],
    handler: async ([status]) => {
      if (status !== undefined && !STAKE_STATUSES.includes(status)) throw invalid(`status must be one of ${STAKE_STATUSES.join(', ')}`);
      return [...chain.opoi.stakes()].map((s) => stakeToJson(s, chain.height, params)).filter((s) => status === undefined || s.status === status);
    },
  });

  registry.register({
    name: 'getopoicontent',
    category: 'Opoi',
    description:
      "Returns published response content of a request: the winner's once the request is resolved, else the first\n" +
      'revealed response whose content was published ("final": false).',
    params: [
      { name: 'request_id', type: 'string', description: 'The request id (a UUID)' },
      { name: 'kind', type: 'string', default: 'RESPONSE', description: 'RESPONSE (the only kind stored)' },
    ],
    result: fields(
      '"request_id" : "str"   (string) The request id',
      '"kind" : "str"         (string) RESPONSE',
      '"response_hash" : "hex"   (string) SHA-256 of the content',
      '"miner" : "str"        (string) The miner that revealed it',
      '"final" : true|false   (boolean) Whether it is the winner\'s (the request is resolved)',
      '"content_hex" : "hex"  (string) The content',
    ),
    examples: [{ args: [EXAMPLE_UUID, 'RESPONSE'] }],
    handler: async ([requestId, kind]) => {
      if (kind !== 'RESPONSE') throw invalid('kind must be RESPONSE');
      const id = confirmedRequest(ctx, parseRequestId(requestId)).id;
      const found = ctx.opoiContent.get(id);
      if (!found) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'No response content published for this request');
      return {
        request_id: uuidOf(id),
        kind,
        response_hash: found.responseHash,
        miner: actorAddress(found.miner, params),
        final: found.final,
        content_hex: found.content.toString('hex'),
      };
    },
  });

  registry.register({
    name: 'submitopoicontent',
    category: 'Opoi',
    description:
      'Publishes the content of a revealed response: stored (and relayed to peers) only when its SHA-256 is a response\n' +
      'hash revealed on-chain for the request. Publishing the same content again is harmless.',
    params: [
      { name: 'request_id', type: 'string', description: 'The request id (a UUID)' },
      { name: 'kind', type: 'string', description: 'RESPONSE' },
      { name: 'content_hex', type: 'hex', description: 'The response bytes, hex (at most 256 KiB)' },
    ],
    result: fields(
      '"request_id" : "str"      (string) The request id',
      '"response_hash" : "hex"   (string) SHA-256 of the content',
      '"miner" : "str"           (string) The miner that revealed it',
      '"bytes" : n               (numeric) The content size',
      '"stored" : true|false     (boolean) Always true (a refusal is an error)',
    ),
    examples: [{ args: [EXAMPLE_UUID, 'RESPONSE', '48656c6c6f'] }],
    handler: async ([requestId, kind, contentHex]) => {
      if (kind !== 'RESPONSE') throw invalid('kind must be RESPONSE');
      const id = parseRequestId(requestId);
      try {
        const c = ctx.opoiContent.publish(id, fromHex(contentHex));
        return { request_id: uuidOf(id), response_hash: c.responseHash, miner: actorAddress(c.miner, params), bytes: c.bytes, stored: true };
      } catch (e) {
        if (e instanceof ContentError) throw invalid(e.message);
        throw e;
      }
    },
  });

  registry.register({
    name: 'getmodelmanifest',
    category: 'Opoi',
    description: 'Returns a registered model manifest. No manifests are registered on this chain: plain model names are OPEN tasks.',
    params: [{ name: 'model_id', type: 'string', description: 'The model name' }],
    result: '{ ... }    (json object) The manifest',
    examples: [{ args: ['llama3.2:1b'] }],
    handler: async ([model]) => {
      throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `model manifest not found: '${model}' is a plain model name (OPEN task)`);
    },
  });

  if (ctx.wallet) registerOpoiWalletMethods(registry, ctx, actorArg);
}

function registerOpoiWalletMethods(registry: RpcRegistry, ctx: OpoiContext, actorArg: (address: string, name: string) => Actor): void {
  const { chain, params } = ctx;
  const p = params.opoi;

  /** The actor of an address whose key the wallet holds (-5 otherwise). */
  const ownActor = (ctxWallet: ReturnType<typeof walletOf>, address: string, name: string): Actor => {
    const actor = actorArg(address, name);
    if (!ctxWallet.keyring.keyForHash(actor.hash))
      throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `${name} is not an address of this wallet`);
    return actor;
  };

  registry.register({
    name: 'submitopoirequest',
    category: 'Opoi',
    description:
      "Broadcasts an OPoI REQUEST paid by the requester address's own coins: an escrow of payment + max_tokens ×\n" +
      'fee_per_token is locked until a staked miner is paid for the answer (the rest returns to the requester) or the\n' +
      'request expires (all of it returns). Only the prompt hash goes on-chain; send the prompt to a bridge.',
    params: [
      { name: 'request_id', type: 'string', description: 'A new UUID chosen by the requester' },
      { name: 'model', type: 'string', description: 'A plain model name (OPEN task)' },
      { name: 'prompt_hash', type: 'string', description: 'SHA-256 of the prompt text, 64 lower-case hex digits' },
      { name: 'max_tokens', type: 'integer', description: 'The most tokens the answer may have' },
      { name: 'payment', type: 'amount', description: 'What the winning miner is paid besides the per-token fee, in coins' },
      { name: 'requester_address', type: 'string', description: 'The wallet address that pays, and gets the rest back' },
      { name: 'fee_per_token', type: 'amount', default: 0, description: 'Paid to the winner per generated token, in coins' },
      { name: 'task_type', type: 'string', default: 'OPEN', description: 'OPEN (VERIFIABLE needs a model manifest)' },
      { name: 'prompt_token_count', type: 'integer', default: 0, description: 'Declared prompt tokens; each raises the minimum payment' },
      { name: 'task_class', type: 'string', default: '', description: 'A free label for bridges (at most 32 characters)' },
    ],
    result: fields(
      '"txid" : "hex"            (string) The REQUEST transaction',
      '"request_id" : "str"      (string) The request id',
      '"escrow_amount" : n       (numeric) The escrow locked, in coins',
      '"prompt_hash" : "hex"     (string) The prompt hash',
    ),
    examples: [{ args: [EXAMPLE_UUID, 'llama3.2:1b', EXAMPLE_HASH, 256, 0.01, EXAMPLE_MINER] }],
    handler: async ([requestId, model, promptHash, maxTokens, payment, address, feePerToken, taskType, promptTokens, taskClass], call) => {
      const wallet = walletOf(ctx, call);
      const id = parseRequestId(requestId);
      if (!isValidModelName(model)) throw invalid('model must be a plain name of at most 64 characters: letters, digits and ._:/+-');
      const hash = parseHash(promptHash, 'prompt_hash');
      if (maxTokens < 1 || maxTokens > p.maxTokens) throw invalid(`max_tokens must be between 1 and ${p.maxTokens}`);
      if (taskType !== 'OPEN')
        throw invalid(taskType === 'VERIFIABLE' ? 'task_type VERIFIABLE needs a registered model manifest' : 'task_type must be OPEN');
      if (promptTokens < 0 || promptTokens > 0xffffffff) throw invalid('prompt_token_count out of range');
      if (taskClass.length > 32 || !/^[\x20-\x7e]*$/.test(taskClass)) throw invalid('task_class must be at most 32 printable characters');
      const floor = minimumPaymentFloor(p.feeBase, p.feePerPromptToken, promptTokens);
      if (payment <= floor) throw invalid(`payment must exceed ${amountToJson(floor)} (nOPoIFeeBase plus the prompt-token fee)`);
      if (chain.opoi.request(id)) throw invalid('request_id already exists on-chain');
      const requester = ownActor(wallet, address, 'requester_address');
      const escrow = escrowAmount(payment, feePerToken, maxTokens);
      const payload = {
        kind: OpoiKind.REQUEST,
        requestId: Buffer.from(id, 'hex'),
        requester,
        promptHash: hash,
        maxTokens,
        payment,
        feePerToken,
        promptTokenCount: promptTokens,
        taskType: TASK_OPEN,
        model,
        taskClass,
      } as const;
      const txid = await walletCall(() => sent(sendRequest(wallet, payload, escrow)));
      return { txid, request_id: uuidOf(id), escrow_amount: amountToJson(escrow), prompt_hash: promptHash };
    },
  });

  registry.register({
    name: 'stakeopoi',
    category: 'Opoi',
    description:
      "Stakes a miner address: spends the chosen coin of that address, locking the network's minimum stake as\n" +
      'collateral (output 0 of the STAKE transaction) and returning the rest to the address to pay for its OPoI\n' +
      'transactions. The collateral stays unspendable until unstakeopoi and the cooldown after it.',
    params: [
      { name: 'miner_address', type: 'string', description: 'The staking address (its key must be in this wallet)' },
      { name: 'collateral_txid', type: 'string', description: 'The coin of miner_address to stake from' },
      { name: 'collateral_vout', type: 'integer', description: 'Its output index' },
      { name: 'model_id', type: 'string', default: '', description: 'The model the miner serves (informative)' },
      { name: 'endpoint', type: 'string', default: '', description: 'Where the miner can be reached (informative)' },
    ],
    result: fields(
      '"txid" : "hex"            (string) The STAKE transaction',
      '"miner_address" : "str"   (string) The staked address',
      '"collateral_txid" : "hex" (string) The STAKE transaction (its output 0 is the collateral)',
      '"collateral_vout" : n     (numeric) 0',
      '"amount" : n              (numeric) The collateral, in coins',
    ),
    examples: [{ args: [EXAMPLE_MINER, EXAMPLE_HASH, 0] }],
    handler: async ([address, collateralTxid, collateralVout, modelId, endpoint], call) => {
      const wallet = walletOf(ctx, call);
      const miner = ownActor(wallet, address, 'miner_address');
      parseHash(collateralTxid, 'collateral_txid');
      if (collateralVout < 0) throw invalid('collateral_vout must not be negative');
      for (const [text, name] of [
        [modelId, 'model_id'],
        [endpoint, 'endpoint'],
      ]) {
        if (text.length > 128 || !/^[\x20-\x7e]*$/.test(text)) throw invalid(`${name} must be at most 128 printable characters`);
      }
      const existing = chain.opoi.stake(actorKey(miner));
      if (existing) throw invalid(`miner_address already has a stake (${stakeStatus(existing, chain.height + 1, p)})`);
      const payload = { kind: OpoiKind.STAKE, miner, modelId, endpoint } as const;
      const txid = await walletCall(() => sent(sendStake(wallet, payload, { txid: collateralTxid, vout: collateralVout }, p.minStake)));
      return { txid, miner_address: address, collateral_txid: txid, collateral_vout: 0, amount: amountToJson(p.minStake) };
    },
  });

  for (const [name, kind, what] of [
    ['renewopoistake', OpoiKind.RENEW, 'Renews the stake of a miner address, keeping it ACTIVE (or making a SUSPENDED one ACTIVE again).'],
    ['unstakeopoi', OpoiKind.UNSTAKE, 'Ends the stake of a miner address: the collateral can be spent once the unstake cooldown has passed.'],
  ] as const) {
    registry.register({
      name,
      category: 'Opoi',
      description: what,
      params: [{ name: 'miner_address', type: 'string', description: 'The staking address' }],
      result: fields(
        '"txid" : "hex"            (string) The transaction',
        '"miner_address" : "str"   (string) The staked address',
        '"unlock_height" : n       (numeric or null) When the collateral can be spent (unstakeopoi; null for renewopoistake)',
      ),
      examples: [{ args: [EXAMPLE_MINER] }],
      handler: async ([address], call) => {
        const wallet = walletOf(ctx, call);
        const miner = ownActor(wallet, address, 'miner_address');
        const s = chain.opoi.stake(actorKey(miner));
        if (!s) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'miner_address has no stake');
        if (s.unstakeHeight !== null) throw invalid(`miner_address unstaked at height ${s.unstakeHeight}`);
        const txid = await walletCall(() => sent(sendMinerAction(wallet, { kind, miner })));
        return { txid, miner_address: address, unlock_height: kind === OpoiKind.UNSTAKE ? chain.height + 1 + p.unstakeCooldown : null };
      },
    });
  }

  /** The common checks of commit and reveal: a pending confirmed request, a staked miner of this wallet. */
  const responseArgs = (call: Parameters<typeof walletOf>[1], requestId: string, responseHash: string, address: string) => {
    const wallet = walletOf(ctx, call);
    const r = confirmedRequest(ctx, parseRequestId(requestId));
    if (r.status !== 'PENDING') throw invalid(`request is ${r.status}`);
    const hash = parseHash(responseHash, 'response_hash');
    const miner = ownActor(wallet, address, 'miner_address');
    const stake = chain.opoi.stake(actorKey(miner));
    const status = stake ? stakeStatus(stake, chain.height + 1, p) : 'not staked';
    if (status !== 'ACTIVE') throw invalid(`miner_address has no ACTIVE stake (${status})`);
    return { wallet, r, hash, miner, requestIdBytes: Buffer.from(r.id, 'hex') };
  };

  /** The salt argument (32 bytes hex), -8 otherwise. */
  const parseNonce = (nonce: string): Uint8Array => parseHash(nonce.toLowerCase(), 'nonce');

  registry.register({
    name: 'submitopoiresponsecommit',
    category: 'Opoi',
    description:
      'Broadcasts a COMMIT of a staked miner to a response: the commitment hides the response hash, token count and a\n' +
      'random nonce until the REVEAL. Keep nonce_hex: submitopoiresponse needs it after the commit window closes.\n' +
      'Give token_count (the commitment is computed, with a new nonce unless given) or a commitment made elsewhere.',
    params: [
      { name: 'request_id', type: 'string', description: 'The request (a UUID)' },
      { name: 'response_hash', type: 'string', description: 'SHA-256 of the response bytes, 64 lower-case hex digits' },
      { name: 'miner_address', type: 'string', description: 'The staked address of this wallet that answers' },
      { name: 'commitment', type: 'string', optional: true, description: 'A commitment computed by the caller (hex)' },
      { name: 'token_count', type: 'integer', optional: true, description: 'Tokens in the response (at most max_tokens)' },
      { name: 'nonce', type: 'string', optional: true, description: '32 bytes of salt, hex (random when omitted)' },
    ],
    result: fields(
      '"txid" : "hex"                        (string) The COMMIT transaction',
      '"request_id" : "str"                  (string) The request id',
      '"nonce_hex" : "hex"                   (string) The nonce to reveal with (keep it)',
      '"commitment" : "hex"                  (string) The commitment to reveal with',
      '"commit_window_closes_at_height" : n  (numeric) The last height a COMMIT may have',
    ),
    examples: [{ args: [EXAMPLE_UUID, EXAMPLE_HASH, EXAMPLE_MINER, null, 42] }],
    handler: async ([requestId, responseHash, address, commitmentArg, tokenCount, nonceArg], call) => {
      const { wallet, r, hash, miner, requestIdBytes } = responseArgs(call, requestId, responseHash, address);
      if (tokenCount !== undefined && (tokenCount < 0 || tokenCount > r.maxTokens))
        throw invalid(`token_count must be between 0 and max_tokens (${r.maxTokens})`);
      const nonce = nonceArg === undefined ? randomBytes(32) : parseNonce(nonceArg);
      let commitment: Uint8Array;
      if (tokenCount !== undefined) {
        commitment = commitmentHash(requestIdBytes, miner, hash, tokenCount, nonce);
        if (commitmentArg !== undefined && commitmentArg.toLowerCase() !== toHex(commitment)) {
          throw invalid('commitment does not match response_hash, token_count, nonce and miner_address');
        }
      } else if (commitmentArg !== undefined) {
        commitment = parseHash(commitmentArg.toLowerCase(), 'commitment');
      } else {
        throw invalid('token_count is required to compute the commitment (or pass a commitment)');
      }
      const txid = await walletCall(() => sent(sendMinerAction(wallet, { kind: OpoiKind.COMMIT, requestId: requestIdBytes, miner, commitment })));
      const first = r.firstCommitHeight ?? chain.height + 1;
      return {
        txid,
        request_id: uuidOf(r.id),
        nonce_hex: toHex(nonce),
        commitment: toHex(commitment),
        commit_window_closes_at_height: first + p.commitWindow - 1,
      };
    },
  });

  registry.register({
    name: 'submitopoiresponse',
    category: 'Opoi',
    description:
      'Broadcasts the REVEAL of a committed response, after the commit window has closed and before the reveal\n' +
      'deadline: response hash, token count and nonce must hash to the commitment on-chain.',
    params: [
      { name: 'request_id', type: 'string', description: 'The request (a UUID)' },
      { name: 'response_hash', type: 'string', description: 'SHA-256 of the response bytes, 64 lower-case hex digits' },
      { name: 'miner_address', type: 'string', description: 'The address that committed' },
      { name: 'commitment', type: 'string', description: 'The commitment submitopoiresponsecommit returned' },
      { name: 'token_count', type: 'integer', description: 'Tokens in the response, as committed' },
      { name: 'nonce', type: 'string', description: 'The nonce_hex submitopoiresponsecommit returned' },
    ],
    result: fields(
      '"txid" : "hex"          (string) The REVEAL transaction',
      '"request_id" : "str"    (string) The request id',
      '"token_count" : n       (numeric) The revealed token count',
    ),
    examples: [{ args: [EXAMPLE_UUID, EXAMPLE_HASH, EXAMPLE_MINER, EXAMPLE_HASH, 42, EXAMPLE_HASH] }],
    handler: async ([requestId, responseHash, address, commitmentArg, tokenCount, nonceArg], call) => {
      const { wallet, r, hash, miner, requestIdBytes } = responseArgs(call, requestId, responseHash, address);
      const nonce = parseNonce(nonceArg);
      if (tokenCount < 0 || tokenCount > r.maxTokens) throw invalid(`token_count must be between 0 and max_tokens (${r.maxTokens})`);
      const commitment = toHex(commitmentHash(requestIdBytes, miner, hash, tokenCount, nonce));
      if (commitmentArg.toLowerCase() !== commitment) throw invalid('commitment does not match response_hash, token_count, nonce and miner_address');
      const onChain = chain.opoi.commitsOf(r.id).find((c) => c.miner === actorKey(miner));
      if (!onChain) throw invalid('miner_address has no confirmed commit for this request');
      if (onChain.commitment !== commitment) throw invalid('the reveal does not match the commitment on-chain');
      const payload = { kind: OpoiKind.REVEAL, requestId: requestIdBytes, miner, responseHash: hash, tokenCount, salt: nonce } as const;
      const txid = await walletCall(() => sent(sendMinerAction(wallet, payload)));
      return { txid, request_id: uuidOf(r.id), token_count: tokenCount };
    },
  });

  registry.register({
    name: 'claimopoipayout',
    category: 'Opoi',
    description:
      "Pays out a resolved request's escrow: the winner's pay and the requester's change, or the whole escrow back to\n" +
      'the requester when it expired. Anyone may call it (this wallet pays the fee). A second call returns the payout\n' +
      'already made (confirmed or in the mempool) instead of paying again.',
    params: [{ name: 'request_id', type: 'string', description: 'The request (a UUID)' }],
    result: fields(
      '"txid" : "hex"              (string) The payout transaction',
      '"request_id" : "str"        (string) The request id',
      '"kind" : "str"              (string) winner or refund',
      '"existing" : true|false     (boolean) Whether the payout was already out (a second call)',
      '"winner_amount" : n         (numeric or null) What the winner is paid, in coins (null for a refund)',
      '"refund_amount" : n         (numeric) What returns to the requester, in coins',
    ),
    examples: [{ args: [EXAMPLE_UUID] }],
    handler: async ([requestId], call) => {
      const wallet = walletOf(ctx, call);
      const r = confirmedRequest(ctx, parseRequestId(requestId));
      if (r.status === 'PENDING') {
        throw invalid('request is still PENDING: it pays out once it is resolved (see reveal_deadline_height or expires_at_height)');
      }
      const existing = r.payoutTxid ?? pendingPayout(ctx.mempool, r);
      const txid = existing ?? (await walletCall(() => sent(sendPayout(wallet, r))));
      const outputs = nodeRequestToJson({ ...r, payoutTxid: txid }, ctx);
      return {
        txid,
        request_id: uuidOf(r.id),
        kind: r.status === 'FULFILLED' ? 'winner' : 'refund',
        existing: existing !== undefined,
        winner_amount: outputs.winner_amount as JsonValue,
        refund_amount: outputs.refund_amount as JsonValue,
      };
    },
  });
}
