/**
 * The OPoI worker: answers opoi.assign with opoi.submit_result, or with opoi.submit_error saying
 * why not, and opoi.audit with opoi.submit_audit (docs/miner.md). Inference runs beside mining;
 * nothing is dropped silently: every assignment with a readable request_id gets exactly one
 * result or error, every audit with a readable audit_id exactly one verdict.
 */
import {
  OpoiAssignError,
  OpoiAuditError,
  OpoiFailure,
  fileMatchesManifest,
  opoiAssignmentFits,
  opoiResponseHash,
  opoiSubmitAuditParams,
  opoiSubmitErrorParams,
  opoiSubmitResultParams,
  parseOpoiAssign,
  parseOpoiAudit,
  type OpoiAssignment,
  type OpoiAuditReport,
  type OpoiAuditTask,
  type OpoiManifest,
  type OpoiSubscription,
} from '@cs/stratum';
import type { Reply } from '../stratum/connection.ts';
import {
  ManifestRuleError,
  isVerifiable,
  type Generation,
  type InferenceBackend,
  type VerifiableBackend,
  type VerifiableGeneration,
} from './backends/backend.ts';
import { corruptTokenIds, type CorruptMode } from './corrupt.ts';

export interface OpoiLimits {
  readonly maxTokens: number;
  readonly maxPromptBytes: number;
  readonly concurrency: number;
  readonly timeoutMs: number;
  /** Take opoi.audit for the files held (-opoi-audits). */
  readonly audits: boolean;
  /** -corruptanswers: how VERIFIABLE answers are spoiled, for demonstrations and tests. */
  readonly corrupt: CorruptMode;
}

export interface OpoiCounts {
  /** Results the bridge accepted. */
  done: number;
  /** Assignments answered with opoi.submit_error. */
  failed: number;
  /** Results or errors the bridge refused, or that could not be sent. */
  refused: number;
  /** Audits answered valid or invalid (accepted by the bridge). */
  audited: number;
  /** Audits answered failed. */
  auditsFailed: number;
}

/** An assignment this miner does not answer, and why (opoi.submit_error's `error`). */
class OpoiFailed extends Error {
  constructor(
    readonly failure: OpoiFailure,
    message: string,
  ) {
    super(message);
  }
}

type Send = (method: string, params: readonly unknown[]) => Promise<Reply>;
type Log = (level: 'info' | 'warn' | 'error' | 'debug', msg: string, fields?: Record<string, unknown>) => void;

export class OpoiWorker {
  readonly counts: OpoiCounts = { done: 0, failed: 0, refused: 0, audited: 0, auditsFailed: 0 };
  /** What opoi.subscribe announces; assignments are checked against it too. */
  readonly subscription: OpoiSubscription;
  private running = 0;
  private auditing = 0;
  /** The backends that hold a GGUF file, which VERIFIABLE work and audits are routed to by the file's identity. */
  private readonly files: readonly VerifiableBackend[];

  constructor(
    private readonly models: ReadonlyMap<string, InferenceBackend>,
    private readonly limits: OpoiLimits,
    private readonly log: Log,
  ) {
    const files = [...models.values()].filter(isVerifiable);
    // One backend per file: the same file served under two names is one file to a manifest.
    this.files = files.filter((b, i) => files.findIndex((o) => o.file.sha256 === b.file.sha256 && o.file.size === b.file.size) === i);
    this.subscription = {
      models: [...models.keys()],
      maxTokens: limits.maxTokens,
      maxPromptBytes: limits.maxPromptBytes,
      concurrency: limits.concurrency,
      files: this.files.map((b) => ({ sha256: b.file.sha256, size: b.file.size })),
      audits: limits.audits && this.files.length > 0,
    };
  }

  get busy(): number {
    return this.running + this.auditing;
  }

  /** Handles one opoi.assign; `send` writes to the connection it came from. Resolves once answered. */
  async assign(params: readonly unknown[], send: Send): Promise<void> {
    let assignment: OpoiAssignment;
    try {
      assignment = parseOpoiAssign(params);
    } catch (e) {
      const requestId = e instanceof OpoiAssignError ? e.requestId : null;
      this.log('warn', 'malformed opoi.assign', { request_id: requestId, reason: (e as Error).message });
      if (requestId !== null) await this.fail(send, requestId, new OpoiFailed(OpoiFailure.BAD_ASSIGNMENT, (e as Error).message));
      return;
    }
    const { requestId } = assignment;
    this.log('info', 'OPoI assignment', { request_id: requestId, model: assignment.model, max_tokens: assignment.maxTokens });
    const started = Date.now();
    let generation: Generation;
    // Counted as running only while the backend works: the bridge may assign the next request as
    // soon as it has the result, before its answer to opoi.submit_result arrives here.
    this.running++;
    try {
      generation = await this.run(assignment);
    } catch (e) {
      return this.fail(send, requestId, e instanceof OpoiFailed ? e : new OpoiFailed(OpoiFailure.BACKEND_ERROR, (e as Error).message));
    } finally {
      this.running--;
    }
    const { response, tokenCount } = generation;
    const tokenIds = 'tokenIds' in generation ? (generation.tokenIds as readonly number[]) : null;
    const hash = opoiResponseHash(response);
    const submit = opoiSubmitResultParams(requestId, response, tokenCount, tokenIds);
    await this.report(send, requestId, 'opoi.submit_result', submit, () => {
      this.counts.done++;
      this.log('info', 'OPoI result accepted', {
        request_id: requestId,
        tokens: tokenCount,
        response_hash: hash,
        verifiable: tokenIds !== null,
        ms: Date.now() - started,
      });
    });
  }

  /** Handles one opoi.audit; resolves once its verdict is sent. */
  async audit(params: readonly unknown[], send: Send): Promise<void> {
    let task: OpoiAuditTask;
    try {
      task = parseOpoiAudit(params);
    } catch (e) {
      const { auditId, requestId } = e instanceof OpoiAuditError ? e : { auditId: null, requestId: null };
      this.log('warn', 'malformed opoi.audit', { audit_id: auditId, request_id: requestId, reason: (e as Error).message });
      if (auditId !== null && requestId !== null) await this.sendAudit(send, failedAudit(auditId, requestId, (e as Error).message), Date.now());
      return;
    }
    const started = Date.now();
    this.log('info', 'OPoI audit', {
      audit_id: task.auditId,
      request_id: task.requestId,
      model: task.manifest.modelId,
      tokens: task.tokenIds.length,
    });
    this.auditing++;
    let report: OpoiAuditReport;
    try {
      report = await this.runAudit(task);
    } catch (e) {
      report = failedAudit(task.auditId, task.requestId, (e as Error).message);
    } finally {
      this.auditing--;
    }
    await this.sendAudit(send, report, started);
  }

  private async runAudit(task: OpoiAuditTask): Promise<OpoiAuditReport> {
    if (!this.subscription.audits) return failedAudit(task.auditId, task.requestId, 'this miner takes no audits (-noopoi-audits)');
    const backend = this.backendFor(task.manifest);
    if (!backend) return failedAudit(task.auditId, task.requestId, notHeld(task.manifest));
    // Audits wait in the engine's queue behind answers; more than `concurrency` at once are refused rather than left to pile up.
    if (this.auditing > this.limits.concurrency)
      return failedAudit(task.auditId, task.requestId, `already running ${this.limits.concurrency} audits`);
    return this.withTimeout(backend, () => backend.audit(task));
  }

  private async sendAudit(send: Send, report: OpoiAuditReport, started: number): Promise<void> {
    const fields = {
      audit_id: report.auditId,
      request_id: report.requestId,
      verdict: report.verdict,
      position: report.position,
      reason: report.reason,
    };
    await this.report(send, report.requestId, 'opoi.submit_audit', opoiSubmitAuditParams(report), () => {
      if (report.verdict === 'failed') this.counts.auditsFailed++;
      else this.counts.audited++;
      this.log(report.verdict === 'failed' ? 'warn' : 'info', 'OPoI audit sent', { ...fields, ms: Date.now() - started });
    });
  }

  /** The backend holding a manifest's exact file: no other file is ever used for its work. */
  private backendFor(m: OpoiManifest): VerifiableBackend | undefined {
    return this.files.find((b) => fileMatchesManifest(b.file, m));
  }

  private async fail(send: Send, requestId: string, e: OpoiFailed): Promise<void> {
    this.log('warn', 'OPoI assignment failed', { request_id: requestId, error: e.failure, reason: e.message });
    const params = opoiSubmitErrorParams({ requestId, error: e.failure, message: e.message });
    await this.report(send, requestId, 'opoi.submit_error', params, () => this.counts.failed++);
  }

  private async run(a: OpoiAssignment): Promise<Generation> {
    const manifest = a.manifest;
    const backend = manifest ? this.backendFor(manifest) : this.models.get(a.model);
    if (!backend) {
      const why = manifest ? notHeld(manifest) : `model '${a.model}' is not served by this miner (${[...this.models.keys()].join(', ')})`;
      throw new OpoiFailed(OpoiFailure.MODEL_NOT_SERVED, why);
    }
    const refusal = manifest && isVerifiable(backend) ? backend.refusal(manifest) : null;
    if (refusal) throw new OpoiFailed(OpoiFailure.MODEL_NOT_SERVED, refusal);
    const misfit = opoiAssignmentFits(this.subscription, a);
    if (misfit) throw new OpoiFailed(OpoiFailure.OVER_LIMIT, misfit);
    // This assignment is already counted in `running`.
    if (this.running > this.limits.concurrency) throw new OpoiFailed(OpoiFailure.BUSY, `already running ${this.limits.concurrency} assignments`);
    const g = await this.withTimeout(backend, (signal) => {
      if (!manifest || !isVerifiable(backend)) return backend.generate(a.prompt, a.maxTokens, signal);
      return this.answerVerifiable(backend, a, manifest, signal);
    });
    if (g.tokenCount > a.maxTokens)
      throw new OpoiFailed(
        OpoiFailure.BACKEND_ERROR,
        `the ${backend.kind} backend generated ${g.tokenCount} tokens, more than max_tokens ${a.maxTokens}`,
      );
    return g;
  }

  private async answerVerifiable(
    backend: VerifiableBackend,
    a: OpoiAssignment,
    manifest: OpoiManifest,
    signal: AbortSignal,
  ): Promise<VerifiableGeneration> {
    let g: VerifiableGeneration;
    try {
      g = await backend.generateVerifiable(a.prompt, manifest, a.maxTokens, signal);
    } catch (e) {
      // A vocabulary without BOS for a manifest that prepends it.
      if (e instanceof ManifestRuleError) throw new OpoiFailed(OpoiFailure.MODEL_NOT_SERVED, e.message);
      throw e;
    }
    if (this.limits.corrupt === 'none') return g;
    const tokenIds = corruptTokenIds(this.limits.corrupt, g.tokenIds, backend);
    this.log('warn', 'corrupted a VERIFIABLE answer (-corruptanswers, for demonstrations and tests)', {
      request_id: a.requestId,
      mode: this.limits.corrupt,
    });
    return { response: backend.text(tokenIds), tokenCount: tokenIds.length, tokenIds };
  }

  /** Runs a backend job under -opoi-timeout; on timeout the job's signal aborts it. */
  private async withTimeout<T>(backend: InferenceBackend, job: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new OpoiFailed(OpoiFailure.TIMEOUT, `no answer from the ${backend.kind} backend within ${this.limits.timeoutMs} ms`));
      }, this.limits.timeoutMs);
    });
    try {
      return await Promise.race([job(controller.signal), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async report(send: Send, requestId: string, method: string, params: readonly unknown[], onAccepted: () => void): Promise<void> {
    try {
      const reply = await send(method, params);
      if (reply.error) {
        this.counts.refused++;
        this.log('warn', `${method} refused by the bridge`, { request_id: requestId, code: reply.error[0], reason: reply.error[1] });
      } else onAccepted();
    } catch (e) {
      this.counts.refused++;
      this.log('warn', `${method} could not be sent`, { request_id: requestId, reason: (e as Error).message });
    }
  }
}

function failedAudit(auditId: string, requestId: string, reason: string): OpoiAuditReport {
  return { auditId, requestId, verdict: 'failed', position: null, evidence: null, reason };
}

function notHeld(m: OpoiManifest): string {
  return `no loaded GGUF file is manifest '${m.modelId}''s (SHA-256 ${m.ggufSha256}, ${m.ggufSize} bytes)`;
}
