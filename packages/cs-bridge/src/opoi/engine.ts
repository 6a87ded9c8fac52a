/**
 * The OPoI engine: follows the node's PENDING requests (OPEN, and VERIFIABLE ones naming a manifest
 * its stake serves), takes prompts, hands work to miners (dispatch.ts), drives each answer through
 * the chain (steps.ts), audits what its address is drawn for (auditor.ts) and pays miners
 * (payments.ts).
 *
 * One tick at a time does every node call (serialized), so two steps never race for the wallet's
 * coins. Each step first looks at the chain for what an earlier, interrupted run may already have
 * done, then acts, then records the result in one store transaction: a kill -9 anywhere repeats at
 * most an idempotent node call.
 */
import { RpcError, type RpcClient, promptHash } from '@cs/client';
import { type OpoiManifest, StratumError, StratumErrorCode, parseOpoiManifest } from '@cs/stratum';
import type { Logger } from 'pino';
import type { BridgeConfig } from '../config/env.ts';
import type { MinerConnection, OpoiHandler } from '../relay/relay.ts';
import { type BridgeStore, type RequestRecord, type Stage, StaleRecordError } from '../store/store.ts';
import { Auditor } from './auditor.ts';
import type { ChainRequest, EngineContext, StakeStatus } from './context.ts';
import { Dispatcher } from './dispatch.ts';
import { Payments } from './payments.ts';
import { MinerResults } from './results.ts';
import { followSent } from './sent.ts';
import { StakeKeeper } from './stake.ts';
import { RequestSteps } from './steps.ts';

export type { ChainRequest, StakeStatus } from './context.ts';

export type PromptOutcome =
  | { readonly status: 200; readonly body: { accepted: true; request_id: string; stage: Stage } }
  | { readonly status: 400 | 404 | 409; readonly body: { error: string } };

export class OpoiEngine implements OpoiHandler, EngineContext {
  readonly miners = new Map<number, MinerConnection>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly payments: Payments;
  private readonly stakeKeeper = new StakeKeeper(this);
  private readonly steps = new RequestSteps(this);
  private readonly dispatcher = new Dispatcher(this);
  private readonly auditor = new Auditor(this);
  private readonly results: MinerResults;
  private nextSubmission: number;
  stake: StakeStatus = 'unknown';
  serves: readonly string[] = [];
  height = 0;
  lastError: string | null = null;

  constructor(
    readonly config: BridgeConfig,
    readonly rpc: RpcClient,
    readonly store: BridgeStore,
    readonly log: Logger,
  ) {
    this.payments = new Payments(config, rpc, store, log);
    this.nextSubmission = store.nextNumber('submission');
    this.results = new MinerResults(this, () => this.nextSubmission++);
  }

  /** Work sent to connections of an earlier run goes back to be handed out again. */
  async start(): Promise<void> {
    const requests = this.store.active().flatMap((r): RequestRecord[] => {
      if (r.stage === 'assigned') return [{ ...r, stage: 'queued', assigned: null }];
      if (r.stage === 'checking')
        return [{ ...r, stage: 'received', submission: { ...r.submission!, check: { ...r.submission!.check!, assigned: null } } }];
      return [];
    });
    const audits = this.store.activeAudits().flatMap((j) => (j.stage === 'assigned' ? [{ ...j, stage: 'drawn' as const, assigned: null }] : []));
    await this.store.apply({ requests, audits });
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  /** Runs a tick soon (a new block, a prompt, a result, a miner); ticks never overlap. */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = this.tick()
      .catch((e) => {
        this.lastError = (e as Error).message;
        this.log.error({ err: (e as Error).message }, 'OPoI tick failed; retrying at the next one');
      })
      .finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.wake();
        } else this.schedule();
      });
  }

  private schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.wake(), this.config.pollMs);
  }

  // ---- miners (OpoiHandler) ----

  changed(conn: MinerConnection, event: 'ready' | 'closed'): void {
    if (event === 'ready') this.miners.set(conn.id, conn);
    else this.miners.delete(conn.id);
    this.wake();
  }

  async handle(conn: MinerConnection, method: string, params: readonly unknown[]): Promise<unknown> {
    let answer: unknown;
    if (method === 'opoi.submit_result') answer = await this.results.submitResult(conn, params);
    else if (method === 'opoi.submit_error') answer = await this.results.submitError(conn, params);
    else if (method === 'opoi.submit_audit') answer = await this.results.submitAudit(conn, params);
    else throw new StratumError(StratumErrorCode.OTHER, `unknown method ${method}`);
    this.wake();
    return answer;
  }

  // ---- prompts (HTTP) ----

  /** POST /svc/opoi/prompt: the request must be on chain, PENDING, this bridge's to answer, and hash to its prompt hash. */
  async acceptPrompt(requestId: string, prompt: string): Promise<PromptOutcome> {
    const id = requestId.toLowerCase();
    let chain: ChainRequest;
    try {
      chain = await this.rpc.call('getopoirequest', [id]);
    } catch (e) {
      if (e instanceof RpcError && e.code === -5) return { status: 404, body: { error: 'request_id not found on-chain' } };
      if (e instanceof RpcError && e.code === -8) return { status: 400, body: { error: e.message } };
      throw e;
    }
    if (promptHash(prompt) !== chain.prompt_hash)
      return { status: 400, body: { error: 'the SHA-256 of prompt does not match the on-chain prompt hash' } };
    if (chain.status !== 'PENDING') return { status: 409, body: { error: `request is ${chain.status}` } };
    if (!this.mayCommit(chain)) return { status: 409, body: { error: `request names another executor (${chain.executor})` } };
    if (!this.serving(chain)) return { status: 409, body: { error: `this bridge's stake does not serve manifest '${chain.model}'` } };
    // The tick may store the request (first seen on chain) or change it between the read and the
    // write: read again and retry until the write is made from the current record.
    for (;;) {
      const known = this.store.request(id);
      if (known?.prompt) return { status: 200, body: { accepted: true, request_id: id, stage: known.stage } };
      const record = known ?? (await this.fromChain(chain));
      const next: RequestRecord = { ...record, prompt, stage: record.stage === 'awaiting_prompt' ? 'queued' : record.stage };
      try {
        await this.store.apply({ requests: [next] });
      } catch (e) {
        if (e instanceof StaleRecordError) continue;
        throw e;
      }
      break;
    }
    this.log.info({ request_id: id }, 'prompt accepted');
    this.wake();
    return { status: 200, body: { accepted: true, request_id: id, stage: this.store.request(id)!.stage } };
  }

  private async fromChain(c: ChainRequest): Promise<RequestRecord> {
    const verifiable = c.task_type === 'VERIFIABLE';
    const manifest: OpoiManifest | undefined = verifiable ? parseOpoiManifest(await this.rpc.call('getmodelmanifest', [c.model])) : undefined;
    return {
      requestId: c.request_id,
      model: c.model,
      promptHash: c.prompt_hash,
      maxTokens: c.max_tokens,
      payment: c.payment,
      blockHeight: c.block_height,
      taskType: verifiable ? 'VERIFIABLE' : 'OPEN',
      ...(verifiable ? { manifest, auditFee: c.audit_fee } : {}),
      stage: 'awaiting_prompt',
      prompt: null,
      assigned: null,
      passed: [],
      submission: null,
      updatedAt: Date.now(),
    };
  }

  // ---- the tick ----

  private async tick(): Promise<void> {
    try {
      this.height = await this.rpc.call('getblockcount');
    } catch (e) {
      // Without the node the stake is unknown: say so, never "no stake".
      this.stake = 'node-error';
      throw e;
    }
    await followSent(this);
    try {
      ({ status: this.stake, serves: this.serves } = await this.stakeKeeper.check());
    } catch (e) {
      this.stake = 'node-error';
      throw e;
    }
    await this.followRequests();
    for (const r of this.store.active()) {
      try {
        await this.steps.advance(r);
      } catch (e) {
        // A miner's answer or a prompt changed the record meanwhile: the next tick starts from it.
        if (e instanceof StaleRecordError) continue;
        this.log.warn({ request_id: r.requestId, stage: r.stage, err: (e as Error).message }, 'step failed; retrying at the next tick');
      }
    }
    await this.auditor.run();
    if (await this.dispatcher.run()) this.again = true;
    await this.payments.run();
    this.lastError = null;
  }

  /** Whether the chain would take this bridge's COMMIT: the request names no executor, or this bridge. */
  private mayCommit(c: ChainRequest): boolean {
    return c.executor === null || c.executor === this.config.opoiAddress;
  }

  /** OPEN work, or VERIFIABLE work under a manifest the stake serves (the chain refuses other COMMITs: bad-opoi-stake-manifest). */
  private serving(c: ChainRequest): boolean {
    return c.task_type === 'OPEN' || (c.task_type === 'VERIFIABLE' && this.serves.includes(c.model));
  }

  /** New PENDING requests this bridge may answer join the store; those bound to another staker never do. */
  private async followRequests(): Promise<void> {
    const pending = await this.rpc.call('listopoirequests', ['PENDING']);
    const fresh = pending.filter((c) => this.serving(c) && this.mayCommit(c) && !this.store.request(c.request_id));
    const records: RequestRecord[] = [];
    for (const c of fresh) records.push(await this.fromChain(c));
    if (records.length > 0) await this.store.apply({ newRequests: records });
  }

  /** Ready connections, for /healthz and /metrics. */
  get opoiMiners(): number {
    return this.miners.size;
  }
}
