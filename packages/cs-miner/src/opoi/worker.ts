/**
 * The OPoI worker: answers opoi.assign with opoi.submit_result, or with opoi.submit_error saying
 * why not (docs/miner.md). Inference runs beside mining; nothing is dropped silently: every
 * assignment with a readable request_id gets exactly one of the two messages.
 */
import { createHash } from 'node:crypto';
import type { Reply } from '../stratum/connection.ts';
import type { InferenceBackend } from './backends/backend.ts';
import {
  OpoiError,
  OpoiErrorCode,
  assignmentRequestId,
  parseAssignment,
  submitErrorParams,
  submitResultParams,
  type Assignment,
} from './messages.ts';

export interface OpoiLimits {
  readonly maxTokens: number;
  readonly maxPromptBytes: number;
  readonly maxConcurrent: number;
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

type Send = (method: string, params: readonly unknown[]) => Promise<Reply>;
type Log = (level: 'info' | 'warn' | 'error' | 'debug', msg: string, fields?: Record<string, unknown>) => void;

export class OpoiWorker {
  readonly counts: OpoiCounts = { done: 0, failed: 0, refused: 0 };
  private running = 0;

  constructor(
    private readonly models: ReadonlyMap<string, InferenceBackend>,
    readonly limits: OpoiLimits,
    private readonly log: Log,
  ) {}

  get busy(): number {
    return this.running;
  }

  /** Handles one opoi.assign; `send` writes to the connection it came from. Resolves once answered. */
  async assign(params: readonly unknown[], send: Send): Promise<void> {
    const requestId = assignmentRequestId(params);
    if (requestId === null) {
      this.log('warn', 'opoi.assign without a readable request_id ignored', { params: JSON.stringify(params).slice(0, 200) });
      return;
    }
    this.running++;
    try {
      const assignment = parseAssignment(params);
      this.log('info', 'OPoI assignment', { request_id: requestId, model: assignment.model, max_tokens: assignment.maxTokens });
      const started = Date.now();
      const { response, tokenCount } = await this.run(assignment);
      const hash = createHash('sha256').update(response).digest('hex');
      await this.report(send, requestId, 'opoi.submit_result', submitResultParams(requestId, response, hash, tokenCount), () => {
        this.counts.done++;
        this.log('info', 'OPoI result accepted', { request_id: requestId, tokens: tokenCount, response_hash: hash, ms: Date.now() - started });
      });
    } catch (e) {
      const error = e instanceof OpoiError ? e : new OpoiError(OpoiErrorCode.BACKEND_ERROR, (e as Error).message);
      this.log('warn', 'OPoI assignment failed', { request_id: requestId, error: error.code, reason: error.message });
      await this.report(send, requestId, 'opoi.submit_error', submitErrorParams(requestId, error), () => this.counts.failed++);
    } finally {
      this.running--;
    }
  }

  private async run(a: Assignment): Promise<{ response: Uint8Array; tokenCount: number }> {
    const backend = this.models.get(a.model);
    if (!backend)
      throw new OpoiError(OpoiErrorCode.MODEL_NOT_SERVED, `model '${a.model}' is not served by this miner (${[...this.models.keys()].join(', ')})`);
    if (a.maxTokens > this.limits.maxTokens)
      throw new OpoiError(OpoiErrorCode.OVER_LIMIT, `max_tokens ${a.maxTokens} is over this miner's ${this.limits.maxTokens}`);
    if (a.prompt.length > this.limits.maxPromptBytes) {
      throw new OpoiError(OpoiErrorCode.OVER_LIMIT, `the prompt's ${a.prompt.length} bytes are over this miner's ${this.limits.maxPromptBytes}`);
    }
    // This assignment is already counted in `running`.
    if (this.running > this.limits.maxConcurrent) throw new OpoiError(OpoiErrorCode.BUSY, `already running ${this.limits.maxConcurrent} assignments`);
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(new OpoiError(OpoiErrorCode.TIMEOUT, `no answer from the ${backend.kind} backend within ${this.limits.timeoutMs} ms`));
      }, this.limits.timeoutMs);
    });
    try {
      const g = await Promise.race([backend.generate(a.prompt, a.maxTokens, controller.signal), timeout]);
      if (g.tokenCount > a.maxTokens) {
        throw new OpoiError(
          OpoiErrorCode.BACKEND_ERROR,
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
