/**
 * The miner: the stratum session feeds jobs to the solver threads, their shares go back to the
 * pool, opoi.assign goes to the OPoI worker, and a status line reports every -statusinterval.
 */
import { HEADER_INPUT_BYTES, compactToTarget, hashToBigInt } from '@cs/consensus';
import { shareHash, submitParams } from '@cs/stratum';
import type { MinerConfig } from '../config/config.ts';
import { isVerifiable, type InferenceBackend } from '../opoi/backends/backend.ts';
import { OpoiWorker } from '../opoi/worker.ts';
import type { FoundShare } from '../solver/messages.ts';
import { SolverPool } from '../solver/solver-pool.ts';
import { StratumSession, type Work } from '../stratum/session.ts';
import type { Log } from './log.ts';

export const USER_AGENT = 'cs-miner/0.1.0';

export interface ShareCounts {
  accepted: number;
  rejected: number;
  stale: number;
  /** Accepted shares whose hash also met the block target. */
  blocks: number;
}

export class Miner {
  readonly shares: ShareCounts = { accepted: 0, rejected: 0, stale: 0, blocks: 0 };
  private readonly solver: SolverPool;
  private readonly session: StratumSession;
  private readonly opoi: OpoiWorker | null;
  private work: Work | null = null;
  private statusTimer: NodeJS.Timeout | null = null;
  private last = { at: performance.now(), solutions: 0n };

  constructor(
    private readonly config: MinerConfig,
    private readonly backends: ReadonlyMap<string, InferenceBackend>,
    private readonly log: Log,
  ) {
    const v = config.values;
    const l = log.log;
    this.opoi =
      backends.size > 0
        ? new OpoiWorker(
            backends,
            {
              maxTokens: v['opoi-max-tokens'],
              maxPromptBytes: v['opoi-max-prompt'],
              concurrency: v['opoi-concurrency'],
              timeoutMs: v['opoi-timeout'],
              audits: v['opoi-audits'],
              corrupt: v.corruptanswers,
            },
            l,
          )
        : null;
    this.solver = new SolverPool(
      config.threads,
      config.cpuLimit,
      (s) => this.onShare(s),
      (message) => l('error', 'a solver thread failed', { reason: message }),
    );
    this.session = new StratumSession(
      {
        pools: config.pools,
        user: config.user,
        password: v.password,
        userAgent: USER_AGENT,
        tls: { verify: v.tlsverify || config.tlsCa !== null, ...(config.tlsCa ? { ca: config.tlsCa } : {}) },
        retries: v.retries,
        backoffMinMs: v.retrypause,
        backoffMaxMs: v.retrymax,
        timeoutMs: v.timeout,
        defaultAlgorithm: config.defaultAlgorithm,
        extranonce: v.extranonce,
        opoi: this.opoi && v.opoi ? this.opoi.subscription : null,
      },
      {
        onWork: (w) => this.onWork(w),
        onConnected: (pool) => l('info', 'connected and authorized', { pool: pool.text, user: config.user }),
        onDisconnected: (pool, reason) => l('warn', 'disconnected from the pool', { pool: pool.text, reason }),
        onMessage: (method, params, send) => this.onServerMessage(method, params, send),
        onOpoiSubscribed: (pool, reply) => {
          if (reply.error)
            l('warn', 'the pool does not take OPoI work (opoi.subscribe refused); mining only', { pool: pool.text, reason: reply.error[1] });
          else l('info', 'OPoI support announced', { pool: pool.text, models: config.models.map((m) => m.name) });
        },
        log: l,
      },
    );
  }

  start(): void {
    const v = this.config.values;
    this.log.log('info', 'cs-miner started', {
      threads: this.config.threads,
      cpulimit: this.config.cpuLimit,
      pools: this.config.pools.map((p) => p.text),
      models: this.config.models.map((m) => `${m.name}=${m.backend.kind}`),
    });
    for (const [name, b] of this.backends) {
      if (isVerifiable(b)) this.log.log('info', 'model file', { model: name, gguf_sha256: b.file.sha256, gguf_size: b.file.size });
    }
    if (this.opoi && v.corruptanswers !== 'none') {
      this.log.log('warn', `CORRUPTING EVERY VERIFIABLE ANSWER (-corruptanswers=${v.corruptanswers}), for demonstrations and tests only`, {
        consequence: 'the audits find these answers invalid and the bridge that commits them loses its collateral',
      });
    }
    this.session.start();
    if (v.statusinterval > 0) {
      this.statusTimer = setInterval(() => this.status(), v.statusinterval * 1000);
      this.statusTimer.unref();
    }
  }

  async stop(): Promise<void> {
    if (this.statusTimer) clearInterval(this.statusTimer);
    await this.session.stop();
    await this.solver.close();
    await Promise.all([...this.backends.values()].map((b) => b.close()));
  }

  private onWork(work: Work | null): void {
    this.work = work;
    if (!work) return this.solver.idle();
    const header140 = new Uint8Array(140);
    header140.set(work.headerInput, 0);
    header140.set(work.nonce1, HEADER_INPUT_BYTES);
    this.solver.mine({
      kind: 'job',
      jobId: work.jobId,
      params: work.params,
      header140,
      nonce1Length: work.nonce1.length,
      target: work.target,
    });
  }

  private onShare(share: FoundShare): void {
    const work = this.work;
    // A share of a cleared job, or of a NONCE_1 the pool has since replaced, can only be refused.
    if (
      !work ||
      !this.session.isLive(share.jobId) ||
      !sameBytes(share.header140.subarray(HEADER_INPUT_BYTES, HEADER_INPUT_BYTES + work.nonce1.length), work.nonce1)
    ) {
      return;
    }
    const params = submitParams(this.config.user, share.jobId, share.header140, work.nonce1.length, share.solution);
    const bits = new DataView(share.header140.buffer, share.header140.byteOffset).getUint32(104, true);
    const isBlock = hashToBigInt(shareHash(share.header140, share.solution)) <= compactToTarget(bits).target;
    this.session.submit(params).then((outcome) => {
      if (outcome.kind === 'accepted') {
        this.shares.accepted++;
        if (isBlock) {
          this.shares.blocks++;
          this.log.log('info', 'block found', { job: share.jobId });
        }
        this.log.log('debug', 'share accepted', { job: share.jobId });
      } else {
        this.shares[outcome.kind]++;
        this.log.log('warn', `share ${outcome.kind}`, { job: share.jobId, reason: outcome.reason });
      }
    });
  }

  private onServerMessage(method: string, params: readonly unknown[], send: Parameters<OpoiWorker['assign']>[1]): void {
    if (method === 'opoi.assign' && this.opoi) {
      void this.opoi.assign(params, send);
      return;
    }
    if (method === 'opoi.audit' && this.opoi) {
      void this.opoi.audit(params, send);
      return;
    }
    this.log.log('warn', 'ignored a message the miner does not handle', { method });
  }

  private status(): void {
    const now = performance.now();
    const solutions = this.solver.solutions();
    const rate = (Number(solutions - this.last.solutions) * 1000) / (now - this.last.at);
    this.last = { at: now, solutions };
    const s = this.shares;
    const o = this.opoi?.counts ?? { done: 0, failed: 0, refused: 0, audited: 0, auditsFailed: 0 };
    const algo = this.work ? `${this.work.params.n}_${this.work.params.k}` : '-';
    const pool = this.session.current?.text ?? '-';
    const fields = {
      hashrate: Math.round(rate * 100) / 100,
      threads: this.config.threads,
      algo,
      accepted: s.accepted,
      rejected: s.rejected,
      stale: s.stale,
      blocks: s.blocks,
      opoi_done: o.done,
      opoi_failed: o.failed + o.refused,
      opoi_running: this.opoi?.busy ?? 0,
      opoi_audited: o.audited,
      opoi_audits_failed: o.auditsFailed,
      pool: this.work ? pool : '-',
    };
    this.log.status(
      fields,
      `${fields.hashrate.toFixed(2)} Sol/s (${fields.threads} threads, ${algo}) | shares ${s.accepted} accepted, ${s.rejected} rejected, ${s.stale} stale, ${s.blocks} blocks | OPoI ${o.done} done, ${fields.opoi_failed} failed, ${fields.opoi_running} running, ${o.audited} audited | ${fields.pool}`,
    );
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
