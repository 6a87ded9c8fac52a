/**
 * The OPoI engine: follows the node's PENDING requests, takes prompts, assigns each request with a
 * prompt to a capable connected miner (reassigning silent ones), and drives what the miner's answer
 * becomes on chain: COMMIT, REVEAL after the commit window, publish, claim, and the miner's share.
 *
 * One tick at a time does every node call (serialized), so two steps never race for the wallet's
 * coins. Each step first looks at the chain for what an earlier, interrupted run may already have
 * done (a commit or reveal of our address, a payout), then acts, then records the result in one
 * store transaction: a kill -9 anywhere repeats at most an idempotent node call.
 */
import { randomBytes } from 'node:crypto';
import {
  type OpoiAccepted,
  StratumError,
  StratumErrorCode,
  encodeOpoiAssign,
  opoiAssignmentFits,
  parseOpoiSubmitError,
  parseOpoiSubmitResult,
} from '@cs/stratum';
import { RpcError, type RpcClient, type RpcResult, followSent, promptHash, walletConfirmations } from '@cs/client';
import { amountFromValue } from '@cs/runtime/amount';
import type { Logger } from 'pino';
import type { BridgeConfig } from '../config/env.ts';
import type { MinerConnection, OpoiHandler } from '../relay/relay.ts';
import { type BridgeStore, type RequestRecord, type SentTx, type Stage, StaleRecordError, type Submission } from '../store/store.ts';
import { crashPoint } from './crash-point.ts';
import { Payments } from './payments.ts';
import { readStake, renewDue } from '../node/node-check.ts';

/**
 * The bridge follows each transaction it sent until this many confirmations: one a reorg takes
 * back may yet become unable to confirm (a REVEAL past its window), and its coins must come back.
 */
const FOLLOW_DEPTH = 6;

/**
 * A request's step whose transaction was abandoned (followSent) goes back a stage, so that the
 * next tick takes it again while the chain still allows it: the stage the record is at, the one it
 * goes back to, and where its txid is.
 */
const RETAKE: Readonly<Partial<Record<SentTx['kind'], { at: Stage; back: Stage; txid: 'commitTxid' | 'revealTxid' | 'claimTxid' }>>> = {
  COMMIT: { at: 'committed', back: 'received', txid: 'commitTxid' },
  REVEAL: { at: 'revealed', back: 'committed', txid: 'revealTxid' },
  payout: { at: 'claimed', back: 'published', txid: 'claimTxid' },
};

/** A request as getopoirequest answers it (docs/rpc.md, "The request object"). */
export type ChainRequest = RpcResult<'getopoirequest'>;

export type PromptOutcome =
  | { readonly status: 200; readonly body: { accepted: true; request_id: string; stage: Stage } }
  | { readonly status: 400 | 404 | 409; readonly body: { error: string } };

export type StakeStatus = 'unknown' | 'active' | 'pending' | 'no-stake' | 'inactive' | 'node-error';

export class OpoiEngine implements OpoiHandler {
  private readonly miners = new Map<number, MinerConnection>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;
  private readonly payments: Payments;
  private nextSubmission: number;
  stake: StakeStatus = 'unknown';
  height = 0;
  lastError: string | null = null;

  constructor(
    private readonly config: BridgeConfig,
    private readonly rpc: RpcClient,
    readonly store: BridgeStore,
    private readonly log: Logger,
  ) {
    this.payments = new Payments(config, rpc, store, log);
    this.nextSubmission = store.nextNumber('submission');
  }

  /** Requests assigned to connections of an earlier run go back to the queue. */
  async start(): Promise<void> {
    const requeued = this.store.active().filter((r) => r.stage === 'assigned');
    await this.store.apply({ requests: requeued.map((r) => ({ ...r, stage: 'queued', assigned: null })) });
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
    if (method === 'opoi.submit_result') return this.submitResult(conn, params);
    if (method === 'opoi.submit_error') return this.submitError(conn, params);
    throw new StratumError(StratumErrorCode.OTHER, `unknown method ${method}`);
  }

  /** The request a result or failure names, if it is assigned to this connection and still open. */
  private assignedHere(conn: MinerConnection, requestId: string): RequestRecord {
    const record = this.store.request(requestId);
    if (!record) throw new StratumError(StratumErrorCode.OTHER, 'unknown request');
    if (record.submission) throw new StratumError(StratumErrorCode.OTHER, 'duplicate: a result for this request was accepted already');
    if (record.stage !== 'assigned' || record.assigned?.conn !== conn.id)
      throw new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'request not assigned to this connection');
    return record;
  }

  private async submitResult(conn: MinerConnection, params: readonly unknown[]): Promise<OpoiAccepted> {
    const result = parseOpoiSubmitResult(params);
    const record = this.assignedHere(conn, result.requestId);
    if (result.tokenCount > record.maxTokens) {
      throw new StratumError(StratumErrorCode.OTHER, `token_count must be an integer from 0 to max_tokens (${record.maxTokens})`);
    }
    // Taken synchronously: two answers at once never share a number (one process holds the store).
    const id = this.nextSubmission++;
    const assigned = record.assigned!;
    const submission: Submission = {
      id,
      wallet: assigned.wallet,
      worker: assigned.worker,
      responseHash: result.responseHash,
      responseHex: Buffer.from(result.response).toString('hex'),
      tokenCount: result.tokenCount,
      nonce: randomBytes(32).toString('hex'),
      receivedAt: Date.now(),
    };
    await this.unlessChanged(this.store.apply({ requests: [{ ...record, stage: 'received', submission }], meta: { submission: String(id) } }));
    this.log.info({ request_id: record.requestId, submission_id: id, wallet: submission.wallet, worker: submission.worker }, 'result received');
    this.wake();
    return { accepted: true, submission_id: id };
  }

  /** The miner gives up (opoi.submit_error): another one gets the request at once. */
  private async submitError(conn: MinerConnection, params: readonly unknown[]): Promise<{ accepted: true }> {
    const report = parseOpoiSubmitError(params);
    const record = this.assignedHere(conn, report.requestId);
    this.log.warn({ request_id: record.requestId, conn: conn.id, error: report.error, message: report.message }, 'miner gave up on a request');
    await this.unlessChanged(this.requeue(record));
    this.wake();
    return { accepted: true };
  }

  /** A miner's write that lost to the tick (the assignment timed out meanwhile): 25, as if it had been seen. */
  private async unlessChanged(write: Promise<void>): Promise<void> {
    try {
      await write;
    } catch (e) {
      if (e instanceof StaleRecordError) throw new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'request not assigned to this connection');
      throw e;
    }
  }

  private async requeue(record: RequestRecord): Promise<void> {
    const a = record.assigned!;
    await this.store.apply({ requests: [{ ...record, stage: 'queued', assigned: null, passed: [...record.passed, `${a.wallet}.${a.worker}`] }] });
  }

  // ---- prompts (HTTP) ----

  /** POST /svc/opoi/prompt: the request must be on chain, PENDING, and hash to its prompt hash. */
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
    // The tick may store the request (first seen on chain) or change it between the read and the
    // write: read again and retry until the write is made from the current record.
    for (;;) {
      const known = this.store.request(id);
      if (known?.prompt) return { status: 200, body: { accepted: true, request_id: id, stage: known.stage } };
      const record = known ?? this.fromChain(chain);
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

  private fromChain(c: ChainRequest): RequestRecord {
    return {
      requestId: c.request_id,
      model: c.model,
      promptHash: c.prompt_hash,
      maxTokens: c.max_tokens,
      payment: c.payment,
      blockHeight: c.block_height,
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
    await this.followSent();
    await this.checkStake();
    await this.followRequests();
    for (const r of this.store.active()) {
      try {
        await this.advance(r);
      } catch (e) {
        // A miner's answer or a prompt changed the record meanwhile: the next tick starts from it.
        if (e instanceof StaleRecordError) continue;
        this.log.warn({ request_id: r.requestId, stage: r.stage, err: (e as Error).message }, 'step failed; retrying at the next tick');
      }
    }
    await this.assign();
    await this.payments.run();
    this.lastError = null;
  }

  private async checkStake(): Promise<void> {
    const address = this.config.opoiAddress;
    let state: Awaited<ReturnType<typeof readStake>>;
    try {
      state = await readStake(this.rpc, address);
    } catch (e) {
      this.stake = 'node-error';
      throw e;
    }
    if (state.kind === 'none') {
      const pending = this.store.meta('stake_txid');
      if (pending && (await this.alive(pending))) {
        this.stake = 'pending';
        return;
      }
      if (!this.config.stakeUtxo) {
        if (this.stake !== 'no-stake')
          this.log.error({ address }, 'no stake: set OPOI_STAKE_UTXO (or run cs-bridge setup) to stake a coin of the OPoI address');
        this.stake = 'no-stake';
        return;
      }
      const { txid, vout } = this.config.stakeUtxo;
      let r: { txid: string };
      try {
        r = await this.rpc.call('stakeopoi', [address, txid, vout]);
      } catch (e) {
        // The coin is gone or not the address's (-8), or too small (-6): say so once, and keep
        // driving requests already committed; only new work waits for a stake.
        if (!(e instanceof RpcError && (e.code === -8 || e.code === -6 || e.code === -5))) throw e;
        if (this.stake !== 'no-stake')
          this.log.error(
            { address, collateral: `${txid}:${vout}`, err: e.message },
            'no stake: the node refused OPOI_STAKE_UTXO; pick another coin with cs-bridge setup',
          );
        this.stake = 'no-stake';
        return;
      }
      await this.store.apply({ meta: { stake_txid: r.txid }, sent: { [r.txid]: { kind: 'STAKE' } } });
      this.log.info({ txid: r.txid, collateral: `${txid}:${vout}` }, 'stake sent');
      this.stake = 'pending';
      return;
    }
    const { stake } = state;
    if (stake.status === 'UNSTAKING' || stake.status === 'UNSTAKED') {
      this.stake = 'inactive';
      return;
    }
    if (renewDue(stake, this.height)) {
      const pending = this.store.meta('renew_txid');
      if (!pending || !(await this.inMempool(pending))) {
        try {
          const r = await this.rpc.call('renewopoistake', [address]);
          await this.store.apply({ meta: { renew_txid: r.txid }, sent: { [r.txid]: { kind: 'RENEW' } } });
          this.log.info({ txid: r.txid }, 'stake renewal sent');
        } catch (e) {
          // A commit or reveal of ours in the mempool blocks a stake action until it confirms.
          if (!(e instanceof RpcError && /opoi-mempool-conflict/.test(e.message))) throw e;
        }
      }
    }
    this.stake = stake.status === 'ACTIVE' ? 'active' : 'inactive';
  }

  /** Confirmed, or unconfirmed and in the mempool: not conflicted, abandoned or unknown. */
  private async alive(txid: string): Promise<boolean> {
    const confirmations = await walletConfirmations(this.rpc, txid);
    return confirmations !== null && (confirmations > 0 || (confirmations === 0 && (await this.inMempool(txid))));
  }

  /**
   * The bridge's transactions until they are buried. One the node dropped from its mempool for
   * good (an OPoI action whose window passed before a block took it) is abandoned: the wallet
   * would otherwise count its inputs spent for ever, and the OPoI address, whose actions each
   * spend the change of the one before, would have no coin left to act with.
   */
  private async followSent(): Promise<void> {
    for (const [txid, what] of this.store.sent()) {
      const fate = await followSent(this.rpc, txid, FOLLOW_DEPTH);
      if (fate === 'pending') continue;
      let retaken: RequestRecord[] = [];
      if (fate === 'released') {
        this.log.warn({ txid, what }, 'transaction can no longer confirm: abandoned, its coins are spendable again');
        const step = RETAKE[what.kind];
        const r = what.requestId === undefined ? undefined : this.store.request(what.requestId);
        if (step && r?.stage === step.at && r.submission?.[step.txid] === txid) {
          retaken = [{ ...r, stage: step.back, submission: { ...r.submission, [step.txid]: undefined } }];
        }
      }
      await this.store.apply({ sent: { [txid]: null }, requests: retaken });
    }
  }

  private async inMempool(txid: string): Promise<boolean> {
    try {
      await this.rpc.call('getmempoolentry', [txid]);
      return true;
    } catch (e) {
      if (e instanceof RpcError && e.code === -5) return false;
      throw e;
    }
  }

  /** Whether the chain would take this bridge's COMMIT: the request names no executor, or this bridge. */
  private mayCommit(c: ChainRequest): boolean {
    return c.executor === null || c.executor === this.config.opoiAddress;
  }

  /**
   * New PENDING OPEN requests join the store (plain model names are OPEN tasks and are served),
   * except those bound to another staker: no COMMIT of this bridge could count for them.
   */
  private async followRequests(): Promise<void> {
    const pending = await this.rpc.call('listopoirequests', ['PENDING']);
    const fresh = pending.filter((c) => c.task_type === 'OPEN' && this.mayCommit(c) && !this.store.request(c.request_id));
    if (fresh.length > 0) await this.store.apply({ newRequests: fresh.map((c) => this.fromChain(c)) });
  }

  /** Records a change of `r`, and the transaction `txid` of `kind` it sent, in one store transaction. */
  private async set(r: RequestRecord, change: Partial<RequestRecord>, sent?: { txid: string; kind: SentTx['kind'] }): Promise<RequestRecord> {
    const next = { ...r, ...change };
    await this.store.apply({ requests: [next], sent: sent ? { [sent.txid]: { kind: sent.kind, requestId: r.requestId } } : undefined });
    return next;
  }

  /** One request, as far as the chain lets it go in this tick. */
  private async advance(record: RequestRecord): Promise<void> {
    let r = record;
    const chain = await this.rpc.call('getopoirequest', [r.requestId]).catch((e) => {
      // A reorg took the REQUEST away: keep the record, it may come back.
      if (e instanceof RpcError && e.code === -5) return null;
      throw e;
    });
    if (!chain) return;
    const ours = chain.commits.find((c) => c.miner === this.config.opoiAddress);
    const s = r.submission;
    if (chain.status !== 'PENDING' && !ours) {
      await this.set(r, { stage: 'expired', assigned: null, note: `request ${chain.status} without a commit of this bridge` });
      return;
    }
    if (r.stage === 'awaiting_prompt' || r.stage === 'queued' || r.stage === 'assigned') {
      if (r.stage !== 'assigned') return;
      const gone = !this.miners.has(r.assigned!.conn);
      if (gone || Date.now() - r.assigned!.at > this.config.assignTimeoutMs) {
        const { wallet, worker } = r.assigned!;
        this.log.warn(
          { request_id: r.requestId, wallet, worker },
          gone ? 'assigned miner disconnected; reassigning' : 'assignment timed out; reassigning',
        );
        await this.requeue(r);
      }
      return;
    }
    if (!s) return;
    if (r.stage === 'received') {
      if (ours) {
        r = await this.set(r, { stage: 'committed', submission: { ...s, commitTxid: ours.commit_txid, commitment: ours.commitment } });
      } else {
        if (this.stake !== 'active') return;
        try {
          const c = await this.rpc.call('submitopoiresponsecommit', [
            r.requestId,
            s.responseHash,
            this.config.opoiAddress,
            null,
            s.tokenCount,
            s.nonce,
          ]);
          crashPoint('after-commit-sent');
          r = await this.set(
            r,
            { stage: 'committed', submission: { ...s, commitTxid: c.txid, commitment: c.commitment } },
            {
              txid: c.txid,
              kind: 'COMMIT',
            },
          );
          this.log.info({ request_id: r.requestId, txid: c.txid }, 'COMMIT sent');
        } catch (e) {
          // Our earlier COMMIT may be in the mempool (a crash before recording it): wait for its block.
          if (e instanceof RpcError && /opoi-mempool-conflict|commit-duplicate/.test(e.message)) return;
          if (e instanceof RpcError && /bad-opoi-commit-window|commits-full|request-closed/.test(e.message)) {
            await this.set(r, { stage: 'expired', note: e.message });
            return;
          }
          throw e;
        }
      }
    }
    const sub = r.submission!;
    if (r.stage === 'committed') {
      if (ours?.revealed) {
        r = await this.set(r, { stage: 'revealed', submission: { ...sub, revealTxid: ours.reveal_txid } });
      } else {
        if (!ours || !chain.commit_window_closed) return;
        if (chain.status !== 'PENDING') return this.closeUnrevealed(r, chain);
        try {
          const v = await this.rpc.call('submitopoiresponse', [
            r.requestId,
            sub.responseHash,
            this.config.opoiAddress,
            sub.commitment!,
            sub.tokenCount,
            sub.nonce,
          ]);
          crashPoint('after-reveal-sent');
          r = await this.set(r, { stage: 'revealed', submission: { ...sub, revealTxid: v.txid } }, { txid: v.txid, kind: 'REVEAL' });
          this.log.info({ request_id: r.requestId, txid: v.txid }, 'REVEAL sent');
        } catch (e) {
          if (e instanceof RpcError && /opoi-mempool-conflict|reveal-duplicate|reveal-early/.test(e.message)) return;
          throw e;
        }
      }
    }
    if (r.stage === 'revealed') {
      // Content is stored by the node only once a reveal on the active chain names its hash.
      if (!ours?.revealed) return chain.status === 'PENDING' ? undefined : this.closeUnrevealed(r, chain);
      await this.rpc.call('submitopoicontent', [r.requestId, 'RESPONSE', r.submission!.responseHex]);
      crashPoint('after-publish');
      r = await this.set(r, { stage: 'published' });
      this.log.info({ request_id: r.requestId }, 'response published');
    }
    if (chain.status === 'PENDING') return;
    if (chain.status === 'EXPIRED' || chain.winner !== this.config.opoiAddress) {
      await this.set(r, {
        stage: chain.status === 'EXPIRED' ? 'expired' : 'lost',
        note: chain.status === 'EXPIRED' ? 'expired' : `won by ${chain.winner}`,
      });
      return;
    }
    if (r.stage === 'published') {
      const claim = await this.rpc.call('claimopoipayout', [r.requestId]);
      crashPoint('after-claim-sent');
      r = await this.set(r, { stage: 'claimed', submission: { ...r.submission!, claimTxid: claim.txid } }, { txid: claim.txid, kind: 'payout' });
      this.log.info({ request_id: r.requestId, txid: claim.txid }, 'payout claimed');
    }
    if (r.stage === 'claimed' && chain.payout_status === 'confirmed') {
      const won = amountFromValue(chain.winner_amount ?? 0);
      const share = (won * BigInt(10_000 - this.config.feeBasisPoints)) / 10_000n;
      const s2 = r.submission!;
      await this.store.apply({
        requests: [{ ...r, stage: 'paid', submission: { ...s2, claimTxid: chain.payout_txid ?? s2.claimTxid, credited: share.toString() } }],
        balances: [{ wallet: s2.wallet, pending: share, paid: 0n }],
      });
      this.log.info({ request_id: r.requestId, wallet: s2.wallet, share: share.toString() }, "miner's share credited");
    }
  }

  /** The request resolved without our REVEAL on chain (the bridge was down, or the REVEAL never confirmed): nothing more to win. */
  private async closeUnrevealed(r: RequestRecord, chain: ChainRequest): Promise<void> {
    await this.set(r, { stage: chain.status === 'EXPIRED' ? 'expired' : 'lost', note: `not revealed before the request was ${chain.status}` });
  }

  /** Queued requests with a prompt go to the least busy capable miner, those that passed on it last. */
  private async assign(): Promise<void> {
    if (this.stake !== 'active') return;
    const queued = this.store.active().filter((r) => r.stage === 'queued' && r.prompt !== null);
    if (queued.length === 0) return;
    const load = new Map<number, number>();
    for (const r of this.store.active()) if (r.stage === 'assigned') load.set(r.assigned!.conn, (load.get(r.assigned!.conn) ?? 0) + 1);
    for (const r of queued.sort((a, b) => a.blockHeight - b.blockHeight)) {
      const prompt = Buffer.from(r.prompt!, 'utf8');
      const task = { model: r.model, maxTokens: r.maxTokens, prompt };
      const capable = [...this.miners.values()].filter(
        (m) => m.opoi !== null && m.wallet !== null && opoiAssignmentFits(m.opoi, task) === null && (load.get(m.id) ?? 0) < m.opoi.concurrency,
      );
      if (capable.length === 0) continue;
      // Miners that never passed on it first, then those that passed longest ago.
      const passed = (m: MinerConnection) => r.passed.lastIndexOf(`${m.wallet}.${m.worker}`);
      capable.sort((a, b) => passed(a) - passed(b) || (load.get(a.id) ?? 0) - (load.get(b.id) ?? 0) || a.id - b.id);
      const m = capable[0];
      try {
        await this.set(r, { stage: 'assigned', assigned: { conn: m.id, wallet: m.wallet!, worker: m.worker!, at: Date.now() } });
      } catch (e) {
        if (e instanceof StaleRecordError) continue;
        throw e;
      }
      load.set(m.id, (load.get(m.id) ?? 0) + 1);
      m.sendOpoi(encodeOpoiAssign({ requestId: r.requestId, taskType: 'OPEN', taskClass: null, manifest: null, ...task }));
      this.log.info({ request_id: r.requestId, conn: m.id, wallet: m.wallet, worker: m.worker }, 'request assigned');
    }
  }

  /** Ready connections, for /healthz and /metrics. */
  get opoiMiners(): number {
    return this.miners.size;
  }
}
