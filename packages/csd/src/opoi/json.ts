/**
 * OPoI records as JSON, shared by RPC, REST and the notifications so that every interface names
 * and shapes the fields alike. Field names follow the reference node's where it has them
 * (request_id, requester, model, prompt_hash, max_tokens, payment, fee_per_token, task_type,
 * task_class, prompt_token_count, block_height, tx_hash, status, commit_window_closed,
 * response_commits, response_reveals); the rest are ours and documented in docs/rpc.md.
 */
import {
  type AuditRecord,
  type ChainParams,
  type CommitRecord,
  type ManifestRecord,
  type OpoiEvent,
  type RequestRecord,
  type StakeRecord,
  type BosRule,
  BURN_SCRIPT,
  MANIFEST_BOS_MASK,
  MANIFEST_PARSE_SPECIAL,
  TASK_VERIFIABLE,
  VERDICT_INVALID,
  VERDICT_VALID,
  actorKeyScript,
  commitWindowClose,
  expiryHeight,
  forfeitShares,
  payoutOutputs,
  publishDeadline,
  uuidFromHex,
  revealDeadline,
  scriptToAddress,
  stakeStatus,
  hashFromHex,
  winnerAmount,
} from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import type { ChainContext } from '../rpc/context.ts';
import { type JsonObject, withJsonText } from '../format/json-value.ts';
import type { PublishedContent } from './content.ts';

/** Addresses by actor key: encoding bech32 dominates a request's JSON otherwise. */
const addresses = new Map<string, string>();

/** The address of an actor key (42 hex digits). */
export function actorAddress(key: string, params: ChainParams): string {
  const id = params.name + key;
  let address = addresses.get(id);
  if (address === undefined) {
    address = scriptToAddress(Buffer.from(actorKeyScript(key), 'hex'), params.address) ?? key;
    if (addresses.size >= 4096) addresses.clear();
    addresses.set(id, address);
  }
  return address;
}

export const uuidOf = uuidFromHex;

function commitToJson(c: CommitRecord, r: RequestRecord, params: ChainParams): JsonObject {
  return {
    request_id: uuidOf(c.requestId),
    miner: actorAddress(c.miner, params),
    commitment: c.commitment,
    commit_txid: c.txid,
    commit_height: c.height,
    revealed: c.reveal !== null,
    ...(c.reveal
      ? {
          response_hash: c.reveal.responseHash,
          token_count: c.reveal.tokenCount,
          reveal_txid: c.reveal.txid,
          reveal_height: c.reveal.height,
        }
      : {}),
    winner: r.winner === c.miner,
  };
}

/** Statuses from which a request pays out: its held coins go where its outcome says. */
export const SETTLED_STATUSES: ReadonlySet<string> = new Set(['FULFILLED', 'EXPIRED', 'REJECTED']);

/** Verdicts by their value in an auditor record (VERDICT_NONE is null). */
const VERDICT_NAMES: readonly (string | null)[] = [null, 'valid', 'invalid'];

/**
 * The audit of a published VERIFIABLE answer (getopoiaudit, and `audit` in getopoirequest): its
 * windows, the drawn auditors with their verdicts, a challenge, the outcome.
 */
export function auditToJson(a: AuditRecord, params: ChainParams): JsonObject {
  return {
    draw_height: a.drawHeight,
    commit_close: a.commitClose,
    reveal_deadline: a.revealDeadline,
    auditors: a.auditors.map((x) => ({
      address: actorAddress(x.auditor, params),
      round: x.round,
      committed: x.commitment !== null,
      verdict: VERDICT_NAMES[x.verdict] ?? null,
      commit_txid: x.commitTxid,
      reveal_txid: x.revealTxid,
    })),
    challenge:
      a.challenger === null
        ? null
        : { challenger: actorAddress(a.challenger, params), bond: amountToJson(a.bond), txid: a.challengeTxid, height: a.challengeHeight },
    outcome: a.outcome,
    forfeited: amountToJson(a.forfeited),
  };
}

/** An audit with the request it audits (getopoiaudit, REST /rest/opoi/audit). */
export function auditedToJson(r: RequestRecord, a: AuditRecord, params: ChainParams): JsonObject {
  return {
    request_id: uuidOf(r.id),
    status: r.status,
    model: r.model,
    winner: actorAddress(r.winner!, params),
    publish: { txid: r.publishTxid, height: r.publishHeight },
    ...auditToJson(a, params),
  };
}

/** What a settled request returns to its requester: the change, the refund, or the escrow and its forfeit share. */
function refundOf(r: RequestRecord, audit: AuditRecord | undefined): bigint {
  if (r.status === 'EXPIRED') return r.escrowValue;
  if (r.status === 'REJECTED') {
    const invalid = audit!.auditors.filter((x) => x.verdict === VERDICT_INVALID).length;
    return r.escrowValue + forfeitShares(audit!.forfeited, invalid).requester;
  }
  const paidFees = audit ? audit.auditors.filter((x) => x.round === 0 && x.verdict === VERDICT_VALID).length : 0;
  return r.escrowValue - winnerAmount(r.payment, r.feePerToken, r.winnerTokens!) - BigInt(paidFees) * r.auditFee;
}

export interface RequestJsonContext {
  readonly params: ChainParams;
  /** The request's audit record, when its VERIFIABLE answer was published. */
  readonly audit?: AuditRecord;
  /** Height of the active tip. */
  readonly height: number;
  /** Hash of the request's block on the active chain. */
  readonly blockHash: string | undefined;
  /** An unconfirmed payout of the request, if one is in the mempool. */
  readonly pendingPayout?: string;
}

/** A request with its windows, commits, outcome and payout (getopoirequest, REST). */
export function requestToJson(r: RequestRecord, commits: readonly CommitRecord[], ctx: RequestJsonContext): JsonObject {
  const p = ctx.params.opoi;
  const { audit } = ctx;
  const close = commitWindowClose(r, p);
  const settled = SETTLED_STATUSES.has(r.status);
  const outputs = settled ? payoutOutputs(r, audit) : [];
  const verifiable = r.taskType === TASK_VERIFIABLE;
  return {
    request_id: uuidOf(r.id),
    status: r.status,
    requester: actorAddress(r.requester, ctx.params),
    executor: r.executor === null ? null : actorAddress(r.executor, ctx.params),
    model: r.model,
    prompt_hash: r.promptHash,
    max_tokens: r.maxTokens,
    payment: amountToJson(r.payment),
    fee_per_token: amountToJson(r.feePerToken),
    task_type: verifiable ? 'VERIFIABLE' : 'OPEN',
    task_class: r.taskClass,
    prompt_token_count: r.promptTokenCount,
    audit_quorum: r.auditQuorum,
    audit_fee: amountToJson(r.auditFee),
    block_height: r.height,
    block_hash: ctx.blockHash ?? null,
    confirmations: ctx.height - r.height + 1,
    tx_hash: r.txid,
    escrow: { txid: r.txid, vout: 0, amount: amountToJson(r.escrowValue) },
    commit_window_opens_at_height: r.height + 1,
    commit_window_closes_at_height: close,
    commit_window_closed: close !== null && ctx.height >= close,
    reveal_deadline_height: revealDeadline(r, p),
    expires_at_height: r.firstCommitHeight === null ? expiryHeight(r, p) : null,
    response_commits: r.commits,
    response_reveals: r.reveals,
    commits: commits.map((c) => commitToJson(c, r, ctx.params)),
    resolved_height: r.resolvedHeight,
    winner: r.winner === null ? null : actorAddress(r.winner, ctx.params),
    winner_token_count: r.winnerTokens,
    // The winner's output leads a FULFILLED payout (its pay is never 0: the payment exceeds the floor).
    winner_amount: r.status === 'FULFILLED' ? amountToJson(outputs[0].value) : null,
    refund_amount: settled ? amountToJson(refundOf(r, audit)) : null,
    payout_outputs: outputs.map((o) => ({
      address: o.script === BURN_SCRIPT ? null : (scriptToAddress(Buffer.from(o.script, 'hex'), ctx.params.address) ?? null),
      script_pubkey: o.script,
      amount: amountToJson(o.value),
    })),
    payout_status: r.payoutTxid !== null ? 'confirmed' : ctx.pendingPayout ? 'pending' : settled ? 'claimable' : 'none',
    payout_txid: r.payoutTxid ?? ctx.pendingPayout ?? null,
    payout_height: r.payoutHeight,
    publish: r.publishTxid === null ? null : { txid: r.publishTxid, height: r.publishHeight },
    publish_deadline_height: verifiable && r.status === 'PUBLISHING' ? publishDeadline(r, p) : null,
    audit: audit ? auditToJson(audit, ctx.params) : null,
  };
}

/**
 * A request as a running node shows it (REST; the same object getopoirequest gives): heights and
 * hashes of the active chain, and a payout waiting in the mempool (a spender of the escrow).
 */
export function nodeRequestToJson(r: RequestRecord, { chain, mempool, params }: Pick<ChainContext, 'chain' | 'mempool' | 'params'>): JsonObject {
  const payout = pendingPayout(mempool, r);
  // Bridges and dashboards ask for the same few requests over and over. The store hands out one
  // record object until a block (or a reorg) changes the request, its commits or its payout, so the
  // answer is kept per record and reused while the tip and the pending payout are the same.
  const kept = shown.get(r);
  if (kept && kept.tip === chain.tip && kept.payout === payout) return kept.json;
  const json = withJsonText(
    requestToJson(r, chain.opoi.commitsOf(r.id), {
      params,
      audit: r.publishTxid !== null && r.taskType === TASK_VERIFIABLE ? chain.opoi.audit(r.id) : undefined,
      height: chain.height,
      blockHash: chain.atHeight(r.height)?.hashHex,
      pendingPayout: payout,
    }),
  );
  shown.set(r, { tip: chain.tip, payout, json });
  return json;
}

/** Shared with every caller, like the store's records: never to be changed. */
const shown = new WeakMap<RequestRecord, { readonly tip: object; readonly payout: string | undefined; readonly json: JsonObject }>();

/** The escrow's spender in the mempool (an unconfirmed payout), if any. */
export function pendingPayout(mempool: ChainContext['mempool'], r: RequestRecord): string | undefined {
  // Most of the time nothing in the mempool spends anything of OPoI: no key to build.
  if (mempool.size === 0) return undefined;
  return mempool.spender({ txid: hashFromHex(r.txid), vout: 0 })?.txid;
}

/** One commit and its reveal (listopoiresponses). */
export function responseToJson(c: CommitRecord, r: RequestRecord, params: ChainParams): JsonObject {
  return commitToJson(c, r, params);
}

/** A stake with its status for the next block (getopoistake, listopoistakes). */
export function stakeToJson(s: StakeRecord, height: number, params: ChainParams): JsonObject {
  const p = params.opoi;
  return {
    miner_address: actorAddress(s.miner, params),
    status: stakeStatus(s, height + 1, p),
    collateral_txid: s.collateralTxid,
    collateral_vout: s.collateralVout,
    amount: amountToJson(s.amount),
    model_id: s.modelId,
    endpoint: s.endpoint,
    serves: [...s.serves],
    txid: s.txid,
    height: s.height,
    renewed_height: s.renewedHeight,
    renew_by_height: s.renewedHeight + p.stakeRenewal,
    unstake_height: s.unstakeHeight,
    unlock_height: s.unstakeHeight === null ? null : s.unstakeHeight + p.unstakeCooldown,
    locks: s.locks,
    forfeited_by: s.forfeitedBy === null ? null : uuidOf(s.forfeitedBy),
  };
}

/** BOS rules by their value in a manifest's flags (BosRule). */
export const BOS_NAMES = ['metadata', 'never', 'always'] as const;

/** A registered model manifest (getmodelmanifest, listmodelmanifests). */
export function manifestToJson(m: ManifestRecord, height: number, params: ChainParams): JsonObject {
  return {
    model_id: m.modelId,
    registrant: actorAddress(m.registrant, params),
    gguf_sha256: m.ggufSha256,
    gguf_size: Number(m.ggufSize),
    decoding: 'greedy',
    bos: BOS_NAMES[(m.flags & MANIFEST_BOS_MASK) as BosRule],
    parse_special: (m.flags & MANIFEST_PARSE_SPECIAL) !== 0,
    chat_template_sha256: m.templateHash,
    tolerance: m.tolerance,
    fee: amountToJson(m.fee),
    txid: m.txid,
    height: m.height,
    confirmations: height - m.height + 1,
  };
}

/** A lifecycle step as WebSocket and ZeroMQ publish it; `undone` on the reverse step of a reorg. */
export function eventToJson(e: OpoiEvent, blockHash: string | null, undone: boolean, params: ChainParams): JsonObject {
  return {
    event: e.type,
    undone,
    request_id: e.requestId === null ? null : uuidOf(e.requestId),
    miner: e.miner === null ? null : actorAddress(e.miner, params),
    txid: e.txid,
    height: e.height,
    block_hash: blockHash,
    ...(e.modelId !== undefined ? { model_id: e.modelId } : {}),
    ...(e.outcome !== undefined ? { outcome: e.outcome } : {}),
  };
}

/**
 * Response content accepted by the node (not a chain step: no block, no transaction), shaped as
 * eventToJson's steps with the content's hash and size after them; `height` is the tip's.
 */
export function publishedToJson(p: PublishedContent, height: number, params: ChainParams): JsonObject {
  return {
    event: 'published',
    undone: false,
    request_id: uuidOf(p.requestId),
    miner: actorAddress(p.miner, params),
    txid: null,
    height,
    block_hash: null,
    response_hash: p.responseHash,
    bytes: p.bytes,
  };
}
