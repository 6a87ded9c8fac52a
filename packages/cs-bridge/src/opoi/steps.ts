/**
 * One request's chain steps, as far as the chain lets it go in a tick: COMMIT, REVEAL after the
 * commit window, publish (the answer off chain for OPEN; the PUBLISH of the prompt, ids and text
 * for VERIFIABLE, which the audit needs), claim and the miners' shares. Each step first looks at
 * the chain for what an earlier, interrupted run may have done (our commit, reveal or publish, a
 * payout), then acts, then records the result in one store transaction.
 */
import { RpcError } from '@cs/client';
import { amountFromValue } from '@cs/runtime/amount';
import type { RequestRecord, SentTx } from '../store/store.ts';
import type { ChainRequest, EngineContext } from './context.ts';
import { crashPoint } from './crash-point.ts';
import { overdue } from './dispatch.ts';
import { requeue } from './results.ts';
import { announceHolder } from './sent.ts';

/** What a share of `amount` base units is after the bridge's cut (POOL_FEE_PERCENT), rounded down. */
export function minerShare(ctx: EngineContext, amount: bigint): bigint {
  return (amount * BigInt(10_000 - ctx.config.feeBasisPoints)) / 10_000n;
}

export class RequestSteps {
  constructor(private readonly ctx: EngineContext) {}

  /** Records a change of `r`, and the transaction `txid` of `kind` it sent, in one store transaction. */
  private async set(r: RequestRecord, change: Partial<RequestRecord>, sent?: { txid: string; kind: SentTx['kind'] }): Promise<RequestRecord> {
    const next = { ...r, ...change };
    await this.ctx.store.apply({ requests: [next], sent: sent ? { [sent.txid]: { kind: sent.kind, requestId: r.requestId } } : undefined });
    return next;
  }

  async advance(record: RequestRecord): Promise<void> {
    const { rpc, config, log } = this.ctx;
    let r = record;
    const chain = await rpc.call('getopoirequest', [r.requestId]).catch((e) => {
      // A reorg took the REQUEST away: keep the record, it may come back.
      if (e instanceof RpcError && e.code === -5) return null;
      throw e;
    });
    if (!chain) return;
    const us = config.opoiAddress;
    const ours = chain.commits.find((c) => c.miner === us);
    const verifiable = r.taskType === 'VERIFIABLE';
    if (chain.status !== 'PENDING' && !ours) {
      await this.set(r, { stage: 'expired', assigned: null, note: `request ${chain.status} without a commit of this bridge` });
      return;
    }
    if (r.stage === 'awaiting_prompt' || r.stage === 'queued') return;
    if (r.stage === 'assigned') {
      const late = overdue(this.ctx, r.assigned!);
      if (late) {
        const { wallet, worker } = r.assigned!;
        log.warn(
          { request_id: r.requestId, wallet, worker },
          late === 'gone' ? 'assigned miner disconnected; reassigning' : 'assignment timed out; reassigning',
        );
        await requeue(this.ctx, r);
      }
      return;
    }
    const s = r.submission;
    if (!s) return;
    if (r.stage === 'checking') {
      const late = overdue(this.ctx, s.check!.assigned!);
      if (!late) return;
      log.warn({ request_id: r.requestId, checker: s.check!.tried.at(-1), why: late }, 'the check got no verdict; another miner checks');
      await this.set(r, { stage: 'received', submission: { ...s, check: { ...s.check!, assigned: null } } });
      return;
    }
    if (r.stage === 'received') {
      if (ours) {
        r = await this.set(r, { stage: 'committed', submission: { ...s, commitTxid: ours.commit_txid, commitment: ours.commitment } });
      } else {
        // A VERIFIABLE answer is committed once checked, or once no second miner can check it (dispatch.ts).
        if (verifiable && s.check?.verdict !== 'valid' && s.check?.verdict !== 'unchecked') return;
        const next = await this.commit(r);
        if (!next) return;
        r = next;
      }
    }
    const sub = r.submission!;
    if (r.stage === 'committed') {
      if (ours?.revealed) {
        r = await this.set(r, { stage: 'revealed', submission: { ...sub, revealTxid: ours.reveal_txid } });
      } else {
        if (!ours || !chain.commit_window_closed) return;
        if (chain.status !== 'PENDING') return this.closeUnrevealed(r, chain);
        const next = await this.reveal(r);
        if (!next) return;
        r = next;
      }
    }
    if (r.stage === 'revealed') {
      // Content is stored by the node only once a reveal on the active chain names its hash.
      if (!ours?.revealed) return chain.status === 'PENDING' ? undefined : this.closeUnrevealed(r, chain);
      if (!verifiable) {
        await rpc.call('submitopoicontent', [r.requestId, 'RESPONSE', r.submission!.responseHex]);
        crashPoint('after-publish');
        r = await this.set(r, { stage: 'published' });
        log.info({ request_id: r.requestId }, 'response published');
      }
    }
    if (chain.status === 'PENDING') return;
    if (chain.status === 'EXPIRED' || chain.winner !== us) {
      await this.set(r, { stage: chain.status === 'EXPIRED' ? 'expired' : 'lost', note: this.closedNote(chain) });
      return;
    }
    if (r.stage === 'revealed') {
      const next = await this.publish(r, chain);
      if (!next) return;
      r = next;
    }
    if (chain.status === 'PUBLISHING' || chain.status === 'AUDITING') return;
    if (chain.status === 'REJECTED') {
      const note = `the auditors found the answer of ${sub.wallet}.${sub.worker} invalid: the collateral is forfeited and the miner is not paid`;
      log.error({ request_id: r.requestId, wallet: sub.wallet, worker: sub.worker, forfeited: chain.audit?.forfeited }, note);
      await this.set(r, { stage: 'rejected', note });
      return;
    }
    if (r.stage === 'published') {
      const claim = await rpc.call('claimopoipayout', [r.requestId]);
      crashPoint('after-claim-sent');
      r = await this.set(r, { stage: 'claimed', submission: { ...r.submission!, claimTxid: claim.txid } }, { txid: claim.txid, kind: 'payout' });
      log.info({ request_id: r.requestId, txid: claim.txid }, 'payout claimed');
    }
    if (r.stage === 'claimed' && chain.payout_status === 'confirmed') await this.credit(r, chain);
  }

  private closedNote(chain: ChainRequest): string {
    if (chain.status !== 'EXPIRED') return `won by ${chain.winner}`;
    if (chain.task_type !== 'VERIFIABLE' || chain.winner === null) return 'expired';
    return chain.audit ? 'expired unaudited: no verdict was revealed; the requester is refunded' : 'expired: not published in time';
  }

  private async commit(r: RequestRecord): Promise<RequestRecord | null> {
    if (this.ctx.stake !== 'active') return null;
    const s = r.submission!;
    try {
      const c = await this.ctx.rpc.call('submitopoiresponsecommit', [
        r.requestId,
        s.responseHash,
        this.ctx.config.opoiAddress,
        null,
        s.tokenCount,
        s.nonce,
      ]);
      crashPoint('after-commit-sent');
      const next = await this.set(
        r,
        { stage: 'committed', submission: { ...s, commitTxid: c.txid, commitment: c.commitment } },
        { txid: c.txid, kind: 'COMMIT' },
      );
      this.ctx.log.info({ request_id: r.requestId, txid: c.txid }, 'COMMIT sent');
      return next;
    } catch (e) {
      // Our earlier COMMIT may be in the mempool (a crash before recording it): wait for its block.
      if (await announceHolder(this.ctx, e)) return null;
      if (e instanceof RpcError && /commit-duplicate/.test(e.message)) return null;
      if (e instanceof RpcError && /bad-opoi-commit-window|commits-full|request-closed/.test(e.message)) {
        await this.set(r, { stage: 'expired', note: e.message });
        return null;
      }
      throw e;
    }
  }

  private async reveal(r: RequestRecord): Promise<RequestRecord | null> {
    const sub = r.submission!;
    try {
      const v = await this.ctx.rpc.call('submitopoiresponse', [
        r.requestId,
        sub.responseHash,
        this.ctx.config.opoiAddress,
        sub.commitment!,
        sub.tokenCount,
        sub.nonce,
      ]);
      crashPoint('after-reveal-sent');
      const next = await this.set(r, { stage: 'revealed', submission: { ...sub, revealTxid: v.txid } }, { txid: v.txid, kind: 'REVEAL' });
      this.ctx.log.info({ request_id: r.requestId, txid: v.txid }, 'REVEAL sent');
      return next;
    } catch (e) {
      if (await announceHolder(this.ctx, e)) return null;
      if (e instanceof RpcError && /reveal-duplicate|reveal-early/.test(e.message)) return null;
      throw e;
    }
  }

  /**
   * The PUBLISH of a VERIFIABLE answer this bridge won: the prompt, the token ids and the text, in
   * the publish window (unpublished, the request expires and the requester is refunded).
   */
  private async publish(r: RequestRecord, chain: ChainRequest): Promise<RequestRecord | null> {
    const s = r.submission!;
    if (chain.publish) return this.set(r, { stage: 'published', submission: { ...s, publishTxid: chain.publish.txid } });
    if (chain.status !== 'PUBLISHING') return null;
    const text = Buffer.from(s.responseHex, 'hex').toString('utf8');
    try {
      const p = await this.ctx.rpc.call('publishopoianswer', [r.requestId, r.prompt!, text, [...(s.tokenIds ?? [])]]);
      crashPoint('after-publish');
      const next = await this.set(r, { stage: 'published', submission: { ...s, publishTxid: p.txid } }, { txid: p.txid, kind: 'PUBLISH' });
      this.ctx.log.info({ request_id: r.requestId, txid: p.txid, draw_height: p.audit_draw_height }, 'answer published on chain (PUBLISH)');
      return next;
    } catch (e) {
      // Our PUBLISH may be in the mempool already (a crash before recording it): wait for its block.
      if (await announceHolder(this.ctx, e)) return null;
      if (e instanceof RpcError && /publish-duplicate|was published/.test(e.message)) return null;
      throw e;
    }
  }

  /**
   * The payout confirmed: the winner amount, less the bridge's cut, goes to the miner that answered;
   * for a VERIFIABLE answer checked by a second miner, that miner's part of it is what a round-0
   * auditor earns for the same replay (the request's audit_fee, less the cut).
   */
  private async credit(r: RequestRecord, chain: ChainRequest): Promise<void> {
    const s = r.submission!;
    const share = minerShare(this.ctx, amountFromValue(chain.winner_amount ?? 0));
    const checker = s.check?.verdict === 'valid' ? s.check.assigned : null;
    const checkShare = checker ? minerShare(this.ctx, amountFromValue(r.auditFee ?? 0)) : 0n;
    const checkPart = checkShare < share ? checkShare : share;
    const balances = [{ wallet: s.wallet, pending: share - checkPart, paid: 0n }];
    if (checker && checkPart > 0n) balances.push({ wallet: checker.wallet, pending: checkPart, paid: 0n });
    await this.ctx.store.apply({
      requests: [
        {
          ...r,
          stage: 'paid',
          submission: {
            ...s,
            claimTxid: chain.payout_txid ?? s.claimTxid,
            credited: (share - checkPart).toString(),
            ...(checker ? { checkCredited: checkPart.toString() } : {}),
          },
        },
      ],
      balances,
    });
    this.ctx.log.info(
      {
        request_id: r.requestId,
        wallet: s.wallet,
        share: (share - checkPart).toString(),
        checker: checker?.wallet,
        check_share: checkPart.toString(),
      },
      "miner's share credited",
    );
  }

  /** The request resolved without our REVEAL on chain (the bridge was down, or the REVEAL never confirmed): nothing more to win. */
  private async closeUnrevealed(r: RequestRecord, chain: ChainRequest): Promise<void> {
    await this.set(r, { stage: chain.status === 'EXPIRED' ? 'expired' : 'lost', note: `not revealed before the request was ${chain.status}` });
  }
}
