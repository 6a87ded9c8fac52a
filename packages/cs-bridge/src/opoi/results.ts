/**
 * What miners send back (docs/miner.md, "The OPoI messages"): an answer (opoi.submit_result), a
 * give-up (opoi.submit_error) and a verdict (opoi.submit_audit), each accepted only from the
 * connection the work was sent to and only while it is still that connection's. An answer to a
 * VERIFIABLE request must carry its token ids and be UTF-8 text (both go on chain in the PUBLISH);
 * its COMMIT binds verifiableResponseHash(ids, text). A check that finds an answer invalid sends
 * the request back to the queue, never again to that wallet.
 */
import { randomBytes } from 'node:crypto';
import { isUtf8 } from 'node:buffer';
import { MAX_OPOI_PUBLISH, toHex, verifiableResponseHash } from '@cs/consensus';
import {
  type OpoiAccepted,
  type OpoiAuditReport,
  StratumError,
  StratumErrorCode,
  parseOpoiSubmitAudit,
  parseOpoiSubmitError,
  parseOpoiSubmitResult,
} from '@cs/stratum';
import type { MinerConnection } from '../relay/relay.ts';
import { type AuditJob, type RequestRecord, StaleRecordError, type Submission } from '../store/store.ts';
import type { EngineContext } from './context.ts';
import { minerLabel, readAuditId } from './dispatch.ts';

/** A PUBLISH's bytes besides the prompt, the ids and the text: magic, version, kind, request id and three lengths. */
const PUBLISH_OVERHEAD = 4 + 1 + 1 + 16 + 3 * 5;

const bad = (message: string) => new StratumError(StratumErrorCode.OTHER, message);
const notHere = () => new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'request not assigned to this connection');

/** A miner's write that lost to the tick (the assignment timed out meanwhile): 25, as if it had been seen. */
async function unlessChanged(write: Promise<void>): Promise<void> {
  try {
    await write;
  } catch (e) {
    if (e instanceof StaleRecordError) throw notHere();
    throw e;
  }
}

export class MinerResults {
  constructor(
    private readonly ctx: EngineContext,
    private readonly nextSubmission: () => number,
  ) {}

  /** The request a result or failure names, if it is assigned to this connection and still open. */
  private assignedHere(conn: MinerConnection, requestId: string): RequestRecord {
    const record = this.ctx.store.request(requestId);
    if (!record) throw bad('unknown request');
    if (record.submission) throw bad('duplicate: a result for this request was accepted already');
    if (record.stage !== 'assigned' || record.assigned?.conn !== conn.id) throw notHere();
    return record;
  }

  async submitResult(conn: MinerConnection, params: readonly unknown[]): Promise<OpoiAccepted> {
    const result = parseOpoiSubmitResult(params);
    const record = this.assignedHere(conn, result.requestId);
    if (result.tokenCount > record.maxTokens) throw bad(`token_count must be an integer from 0 to max_tokens (${record.maxTokens})`);
    let responseHash = result.responseHash;
    if (record.taskType === 'VERIFIABLE') {
      if (result.tokenIds === null) throw bad('a VERIFIABLE answer needs token_ids');
      if (!isUtf8(result.response)) throw bad('a VERIFIABLE answer must be UTF-8 text: it is published on chain');
      const size = Buffer.byteLength(record.prompt!) + 4 * result.tokenIds.length + result.response.length + PUBLISH_OVERHEAD;
      if (size > MAX_OPOI_PUBLISH) throw bad(`the prompt, token ids and text take ${size} bytes, over a PUBLISH's ${MAX_OPOI_PUBLISH}`);
      responseHash = toHex(verifiableResponseHash(result.tokenIds, result.response));
    }
    // Taken synchronously: two answers at once never share a number (one process holds the store).
    const id = this.nextSubmission();
    const assigned = record.assigned!;
    const submission: Submission = {
      id,
      wallet: assigned.wallet,
      worker: assigned.worker,
      responseHash,
      responseHex: Buffer.from(result.response).toString('hex'),
      tokenCount: result.tokenCount,
      ...(result.tokenIds === null || record.taskType !== 'VERIFIABLE' ? {} : { tokenIds: result.tokenIds }),
      nonce: randomBytes(32).toString('hex'),
      receivedAt: Date.now(),
    };
    await unlessChanged(this.ctx.store.apply({ requests: [{ ...record, stage: 'received', submission }], meta: { submission: String(id) } }));
    this.ctx.log.info({ request_id: record.requestId, submission_id: id, wallet: submission.wallet, worker: submission.worker }, 'result received');
    return { accepted: true, submission_id: id };
  }

  /** The miner gives up (opoi.submit_error): another one gets the request at once. */
  async submitError(conn: MinerConnection, params: readonly unknown[]): Promise<{ accepted: true }> {
    const report = parseOpoiSubmitError(params);
    const record = this.assignedHere(conn, report.requestId);
    this.ctx.log.warn({ request_id: record.requestId, conn: conn.id, error: report.error, message: report.message }, 'miner gave up on a request');
    await unlessChanged(requeue(this.ctx, record));
    return { accepted: true };
  }

  /** A verdict on a pre-commit check or a drawn audit, from the connection it was sent to. */
  async submitAudit(conn: MinerConnection, params: readonly unknown[]): Promise<{ accepted: true }> {
    const report = parseOpoiSubmitAudit(params);
    const id = readAuditId(report.auditId);
    if (!id || id.requestId !== report.requestId) throw bad('unknown audit');
    if (id.kind === 'check') await unlessChanged(this.checked(conn, report));
    else await unlessChanged(this.audited(conn, report, id.attempt));
    return { accepted: true };
  }

  private async checked(conn: MinerConnection, report: OpoiAuditReport): Promise<void> {
    const { store, log } = this.ctx;
    const r = store.request(report.requestId);
    const s = r?.submission;
    if (!r || !s?.check) throw bad('unknown audit');
    if (r.stage !== 'checking' || s.check.auditId !== report.auditId || s.check.assigned?.conn !== conn.id) throw notHere();
    const fields = { request_id: r.requestId, audit_id: report.auditId, answered_by: `${s.wallet}.${s.worker}`, checked_by: minerLabel(conn) };
    if (report.verdict === 'valid') {
      await store.apply({ requests: [{ ...r, stage: 'received', submission: { ...s, check: { ...s.check, verdict: 'valid' } } }] });
      log.info(fields, 'check: the answer is valid');
    } else if (report.verdict === 'invalid') {
      // Not committed, not paid: another miner answers, never this wallet again.
      const note = `the answer of ${s.wallet}.${s.worker} was found invalid by a check (position ${report.position ?? 'none'}: ${report.reason})`;
      await store.apply({
        requests: [
          {
            ...r,
            stage: 'queued',
            submission: null,
            assigned: null,
            passed: [...r.passed, `${s.wallet}.${s.worker}`],
            refused: [...(r.refused ?? []), s.wallet],
            note,
          },
        ],
      });
      log.warn(
        { ...fields, position: report.position, evidence: report.evidence, reason: report.reason },
        'check: the answer is invalid; reassigning',
      );
    } else {
      await store.apply({ requests: [{ ...r, stage: 'received', submission: { ...s, check: { ...s.check, assigned: null } } }] });
      log.warn({ ...fields, reason: report.reason }, 'check failed to run; another miner checks, or the answer is committed unchecked');
    }
  }

  private async audited(conn: MinerConnection, report: OpoiAuditReport, attempt: number): Promise<void> {
    const { store, log } = this.ctx;
    const job = store.audit(report.requestId);
    if (!job) throw bad('unknown audit');
    if (job.stage !== 'assigned' || job.attempt !== attempt || job.assigned?.conn !== conn.id) throw notHere();
    const fields = { request_id: job.requestId, audit_id: report.auditId, miner: minerLabel(conn), verdict: report.verdict };
    let next: AuditJob;
    if (report.verdict === 'failed') {
      next = { ...job, stage: 'drawn', assigned: null, passed: [...job.passed, minerLabel(conn)], note: report.reason };
      log.warn({ ...fields, reason: report.reason }, 'the audit failed to run on this miner; another one gets it');
    } else {
      // The salt is stored with the verdict before the VERDICT_COMMIT is sent: a restart reveals what was committed.
      next = {
        ...job,
        stage: 'decided',
        assigned: null,
        miner: { wallet: job.assigned!.wallet, worker: job.assigned!.worker },
        verdict: report.verdict,
        evidence: report.evidence,
        salt: randomBytes(32).toString('hex'),
        note: report.reason,
      };
      log.info({ ...fields, position: report.position, evidence: report.evidence }, 'drawn audit: verdict received');
    }
    await store.apply({ audits: [next] });
  }
}

/** The request back to the queue, its miner (timed out, gone or given up) tried last. */
export async function requeue(ctx: EngineContext, record: RequestRecord): Promise<void> {
  const a = record.assigned!;
  await ctx.store.apply({ requests: [{ ...record, stage: 'queued', assigned: null, passed: [...record.passed, `${a.wallet}.${a.worker}`] }] });
}
