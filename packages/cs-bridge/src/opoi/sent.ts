/**
 * The bridge's transactions until they are buried. One the node dropped from its mempool for good
 * (an OPoI action whose window passed before a block took it) is abandoned: the wallet would
 * otherwise count its inputs spent for ever, and the OPoI address, whose actions each spend the
 * change of the one before, would have no coin left to act with. The step that sent it goes back
 * a stage, so that the next tick takes it again while the chain still allows it.
 */
import { RpcError, followSent as fateOf } from '@cs/client';
import type { AuditJob, AuditStage, RequestRecord, SentTx, Stage } from '../store/store.ts';
import type { EngineContext } from './context.ts';

/**
 * The bridge follows each transaction it sent until this many confirmations: one a reorg takes
 * back may yet become unable to confirm (a REVEAL past its window), and its coins must come back.
 */
const FOLLOW_DEPTH = 6;

type RequestTxid = 'commitTxid' | 'revealTxid' | 'publishTxid' | 'claimTxid';

/** A request's step whose transaction was abandoned: the stage the record is at, the one it goes back to, and where its txid is. */
const RETAKE: Readonly<Partial<Record<SentTx['kind'], { at: Stage; back: Stage; txid: RequestTxid }>>> = {
  COMMIT: { at: 'committed', back: 'received', txid: 'commitTxid' },
  REVEAL: { at: 'revealed', back: 'committed', txid: 'revealTxid' },
  PUBLISH: { at: 'published', back: 'revealed', txid: 'publishTxid' },
  payout: { at: 'claimed', back: 'published', txid: 'claimTxid' },
};

/** The same for an audit's verdict steps (a payout claim of an audit is taken again from the chain's payout status). */
const AUDIT_RETAKE: Readonly<Partial<Record<SentTx['kind'], { at: AuditStage; back: AuditStage; txid: 'commitTxid' | 'revealTxid' }>>> = {
  VERDICT_COMMIT: { at: 'committed', back: 'decided', txid: 'commitTxid' },
  VERDICT_REVEAL: { at: 'revealed', back: 'committed', txid: 'revealTxid' },
};

export async function followSent(ctx: EngineContext): Promise<void> {
  const { store, rpc, log } = ctx;
  for (const [txid, what] of store.sent()) {
    const fate = await fateOf(rpc, txid, FOLLOW_DEPTH);
    if (fate === 'pending') continue;
    let requests: RequestRecord[] = [];
    let audits: AuditJob[] = [];
    if (fate === 'released') {
      log.warn({ txid, what }, 'transaction can no longer confirm: abandoned, its coins are spendable again');
      const id = what.requestId ?? '';
      const step = RETAKE[what.kind];
      const r = store.request(id);
      if (step && r?.stage === step.at && r.submission?.[step.txid] === txid) {
        requests = [{ ...r, stage: step.back, submission: { ...r.submission, [step.txid]: undefined } }];
      }
      const auditStep = AUDIT_RETAKE[what.kind];
      const job = store.audit(id);
      if (auditStep && job?.stage === auditStep.at && job[auditStep.txid] === txid) {
        audits = [{ ...job, stage: auditStep.back, [auditStep.txid]: undefined }];
      }
    }
    await store.apply({ sent: { [txid]: null }, requests, audits });
  }
}

/**
 * A step the node refused because an earlier transaction of ours holds its place in the mempool
 * (opoi-mempool-conflict: sent, then a crash before it was recorded). The node may never have told
 * its peers of it: it was still queued when the node stopped, or the peers connected later, and
 * Core's schedule announces it again only minutes later, past an OPoI window on regtest. Sending
 * it again makes the node announce it now (sendrawtransaction of a mempool transaction). True when
 * that was the refusal; the step then waits for the chain to show it.
 */
export async function announceHolder(ctx: EngineContext, e: unknown): Promise<boolean> {
  if (!(e instanceof RpcError)) return false;
  const holder = /opoi-mempool-conflict, .* is taken by ([0-9a-f]{64})/.exec(e.message)?.[1];
  if (!holder) return false;
  try {
    const hex = await ctx.rpc.call('getrawtransaction', [holder]);
    await ctx.rpc.call('sendrawtransaction', [hex as string]);
  } catch (err) {
    // Mined or gone meanwhile: the chain, or the next try, says which.
    ctx.log.debug({ txid: holder, err: (err as Error).message }, 'could not announce the transaction holding the step');
  }
  return true;
}
