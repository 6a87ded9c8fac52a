/**
 * The OPoI state a node derives from the chain: requests, commits (with their reveals) and stakes,
 * plus the stake status rule. Records are plain values; whoever stores them (csd) serializes them
 * with encodeRecord/decodeRecord, which give the same bytes for the same record on every node.
 */
import type { OpoiParams } from '../params/networks.ts';

export type RequestStatus = 'PENDING' | 'FULFILLED' | 'EXPIRED';

export interface RequestRecord {
  /** 32 hex digits (the UUID without dashes). */
  readonly id: string;
  readonly txid: string;
  readonly height: number;
  /** Actor key (actor.ts) of the requester. */
  readonly requester: string;
  readonly model: string;
  readonly promptHash: string;
  readonly maxTokens: number;
  readonly payment: bigint;
  readonly feePerToken: bigint;
  readonly promptTokenCount: number;
  readonly taskType: number;
  readonly taskClass: string;
  readonly escrowValue: bigint;
  readonly status: RequestStatus;
  /** Height of the block holding the first commit, which opens the commit window. */
  readonly firstCommitHeight: number | null;
  readonly commits: number;
  readonly reveals: number;
  readonly winner: string | null;
  readonly winnerTokens: number | null;
  readonly resolvedHeight: number | null;
  readonly payoutTxid: string | null;
  readonly payoutHeight: number | null;
}

export interface RevealRecord {
  readonly responseHash: string;
  readonly tokenCount: number;
  readonly salt: string;
  readonly txid: string;
  readonly height: number;
}

export interface CommitRecord {
  readonly requestId: string;
  readonly miner: string;
  readonly commitment: string;
  readonly txid: string;
  readonly height: number;
  readonly reveal: RevealRecord | null;
}

export interface StakeRecord {
  readonly miner: string;
  /** The locked coin: output 0 of the STAKE transaction. */
  readonly collateralTxid: string;
  readonly collateralVout: number;
  readonly amount: bigint;
  readonly modelId: string;
  readonly endpoint: string;
  readonly txid: string;
  readonly height: number;
  readonly renewedHeight: number;
  readonly unstakeHeight: number | null;
}

export type StakeStatus = 'ACTIVE' | 'SUSPENDED' | 'UNSTAKING' | 'UNSTAKED';

/**
 * A stake's status for a transaction in a block at `height`: UNSTAKING from its UNSTAKE until the
 * cooldown ends, UNSTAKED after (the collateral is free), SUSPENDED when the last STAKE or RENEW
 * is more than stakeRenewal blocks back, ACTIVE otherwise.
 */
export function stakeStatus(s: StakeRecord, height: number, p: OpoiParams): StakeStatus {
  if (s.unstakeHeight !== null) return height >= s.unstakeHeight + p.unstakeCooldown ? 'UNSTAKED' : 'UNSTAKING';
  return height - s.renewedHeight > p.stakeRenewal ? 'SUSPENDED' : 'ACTIVE';
}

/** The last height at which the request accepts commits, once a first commit opened the window. */
export function commitWindowClose(r: RequestRecord, p: OpoiParams): number | null {
  return r.firstCommitHeight === null ? null : r.firstCommitHeight + p.commitWindow - 1;
}

/** The last height at which reveals count; the request resolves at the end of this block. */
export function revealDeadline(r: RequestRecord, p: OpoiParams): number | null {
  return r.firstCommitHeight === null ? null : r.firstCommitHeight + p.commitWindow + p.revealWindow - 1;
}

/** The height at whose end a request nobody committed to expires. */
export function expiryHeight(r: RequestRecord, p: OpoiParams): number {
  return r.height + p.requestExpiry;
}

/** The bigint fields of the records, stored as {"$n": "<decimal>"} since JSON has no 64-bit integers. */
const BIGINT_FIELDS = ['payment', 'feePerToken', 'escrowValue', 'amount'] as const;

type AnyRecord = RequestRecord | CommitRecord | StakeRecord;

/**
 * Deterministic JSON bytes of a record: fields in declaration order, each bigint as
 * {"$n": "<decimal>"}. The bigint fields are known, so no replacer walks every value.
 */
/**
 * A record's JSON, written field by field in the order of its interface (what JSON.stringify gives
 * for the records the rules build, bigints as {"$n": decimal}), at a third of JSON.stringify's
 * cost: a block of OPoI steps encodes a record per step. Free text goes through JSON.stringify;
 * every other string is hex, a status or an actor key.
 */
export function encodeRecord(record: AnyRecord): Buffer {
  if ('collateralTxid' in record) return Buffer.from(stakeJson(record));
  if ('requestId' in record) return Buffer.from(commitJson(record));
  return Buffer.from(requestJson(record));
}

const text = (v: string | null) => (v === null ? 'null' : JSON.stringify(v));
const hex = (v: string | null) => (v === null ? 'null' : `"${v}"`);
const big = (v: bigint) => `{"$n":"${v}"}`;

function requestJson(r: RequestRecord): string {
  return (
    `{"id":"${r.id}","txid":"${r.txid}","height":${r.height},"requester":"${r.requester}","model":${text(r.model)},` +
    `"promptHash":"${r.promptHash}","maxTokens":${r.maxTokens},"payment":${big(r.payment)},"feePerToken":${big(r.feePerToken)},` +
    `"promptTokenCount":${r.promptTokenCount},"taskType":${r.taskType},"taskClass":${text(r.taskClass)},` +
    `"escrowValue":${big(r.escrowValue)},"status":"${r.status}","firstCommitHeight":${r.firstCommitHeight},` +
    `"commits":${r.commits},"reveals":${r.reveals},"winner":${hex(r.winner)},"winnerTokens":${r.winnerTokens},` +
    `"resolvedHeight":${r.resolvedHeight},"payoutTxid":${hex(r.payoutTxid)},"payoutHeight":${r.payoutHeight}}`
  );
}

function commitJson(c: CommitRecord): string {
  const v = c.reveal;
  const reveal =
    v === null
      ? 'null'
      : `{"responseHash":"${v.responseHash}","tokenCount":${v.tokenCount},"salt":"${v.salt}","txid":"${v.txid}","height":${v.height}}`;
  return `{"requestId":"${c.requestId}","miner":"${c.miner}","commitment":"${c.commitment}","txid":"${c.txid}","height":${c.height},"reveal":${reveal}}`;
}

function stakeJson(s: StakeRecord): string {
  return (
    `{"miner":"${s.miner}","collateralTxid":"${s.collateralTxid}","collateralVout":${s.collateralVout},"amount":${big(s.amount)},` +
    `"modelId":${text(s.modelId)},"endpoint":${text(s.endpoint)},"txid":"${s.txid}","height":${s.height},` +
    `"renewedHeight":${s.renewedHeight},"unstakeHeight":${s.unstakeHeight}}`
  );
}

export function decodeRecord<T extends AnyRecord>(bytes: Uint8Array): T {
  return decodeRecordText<T>(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8'));
}

/** decodeRecord of the record's JSON text (the stored bytes read as UTF-8). */
export function decodeRecordText<T extends AnyRecord>(text: string): T {
  const record = JSON.parse(text) as Record<string, unknown>;
  for (const f of BIGINT_FIELDS) {
    const v = record[f] as { $n: string } | undefined;
    if (v !== undefined) record[f] = BigInt(v.$n);
  }
  return record as unknown as T;
}
