/**
 * Jobs from csd's getblocktemplate: fetched at start, again at once on ZeroMQ hashblock, on BIP 22
 * long poll answers (the fallback without ZeroMQ, and how new transactions arrive) and every
 * `txRefreshMs` for transactions. A new previous block makes every older job stale (21); a new
 * transaction set only adds a job. Pool jobs pay the pool address; a solo miner's job pays the
 * finder the whole reward, or, with a solo fee (-solofee), the reward minus that fee, which is a
 * second output to the pool.
 */
import { EventEmitter } from 'node:events';
import type { ChainParams, TxOut } from '@cs/consensus';
import { RpcError, type RpcClient, type RpcResult } from '@cs/client';
import { buildJob, prepareTemplate, type BlockTemplate, type Job, type PreparedTemplate } from '@cs/stratum';
import type { Logger } from 'pino';
import { feeOf } from '../accounting/schemes.ts';

/** Jobs of the current previous block kept for late submits after a transaction refresh. */
const MAX_JOBS_PER_BLOCK = 16;
/**
 * How long a hashblock waits for the pending long poll's answer before asking csd itself. csd
 * answers that long poll on the same new tip within a millisecond or two; asking as well would
 * make it build the template twice while the pool writes the new job to its miners.
 */
const LONG_POLL_GRACE_MS = 250;

export interface JobManagerOptions {
  readonly rpc: RpcClient;
  readonly net: ChainParams;
  readonly poolScript: Uint8Array;
  readonly coinbaseTag: Uint8Array;
  /** The solo fee in basis points of a solo job's reward (0 by default: SOLO pays the finder everything). */
  readonly soloFeeBasisPoints: number;
  readonly zmqHashBlock: string | null;
  readonly txRefreshMs: number;
  readonly log: Logger;
}

export interface LiveJob {
  readonly job: Job;
  readonly seen: Set<string>;
  /** '' for pool jobs, the finder's address for solo jobs. */
  readonly payout: string;
}

export interface JobEvents {
  job: [cleanJobs: boolean];
}

export class JobManager extends EventEmitter<JobEvents> {
  template: PreparedTemplate | null = null;
  /** Every live job by id, with the share keys seen for it (duplicates). */
  private readonly jobs = new Map<string, LiveJob>();
  private readonly byPayout = new Map<string, Job>();
  private nextId = 1;
  private stopped = false;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;
  private timer: NodeJS.Timeout | null = null;
  private zmq: { close(): void } | null = null;
  /** The longpollid the pending long poll waits on; null while none is in flight. */
  private longPolling: string | null = null;
  /** Templates taken so far: a request answered after another template came in may carry an older one. */
  private taken = 0;
  /**
   * When the pool first heard of the newest block (performance.now()): its ZeroMQ hashblock, or
   * the long poll's answer when that came first; 0 once its jobs have gone out.
   */
  lastHashBlockAt = 0;

  constructor(private readonly o: JobManagerOptions) {
    super();
  }

  async start(): Promise<void> {
    await this.refresh();
    void this.longPoll();
    if (this.o.zmqHashBlock) await this.subscribeHashBlock(this.o.zmqHashBlock);
    this.timer = setInterval(() => void this.refresh().catch(() => {}), this.o.txRefreshMs);
    this.timer.unref();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.zmq?.close();
  }

  lookup(id: string): LiveJob | undefined {
    return this.jobs.get(id);
  }

  /** The current job for a payout: the pool (null) or a solo finder's output script (hex key). */
  jobFor(solo: { address: string; script: Uint8Array } | null): Job {
    const key = solo ? solo.address : '';
    const existing = this.byPayout.get(key);
    if (existing) return existing;
    const job = this.build(solo);
    this.byPayout.set(key, job);
    return job;
  }

  /** Fetches a template; concurrent callers share one request, and a call during it runs once more after. */
  refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return this.refreshing;
    }
    this.refreshing = (async () => {
      try {
        do {
          this.refreshAgain = false;
          const sent = this.sent();
          const t = await this.o.rpc.call('getblocktemplate', [{ rules: ['segwit'] }]);
          if (!this.accept(templateOf(t), sent)) this.refreshAgain = true;
        } while (this.refreshAgain && !this.stopped);
      } finally {
        this.refreshing = null;
      }
    })();
    return this.refreshing;
  }

  /** What `accept` needs to know of a request: the templates taken and the time when it was sent. */
  private sent(): { taken: number; at: number } {
    return { taken: this.taken, at: performance.now() };
  }

  /**
   * Takes a template unless it is the current one, or may be older than it: false when another
   * template came in while this one's request was out, and the two differ. csd answers the long
   * poll and a getblocktemplate on separate connections, so a template of the previous block can
   * arrive after the new block's, and a clean job on it would send every miner back to that block.
   */
  private accept(t: BlockTemplate, sent: { taken: number; at: number }): boolean {
    const old = this.template;
    if (old && old.previousblockhash === t.previousblockhash && old.longpollid === t.longpollid) {
      // Nothing new: a refresh that raced the long poll to the same template, whose jobs are out.
      // A hashblock heard after this request left is news this answer may predate: it stays.
      if (this.lastHashBlockAt < sent.at) this.lastHashBlockAt = 0;
      return true;
    }
    if (old && this.taken !== sent.taken) return false;
    // Before anything changes: a template it throws on leaves the current one in place.
    const prepared = prepareTemplate(t);
    this.taken++;
    const clean = !old || old.previousblockhash !== t.previousblockhash;
    if (clean && old && this.lastHashBlockAt === 0) this.lastHashBlockAt = performance.now();
    this.template = prepared;
    if (clean) this.jobs.clear();
    this.byPayout.clear();
    this.jobFor(null);
    this.o.log.debug({ height: t.height, clean, txs: t.transactions.length }, 'new job');
    this.emit('job', clean);
    return true;
  }

  private build(solo: { address: string; script: Uint8Array } | null): Job {
    const t = this.template;
    if (!t) throw new Error('no block template yet');
    const value = BigInt(t.coinbasevalue);
    let payouts: TxOut[];
    if (solo) {
      const fee = feeOf(value, this.o.soloFeeBasisPoints);
      payouts = [{ value: value - fee, scriptPubKey: solo.script }];
      if (fee > 0n) payouts.push({ value: fee, scriptPubKey: this.o.poolScript });
    } else {
      payouts = [{ value, scriptPubKey: this.o.poolScript }];
    }
    const id = (this.nextId++).toString(16);
    const job = buildJob({ id, template: t, payouts, coinbaseTag: this.o.coinbaseTag, equihash: this.o.net.equihash });
    this.jobs.set(id, { job, seen: new Set(), payout: solo?.address ?? '' });
    if (this.jobs.size > MAX_JOBS_PER_BLOCK * 4) this.jobs.delete(this.jobs.keys().next().value!);
    return job;
  }

  private async longPoll(): Promise<void> {
    while (!this.stopped) {
      const id = this.template?.longpollid;
      this.longPolling = id ?? null;
      const sent = this.sent();
      try {
        const t = await this.o.rpc.call('getblocktemplate', [{ rules: ['segwit'], longpollid: id }], 330_000);
        this.longPolling = null;
        // Passed over, it is asked for again: csd's answer now is the newest.
        if (!this.stopped && !this.accept(templateOf(t), sent)) void this.refresh().catch(() => {});
      } catch (e) {
        this.longPolling = null;
        if (this.stopped) return;
        if (!(e instanceof RpcError && e.code === -9)) this.o.log.warn({ err: (e as Error).message }, 'long poll failed; retrying');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  }

  private refreshAfterHashBlock(): Promise<void> {
    return this.refresh().catch((e) => this.o.log.warn({ err: (e as Error).message }, 'template after hashblock failed'));
  }

  private async subscribeHashBlock(address: string): Promise<void> {
    const { Subscriber } = await import('zeromq');
    const sock = new Subscriber();
    sock.connect(address);
    sock.subscribe('hashblock');
    this.zmq = sock;
    void (async () => {
      try {
        for await (const [, body] of sock) {
          // csd answers the pending long poll on the same new tip: when that template is already
          // here, its jobs are out; when the long poll is still waiting on the current template,
          // its answer is on the way, and is only asked for if it has not come in the grace time.
          const hash = Buffer.from(body).toString('hex');
          if (this.template?.previousblockhash === hash) continue;
          this.lastHashBlockAt = performance.now();
          if (this.longPolling !== null && this.longPolling === this.template?.longpollid) {
            // Asked for only if no template at all came in meanwhile: by then a later block's may
            // have, and asking would only fetch that one again.
            const taken = this.taken;
            setTimeout(() => {
              if (!this.stopped && this.taken === taken) void this.refreshAfterHashBlock();
            }, LONG_POLL_GRACE_MS).unref();
          } else await this.refreshAfterHashBlock();
        }
      } catch (e) {
        if (!this.stopped) this.o.log.warn({ err: (e as Error).message }, 'ZeroMQ subscription ended');
      }
    })();
  }
}

/** getblocktemplate in template mode answers a template; null and strings are answers to proposals. */
function templateOf(answer: RpcResult<'getblocktemplate'>): BlockTemplate {
  if (answer === null || typeof answer !== 'object') throw new Error('getblocktemplate answered without a template');
  return answer;
}
