/**
 * The OPoI worker: answers opoi.assign with opoi.submit_result, or with opoi.submit_error saying
 * why not (docs/miner.md). Inference runs beside mining; nothing is dropped silently: every
 * assignment with a readable request_id gets exactly one of the two messages.
 */
import {
  OpoiAssignError,
  OpoiFailure,
  opoiAssignmentFits,
  opoiResponseHash,
  opoiSubmitErrorParams,
  opoiSubmitResultParams,
  parseOpoiAssign,
  type OpoiAssignment,
  type OpoiSubscription,
} from '@cs/stratum';
import type { Reply } from '../stratum/connection.ts';
import type { Generation, InferenceBackend } from './backends/backend.ts';

export interface OpoiLimits {
  readonly maxTokens: number;
  readonly maxPromptBytes: number;
  readonly concurrency: number;
  readonly timeoutMs: number;
}

export interface OpoiCounts {
  /** Results the bridge accepted. */
  done: number;
  /** Assignments answered with opoi.submit_error. */
  failed: number;
  /** Results or errors the bridge refused, or that could not be sent. */
  refused: number;
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
  readonly counts: OpoiCounts = { done: 0, failed: 0, refused: 0 };
  /** What opoi.subscribe announces; assignments are checked against it too. */
  readonly subscription: OpoiSubscription;
  private running = 0;

  constructor(
    private readonly models: ReadonlyMap<string, InferenceBackend>,
    private readonly limits: OpoiLimits,
    private readonly log: Log,
  ) {
    this.subscription = {
      models: [...models.keys()],
      maxTokens: limits.maxTokens,
      maxPromptBytes: limits.maxPromptBytes,
      concurrency: limits.concurrency,
      files: [],
      audits: false,
    };
  }

  get busy(): number {
    return this.running;
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
    const hash = opoiResponseHash(response);
    await this.report(send, requestId, 'opoi.submit_result', opoiSubmitResultParams(requestId, response, tokenCount), () => {
      this.counts.done++;
      this.log('info', 'OPoI result accepted', { request_id: requestId, tokens: tokenCount, response_hash: hash, ms: Date.now() - started });
    });
  }

  private async fail(send: Send, requestId: string, e: OpoiFailed): Promise<void> {
    this.log('warn', 'OPoI assignment failed', { request_id: requestId, error: e.failure, reason: e.message });
    const params = opoiSubmitErrorParams({ requestId, error: e.failure, message: e.message });
    await this.report(send, requestId, 'opoi.submit_error', params, () => this.counts.failed++);
  }

  private async run(a: OpoiAssignment): Promise<Generation> {
    const backend = this.models.get(a.model);
    const misfit = opoiAssignmentFits(this.subscription, a);
    if (!backend)
      throw new OpoiFailed(OpoiFailure.MODEL_NOT_SERVED, `model '${a.model}' is not served by this miner (${[...this.models.keys()].join(', ')})`);
    if (misfit) throw new OpoiFailed(OpoiFailure.OVER_LIMIT, misfit);
    // This assignment is already counted in `running`.
    if (this.running > this.limits.concurrency) throw new OpoiFailed(OpoiFailure.BUSY, `already running ${this.limits.concurrency} assignments`);
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new OpoiFailed(OpoiFailure.TIMEOUT, `no answer from the ${backend.kind} backend within ${this.limits.timeoutMs} ms`));
      }, this.limits.timeoutMs);
    });
    try {
      const g = await Promise.race([backend.generate(a.prompt, a.maxTokens, controller.signal), timeout]);
      if (g.tokenCount > a.maxTokens) {
        throw new OpoiFailed(
          OpoiFailure.BACKEND_ERROR,
          `the ${backend.kind} backend generated ${g.tokenCount} tokens, more than max_tokens ${a.maxTokens}`,
        );
      }
      return g;
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
