/**
 * Audits the bridge's address is drawn for (docs/bridge.md, "Audits"): found by polling
 * listopoiaudits with the OPoI address; the published prompt, ids and text read from the PUBLISH's
 * block; replayed by a miner holding the manifest's file (dispatch.ts); its verdict committed
 * (VERDICT_COMMIT) with a salt stored before the commit is sent, revealed in the reveal window, and
 * what the payout pays the address credited to that miner, less the bridge's cut, exactly once.
 */
import { OpoiKind, Transaction, fromHex, payloadOrNull, toHex } from '@cs/consensus';
import { RpcError, type RpcResult } from '@cs/client';
import { amountFromValue } from '@cs/runtime/amount';
import { parseOpoiManifest } from '@cs/stratum';
import { type AuditJob, type SentTx, StaleRecordError } from '../store/store.ts';
import { type ChainRequest, type EngineContext, SETTLED } from './context.ts';
import { crashPoint } from './crash-point.ts';
import { minerLabel, overdue } from './dispatch.ts';
import { announceHolder } from './sent.ts';
import { minerShare } from './steps.ts';

type OpenAudit = RpcResult<'listopoiaudits'>[number];

export class Auditor {
  constructor(private readonly ctx: EngineContext) {}

  async run(): Promise<void> {
    await this.discover();
    for (const job of this.ctx.store.activeAudits()) {
      try {
        await this.advance(job);
      } catch (e) {
        if (e instanceof StaleRecordError) continue;
        this.ctx.log.warn({ request_id: job.requestId, stage: job.stage, err: (e as Error).message }, 'audit step failed; retrying at the next tick');
      }
    }
  }

  private async set(job: AuditJob, change: Partial<AuditJob>, sent?: { txid: string; kind: SentTx['kind'] }): Promise<AuditJob> {
    const next = { ...job, ...change };
    await this.ctx.store.apply({ audits: [next], sent: sent ? { [sent.txid]: { kind: sent.kind, requestId: job.requestId } } : undefined });
    return next;
  }

  /** New draws of this address, each stored with what the replay needs. */
  private async discover(): Promise<void> {
    const { rpc, store, log, config } = this.ctx;
    for (const a of await rpc.call('listopoiaudits', [config.opoiAddress])) {
      if (store.audit(a.request_id) || a.next_step === 'done') continue;
      let job: AuditJob;
      try {
        job = await this.fromChain(a);
      } catch (e) {
        log.warn({ request_id: a.request_id, err: (e as Error).message }, 'cannot read the published answer of a drawn audit yet');
        continue;
      }
      try {
        await store.apply({ audits: [job] });
      } catch (e) {
        if (!(e instanceof StaleRecordError)) throw e;
        continue;
      }
      log.info({ request_id: a.request_id, model: a.model, winner: a.winner, commit_until: a.commit_close }, 'drawn as an auditor');
    }
  }

  /** The PUBLISH read from its block (getrawtransaction with the block hash needs no -txindex). */
  private async fromChain(a: OpenAudit): Promise<AuditJob> {
    const { rpc } = this.ctx;
    const request = await rpc.call('getopoirequest', [a.request_id]);
    const manifest = parseOpoiManifest(await rpc.call('getmodelmanifest', [a.model]));
    const block = await rpc.call('getblockhash', [a.publish.height]);
    const hex = await rpc.call('getrawtransaction', [a.publish.txid, 0, block]);
    const payload = payloadOrNull(Transaction.decode(fromHex(hex as string), { allowWitness: true }));
    if (payload?.kind !== OpoiKind.PUBLISH) throw new Error(`transaction ${a.publish.txid} is not a PUBLISH`);
    return {
      requestId: a.request_id,
      model: a.model,
      manifest,
      promptHex: toHex(payload.prompt),
      tokenIds: [...payload.tokens],
      textHex: toHex(payload.output),
      maxTokens: request.max_tokens,
      stage: 'drawn',
      attempt: 0,
      assigned: null,
      passed: [],
      updatedAt: Date.now(),
    };
  }

  private async advance(record: AuditJob): Promise<void> {
    const { rpc, log, config } = this.ctx;
    let job = record;
    const chain = await rpc.call('getopoirequest', [job.requestId]).catch((e) => {
      if (e instanceof RpcError && e.code === -5) return null;
      throw e;
    });
    const audit = chain?.audit;
    const me = audit?.auditors.find((x) => x.address === config.opoiAddress);
    // A reorg took the PUBLISH or the draw away: keep the job, it may come back.
    if (!chain || !audit || !me) return;
    const next = this.ctx.height + 1;
    const open = chain.status === 'AUDITING';
    if (job.stage === 'drawn' || job.stage === 'assigned') {
      if (!open || next > audit.commit_close) {
        await this.missed(job, 'no verdict before the verdict commit window closed (no miner holding the file gave one)');
        return;
      }
      const late = job.stage === 'assigned' ? overdue(this.ctx, job.assigned!) : null;
      if (late) {
        log.warn({ request_id: job.requestId, miner: minerLabel(job.assigned!), why: late }, 'the drawn audit got no verdict; another miner gets it');
        await this.set(job, { stage: 'drawn', assigned: null, passed: [...job.passed, minerLabel(job.assigned!)] });
      }
      return;
    }
    if (job.stage === 'decided') {
      if (me.committed) job = await this.set(job, { stage: 'committed', commitTxid: me.commit_txid ?? undefined });
      else if (!open || next > audit.commit_close) return this.missed(job, 'the verdict commit window closed before the VERDICT_COMMIT confirmed');
      else return this.commit(job);
    }
    if (job.stage === 'committed') {
      if (me.verdict !== null) job = await this.set(job, { stage: 'revealed', revealTxid: me.reveal_txid ?? undefined });
      else if (!open || next > audit.reveal_deadline) return this.missed(job, 'the reveal window closed before the VERDICT_REVEAL confirmed');
      else if (!me.committed || next <= audit.commit_close) return;
      else return this.reveal(job);
    }
    if (job.stage === 'revealed' && SETTLED.has(chain.status)) await this.settle(job, chain);
  }

  private async missed(job: AuditJob, note: string): Promise<void> {
    this.ctx.log.warn({ request_id: job.requestId }, `drawn audit missed: ${note}`);
    await this.set(job, { stage: 'missed', assigned: null, note });
  }

  private async commit(job: AuditJob): Promise<void> {
    const { rpc, log, config } = this.ctx;
    try {
      const c = await rpc.call('submitopoiverdictcommit', [job.requestId, config.opoiAddress, job.verdict!, job.salt!]);
      crashPoint('after-verdict-commit-sent');
      await this.set(job, { stage: 'committed', commitTxid: c.txid }, { txid: c.txid, kind: 'VERDICT_COMMIT' });
      log.info({ request_id: job.requestId, txid: c.txid, verdict: job.verdict, reveal_from: c.reveal_from_height }, 'VERDICT_COMMIT sent');
    } catch (e) {
      // Ours may be in the mempool or confirmed already (a crash before recording it): adopted from the chain.
      if (await announceHolder(this.ctx, e)) return;
      if (e instanceof RpcError && /verdict-duplicate|already committed/.test(e.message)) return;
      throw e;
    }
  }

  private async reveal(job: AuditJob): Promise<void> {
    const { rpc, log, config } = this.ctx;
    try {
      const v = await rpc.call('submitopoiverdict', [job.requestId, config.opoiAddress, job.verdict!, job.salt!]);
      crashPoint('after-verdict-reveal-sent');
      await this.set(job, { stage: 'revealed', revealTxid: v.txid }, { txid: v.txid, kind: 'VERDICT_REVEAL' });
      log.info({ request_id: job.requestId, txid: v.txid, verdict: job.verdict }, 'VERDICT_REVEAL sent');
    } catch (e) {
      if (await announceHolder(this.ctx, e)) return;
      if (e instanceof RpcError && /verdict-duplicate|verdict-early|already revealed/.test(e.message)) return;
      throw e;
    }
  }

  /**
   * The outcome is in: what the payout pays this address (a round-0 fee and a bond share when
   * valid, a share of the forfeited collateral when invalid; nothing when our verdict lost or the
   * request expired) is claimed if nobody did, and credited to the miner once it confirms.
   */
  private async settle(job: AuditJob, chain: ChainRequest): Promise<void> {
    const { rpc, store, log, config } = this.ctx;
    const earned = chain.payout_outputs.filter((o) => o.address === config.opoiAddress).reduce((sum, o) => sum + amountFromValue(o.amount), 0n);
    const outcome = chain.audit?.outcome ?? chain.status;
    if (earned === 0n) {
      await this.set(job, { stage: 'unpaid', note: `outcome ${outcome}: the payout pays this auditor nothing (verdict ${job.verdict})` });
      log.info({ request_id: job.requestId, outcome, verdict: job.verdict }, 'audit ended without pay for this auditor');
      return;
    }
    if (chain.payout_status === 'claimable') {
      const claim = await rpc.call('claimopoipayout', [job.requestId]);
      if (!claim.existing) {
        await store.apply({ sent: { [claim.txid]: { kind: 'payout', requestId: job.requestId } } });
        log.info({ request_id: job.requestId, txid: claim.txid }, 'audit payout claimed');
      }
      return;
    }
    if (chain.payout_status !== 'confirmed') return;
    const share = minerShare(this.ctx, earned);
    const miner = job.miner!;
    await store.apply({
      audits: [{ ...job, stage: 'paid', credited: share.toString(), note: `outcome ${outcome}` }],
      balances: [{ wallet: miner.wallet, pending: share, paid: 0n }],
    });
    log.info(
      { request_id: job.requestId, wallet: miner.wallet, earned: earned.toString(), share: share.toString() },
      "auditing miner's share credited",
    );
  }
}
