/**
 * Handing work to miners: queued requests (opoi.assign), VERIFIABLE answers to check before their
 * COMMIT and drawn audits (both opoi.audit). A miner runs at most its announced `concurrency` of
 * them at once; VERIFIABLE work and audits go only to a miner whose announced files hold the
 * manifest's exact file (and, for audits, that takes them).
 */
import { type OpoiManifest, encodeOpoiAssign, encodeOpoiAudit, opoiAssignmentFits } from '@cs/stratum';
import type { MinerConnection } from '../relay/relay.ts';
import { type Assignment, type AuditJob, type BridgeStore, StaleRecordError } from '../store/store.ts';
import type { EngineContext } from './context.ts';

/** wallet.worker, as assignments and `passed` lists name a miner. */
export const minerLabel = (m: { wallet: string | null; worker: string | null }) => `${m.wallet}.${m.worker}`;

/** How an opoi.audit names its work: `c<n>:<request>` a pre-commit check, `a<n>:<request>` a drawn audit (n: the attempt). */
export function auditIdOf(kind: 'check' | 'audit', attempt: number, requestId: string): string {
  return `${kind === 'check' ? 'c' : 'a'}${attempt}:${requestId}`;
}

export function readAuditId(id: string): { kind: 'check' | 'audit'; attempt: number; requestId: string } | null {
  const m = /^([ca])(\d+):(.+)$/.exec(id);
  return m ? { kind: m[1] === 'c' ? 'check' : 'audit', attempt: Number(m[2]), requestId: m[3] } : null;
}

/** Work each connection runs now: assignments, pre-commit checks and drawn audits. */
function loads(store: BridgeStore): Map<number, number> {
  const load = new Map<number, number>();
  const add = (a: Assignment | null | undefined) => {
    if (a) load.set(a.conn, (load.get(a.conn) ?? 0) + 1);
  };
  for (const r of store.active()) {
    if (r.stage === 'assigned') add(r.assigned);
    if (r.stage === 'checking') add(r.submission?.check?.assigned);
  }
  for (const j of store.activeAudits()) if (j.stage === 'assigned') add(j.assigned);
  return load;
}

const assignment = (m: MinerConnection): Assignment => ({ conn: m.id, wallet: m.wallet!, worker: m.worker!, at: Date.now() });

export class Dispatcher {
  constructor(private readonly ctx: EngineContext) {}

  /** One round of handing out; true when a check was settled without a miner (the next tick commits it). */
  async run(): Promise<boolean> {
    const load = loads(this.ctx.store);
    if (this.ctx.stake === 'active') await this.assign(load);
    const settled = await this.checks(load);
    await this.audits(load);
    return settled;
  }

  /**
   * Miners that fit `task` (and take audits, for `audit`), with room for one more: those that never
   * passed on it first, then those that passed longest ago, then the least busy.
   */
  private candidates(
    load: Map<number, number>,
    task: { model: string; maxTokens: number; prompt: Uint8Array; manifest: OpoiManifest | null },
    passed: readonly string[],
    audit: boolean,
    excluded: (m: MinerConnection) => boolean,
  ): MinerConnection[] {
    const capable = [...this.ctx.miners.values()].filter(
      (m) =>
        m.opoi !== null &&
        m.wallet !== null &&
        (!audit || m.opoi.audits) &&
        opoiAssignmentFits(m.opoi, task) === null &&
        (load.get(m.id) ?? 0) < m.opoi.concurrency &&
        !excluded(m),
    );
    const tried = (m: MinerConnection) => passed.lastIndexOf(minerLabel(m));
    return capable.sort((a, b) => tried(a) - tried(b) || (load.get(a.id) ?? 0) - (load.get(b.id) ?? 0) || a.id - b.id);
  }

  /** Writes `next` unless the record changed meanwhile (a miner's answer): false then. */
  private async wrote(write: Promise<void>): Promise<boolean> {
    try {
      await write;
      return true;
    } catch (e) {
      if (e instanceof StaleRecordError) return false;
      throw e;
    }
  }

  /** Queued requests with a prompt go to a capable miner, oldest request first. */
  private async assign(load: Map<number, number>): Promise<void> {
    const { store, log } = this.ctx;
    const queued = store.active().filter((r) => r.stage === 'queued' && r.prompt !== null);
    for (const r of queued.sort((a, b) => a.blockHeight - b.blockHeight)) {
      const manifest = r.taskType === 'VERIFIABLE' ? r.manifest! : null;
      const task = { model: r.model, maxTokens: r.maxTokens, prompt: Buffer.from(r.prompt!, 'utf8'), manifest };
      const refused = new Set(r.refused ?? []);
      const [m] = this.candidates(load, task, r.passed, false, (c) => refused.has(c.wallet!));
      if (!m) continue;
      if (!(await this.wrote(store.apply({ requests: [{ ...r, stage: 'assigned', assigned: assignment(m) }] })))) continue;
      load.set(m.id, (load.get(m.id) ?? 0) + 1);
      m.sendOpoi(encodeOpoiAssign({ requestId: r.requestId, taskType: r.taskType ?? 'OPEN', taskClass: null, ...task }));
      log.info({ request_id: r.requestId, conn: m.id, wallet: m.wallet, worker: m.worker, task_type: r.taskType ?? 'OPEN' }, 'request assigned');
    }
  }

  /**
   * A VERIFIABLE answer goes to a second miner holding the file, of another wallet than the one that
   * answered (a cheat's own rigs would pass it), before the bridge commits to it. Without one the
   * answer is committed unchecked, and the log says so: the drawn auditors still replay it.
   */
  private async checks(load: Map<number, number>): Promise<boolean> {
    const { store, log } = this.ctx;
    let settled = false;
    for (const r of store.active()) {
      const s = r.submission;
      if (r.stage !== 'received' || r.taskType !== 'VERIFIABLE' || !s || (s.check && s.check.verdict !== null)) continue;
      const tried = s.check?.tried ?? [];
      const prompt = Buffer.from(r.prompt!, 'utf8');
      const task = { model: r.model, maxTokens: r.maxTokens, prompt, manifest: r.manifest! };
      // Neither the answering wallet nor one caught cheating on this request checks it.
      const refused = new Set([s.wallet, ...(r.refused ?? [])]);
      const [m] = this.candidates(load, task, tried, true, (c) => refused.has(c.wallet!) || tried.includes(minerLabel(c)));
      if (!m) {
        const check = { auditId: s.check?.auditId ?? '', assigned: null, verdict: 'unchecked' as const, tried };
        if (await this.wrote(store.apply({ requests: [{ ...r, submission: { ...s, check } }] }))) {
          log.warn(
            { request_id: r.requestId, wallet: s.wallet, worker: s.worker, tried },
            'no second miner holding the file can check this VERIFIABLE answer: committing it unchecked',
          );
          settled = true;
        }
        continue;
      }
      const auditId = auditIdOf('check', tried.length + 1, r.requestId);
      const check = { auditId, assigned: assignment(m), verdict: null, tried: [...tried, minerLabel(m)] };
      if (!(await this.wrote(store.apply({ requests: [{ ...r, stage: 'checking', submission: { ...s, check } }] })))) continue;
      load.set(m.id, (load.get(m.id) ?? 0) + 1);
      m.sendOpoi(
        encodeOpoiAudit({
          auditId,
          requestId: r.requestId,
          manifest: r.manifest!,
          prompt,
          tokenIds: s.tokenIds ?? [],
          text: Buffer.from(s.responseHex, 'hex'),
          maxTokens: r.maxTokens,
        }),
      );
      log.info(
        { request_id: r.requestId, audit_id: auditId, conn: m.id, wallet: m.wallet, worker: m.worker },
        'answer sent to a second miner to check',
      );
    }
    return settled;
  }

  /** Drawn audits waiting for a miner go to one holding the file (any wallet: the answer is another staker's). */
  private async audits(load: Map<number, number>): Promise<void> {
    const { store, log } = this.ctx;
    for (const job of store.activeAudits()) {
      if (job.stage !== 'drawn') continue;
      const prompt = Buffer.from(job.promptHex, 'hex');
      const task = { model: job.model, maxTokens: job.maxTokens, prompt, manifest: job.manifest };
      const [m] = this.candidates(load, task, job.passed, true, () => false);
      if (!m) continue;
      const attempt = job.attempt + 1;
      const next: AuditJob = { ...job, stage: 'assigned', attempt, assigned: assignment(m) };
      if (!(await this.wrote(store.apply({ audits: [next] })))) continue;
      load.set(m.id, (load.get(m.id) ?? 0) + 1);
      const auditId = auditIdOf('audit', attempt, job.requestId);
      m.sendOpoi(
        encodeOpoiAudit({
          auditId,
          requestId: job.requestId,
          manifest: job.manifest,
          prompt,
          tokenIds: job.tokenIds,
          text: Buffer.from(job.textHex, 'hex'),
          maxTokens: job.maxTokens,
        }),
      );
      log.info({ request_id: job.requestId, audit_id: auditId, conn: m.id, wallet: m.wallet, worker: m.worker }, 'drawn audit sent to a miner');
    }
  }
}

/** Whether a miner's assignment (of a request, a check or an audit) went stale: the connection left or the time ran out. */
export function overdue(ctx: EngineContext, a: Assignment): 'gone' | 'timeout' | null {
  if (!ctx.miners.has(a.conn)) return 'gone';
  return Date.now() - a.at > ctx.config.assignTimeoutMs ? 'timeout' : null;
}
