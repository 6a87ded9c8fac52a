/** The OPoI methods that read the chain's OPoI state: requests and their responses, stakes, statistics. */
import { MAX_VERIFIABLE_TOKENS, type RequestStatus, actorKey, stakeStatus } from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import type { OpoiContext } from '../context.ts';
import { nodeRequestToJson, responseToJson, stakeToJson } from '../json.ts';
import { actorArg, confirmedRequest, invalid, parseRequestId } from './args.ts';
import { COMMIT_FIELDS, EXAMPLE_MINER, EXAMPLE_UUID, REQUEST_FIELDS, STAKE_FIELDS, arrayResult, objectResult } from './help.ts';

export const REQUEST_STATUSES: readonly RequestStatus[] = ['PENDING', 'PUBLISHING', 'AUDITING', 'FULFILLED', 'REJECTED', 'EXPIRED'];
const STAKE_STATUSES = ['ACTIVE', 'SUSPENDED', 'UNSTAKING', 'UNSTAKED', 'FORFEITED'];

export function registerOpoiReadMethods(registry: RpcRegistry, ctx: OpoiContext): void {
  const { chain, params } = ctx;
  const p = params.opoi;

  registry.register({
    name: 'getopoirequest',
    category: 'Opoi',
    description:
      'Returns the on-chain state of an OPoI request: its fields, windows, commits and reveals, outcome, publish,\n' +
      'audit and payout.\n' +
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
    params: [{ name: 'status', type: 'string', optional: true, description: REQUEST_STATUSES.join(', ') }],
    result: arrayResult(REQUEST_FIELDS),
    examples: [{ args: [] }, { args: ['PENDING'] }],
    handler: async ([status]) => {
      if (status !== undefined && !(REQUEST_STATUSES as readonly string[]).includes(status))
        throw invalid(`status must be one of ${REQUEST_STATUSES.join(', ')}`);
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
      'Returns counts of OPoI requests, stakes, commits and reveals on the active chain, the coins held in escrow\n' +
      "(challenge bonds included), the network's OPoI parameters, and a digest of the whole OPoI state (equal\n" +
      'digests: equal state).',
    params: [],
    result: '{ "height", "requests": {...}, "stakes": {...}, "commits", "reveals", "escrow_locked", "params": {...}, "state_digest" }',
    examples: [{ args: [] }],
    handler: async () => {
      const requests = { total: 0, PENDING: 0, FULFILLED: 0, EXPIRED: 0, PUBLISHING: 0, AUDITING: 0, REJECTED: 0, paid: 0 };
      let escrow = 0n;
      let commits = 0;
      let reveals = 0;
      for (const r of chain.opoi.requests()) {
        requests.total++;
        requests[r.status]++;
        commits += r.commits;
        reveals += r.reveals;
        if (r.payoutTxid !== null) requests.paid++;
        else escrow += r.escrowValue + (r.publishTxid !== null ? (chain.opoi.audit(r.id)?.bond ?? 0n) : 0n);
      }
      const stakes: Record<string, number> = { total: 0, ACTIVE: 0, SUSPENDED: 0, UNSTAKING: 0, UNSTAKED: 0, FORFEITED: 0 };
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
          publishing: requests.PUBLISHING,
          auditing: requests.AUDITING,
          rejected: requests.REJECTED,
          paid: requests.paid,
        },
        stakes: {
          total: stakes.total,
          active: stakes.ACTIVE,
          suspended: stakes.SUSPENDED,
          unstaking: stakes.UNSTAKING,
          unstaked: stakes.UNSTAKED,
          forfeited: stakes.FORFEITED,
        },
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
          manifest_fee: amountToJson(p.manifestFee),
          max_verifiable_tokens: Math.min(p.maxTokens, MAX_VERIFIABLE_TOKENS),
          publish_window: p.publishWindow,
          audit_commit_window: p.auditCommitWindow,
          audit_reveal_window: p.auditRevealWindow,
          max_audit_quorum: p.maxAuditQuorum,
          min_audit_fee: amountToJson(p.minAuditFee),
          challenge_bond: amountToJson(p.challengeBond),
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
      const s = chain.opoi.stake(actorKey(actorArg(ctx, address, 'miner_address')));
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
}
