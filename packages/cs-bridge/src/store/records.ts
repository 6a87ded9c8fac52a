/**
 * What the bridge keeps on disk, record by record: requests it answers (with the miner's answer and
 * what the chain steps made of it), audits it was drawn for, balances, payments and the
 * transactions it follows. docs/bridge.md, "The OPoI flow" and "Audits", describe the stages.
 */
import type { OpoiAuditEvidence, OpoiManifest } from '@cs/stratum';

/** A request's places in the bridge's lifecycle (docs/bridge.md, "The OPoI flow"): the way to `paid` in order, then the other ends. */
export const STAGES = [
  'awaiting_prompt',
  'queued',
  'assigned',
  'received',
  'checking',
  'committed',
  'revealed',
  'published',
  'claimed',
  'paid',
  'lost',
  'expired',
  'rejected',
] as const;
export type Stage = (typeof STAGES)[number];

export const TERMINAL: ReadonlySet<Stage> = new Set(['paid', 'lost', 'expired', 'rejected']);

export type TaskType = 'OPEN' | 'VERIFIABLE';

export interface Assignment {
  readonly conn: number;
  readonly wallet: string;
  readonly worker: string;
  /** ms since the epoch. */
  readonly at: number;
}

/**
 * The pre-commit check of a VERIFIABLE answer by a second miner (opoi.audit): which miner replays
 * it, and its verdict; `unchecked` when no second miner holding the file was there.
 */
export interface Check {
  readonly auditId: string;
  readonly assigned: Assignment | null;
  readonly verdict: 'valid' | 'unchecked' | null;
  /** Miners (wallet.worker) that were sent this answer to check and gave no verdict. */
  readonly tried: readonly string[];
}

/** The miner's answer and everything the chain steps made of it. */
export interface Submission {
  readonly id: number;
  readonly wallet: string;
  readonly worker: string;
  /** What the COMMIT binds: SHA-256 of the text (OPEN), verifiableResponseHash of the ids and text (VERIFIABLE). */
  readonly responseHash: string;
  readonly responseHex: string;
  readonly tokenCount: number;
  /** A VERIFIABLE answer's token ids; absent for OPEN. */
  readonly tokenIds?: readonly number[];
  readonly check?: Check;
  /** Chosen before the COMMIT is sent, so a resend after a crash makes the same commitment. */
  readonly nonce: string;
  readonly receivedAt: number;
  readonly commitTxid?: string;
  readonly commitment?: string;
  readonly revealTxid?: string;
  readonly publishTxid?: string;
  readonly claimTxid?: string;
  /** Base units credited to the miner's wallet (its share of the winner's pay). */
  readonly credited?: string;
  /** Base units credited to the checking miner's wallet. */
  readonly checkCredited?: string;
}

export interface RequestRecord {
  readonly requestId: string;
  readonly model: string;
  readonly promptHash: string;
  readonly maxTokens: number;
  readonly payment: number;
  readonly blockHeight: number;
  /** OPEN when absent (records written before VERIFIABLE work). */
  readonly taskType?: TaskType;
  /** A VERIFIABLE request's manifest, as getmodelmanifest answered it. */
  readonly manifest?: OpoiManifest;
  /** A VERIFIABLE request's audit_fee, coins: what a pre-commit check earns (docs/bridge.md, "Miner payments"). */
  readonly auditFee?: number;
  readonly stage: Stage;
  readonly prompt: string | null;
  readonly assigned: Assignment | null;
  /** Miners (wallet.worker) that timed out or gave up on it: tried last. */
  readonly passed: readonly string[];
  /** Wallets whose answer a check found invalid: never assigned this request again. */
  readonly refused?: readonly string[];
  readonly submission: Submission | null;
  readonly note?: string;
  readonly updatedAt: number;
  /**
   * Bumped by every write. The engine's tick, the miners' answers and the HTTP API change requests
   * concurrently (each awaits node calls between reading and writing), so a write names the
   * revision it was computed from and is refused when another write came first.
   */
  readonly rev?: number;
}

/** A drawn audit's places in the bridge (docs/bridge.md, "Audits"). */
export const AUDIT_STAGES = ['drawn', 'assigned', 'decided', 'committed', 'revealed', 'paid', 'unpaid', 'missed'] as const;
export type AuditStage = (typeof AUDIT_STAGES)[number];

export const AUDIT_TERMINAL: ReadonlySet<AuditStage> = new Set(['paid', 'unpaid', 'missed']);

/** An audit the bridge's address was drawn for: the published answer, the replaying miner, the verdict and its steps. */
export interface AuditJob {
  readonly requestId: string;
  readonly model: string;
  readonly manifest: OpoiManifest;
  readonly promptHex: string;
  readonly tokenIds: readonly number[];
  readonly textHex: string;
  readonly maxTokens: number;
  readonly stage: AuditStage;
  /** Sequence of the opoi.audit sent for it, so a late report of an earlier send is told apart. */
  readonly attempt: number;
  readonly assigned: Assignment | null;
  /** Miners (wallet.worker) that timed out, failed or left: tried last. */
  readonly passed: readonly string[];
  /** The miner whose verdict is committed: paid the audit's share. */
  readonly miner?: { readonly wallet: string; readonly worker: string };
  readonly verdict?: 'valid' | 'invalid';
  readonly evidence?: OpoiAuditEvidence | null;
  /** Stored before the VERDICT_COMMIT is sent, so a restart reveals what was committed. */
  readonly salt?: string;
  readonly commitTxid?: string;
  readonly revealTxid?: string;
  /** Base units credited to the miner's wallet. */
  readonly credited?: string;
  readonly note?: string;
  readonly updatedAt: number;
  /** As RequestRecord.rev. */
  readonly rev?: number;
}

/** A write computed from a record that another write changed meanwhile. */
export class StaleRecordError extends Error {
  constructor(readonly requestId: string) {
    super(`record ${requestId} changed meanwhile`);
  }
}

export interface Balance {
  readonly pending: bigint;
  readonly paid: bigint;
}

export interface PaymentRecord {
  readonly id: number;
  readonly txid: string;
  readonly hex: string;
  /** wallet → base units (decimal text). */
  readonly amounts: Record<string, string>;
  readonly status: 'signed' | 'broadcast' | 'failed';
  readonly time: number;
}

/** A transaction the bridge sent and follows until it is buried (opoi/sent.ts). */
export interface SentTx {
  readonly kind: 'STAKE' | 'RENEW' | 'COMMIT' | 'REVEAL' | 'PUBLISH' | 'payout' | 'VERDICT_COMMIT' | 'VERDICT_REVEAL';
  /** The request a request's or an audit's step is for. */
  readonly requestId?: string;
}
