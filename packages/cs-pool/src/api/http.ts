/**
 * The monitoring API (docs/pool.md, "HTTP API"): read-only JSON over HTTP and Prometheus /metrics.
 * Amounts are integers in base units (1e-8 coin), times milliseconds since the epoch, hashrates
 * Sol/s estimated from share difficulty over the stats window.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { RpcClient } from '@cs/client';
import { RouteTable } from '@cs/client/http-routes';
import type { Logger } from 'pino';
import type { AccountingStore, Balance, BlockRecord, PaymentRecord } from '../accounting/store.ts';
import { MiningcoreApi, type MiningcoreConfig, NotFoundError } from './miningcore.ts';
import { PagingError, pageOf } from './paging.ts';
import { PerformanceHistory } from './performance.ts';
import { Rounds } from './rounds.ts';
import type { PoolStats, WorkerStats } from './stats.ts';

export interface ApiContext {
  readonly store: AccountingStore;
  readonly stats: PoolStats;
  readonly rpc: RpcClient;
  readonly info: () => Record<string, unknown>;
  readonly connectedMiners: () => number;
  /** What miningcore's /api/pools routes show of the configuration. */
  readonly miningcore: () => MiningcoreConfig;
  /** How often the performance history is sampled (-statsinterval). */
  readonly statsIntervalMs: number;
  readonly log: Logger;
}

/** What the user routes accept as an address (anything else is not found). */
const ADDRESS = /^[A-Za-z0-9]{1,100}$/;

function balanceJson(b: Balance) {
  return { immature: Number(b.immature), pending: Number(b.pending), paid: Number(b.paid) };
}

function blockJson(b: BlockRecord) {
  return {
    height: b.height,
    hash: b.hash,
    status: b.status,
    confirmations: b.confirmations,
    reward: Number(b.reward),
    fee: Number(b.fee),
    finder: b.finder,
    worker: b.worker,
    solo: b.solo,
    time: b.time,
    credits: Object.fromEntries(Object.entries(b.credits).map(([a, v]) => [a, Number(v)])),
  };
}

function paymentJson(p: PaymentRecord) {
  return {
    id: p.id,
    txid: p.txid,
    status: p.status,
    time: p.time,
    amounts: Object.fromEntries(Object.entries(p.amounts).map(([a, v]) => [a, Number(v)])),
  };
}

function workerJson(stats: PoolStats, w: WorkerStats, now: number) {
  return {
    worker: w.worker,
    hashrate: stats.hashrate(w, now),
    valid: w.valid,
    invalid: w.invalid,
    stale: w.stale,
    lastShare: w.lastShare,
    connected: w.connected,
    since: w.since,
    disconnected: w.disconnected,
  };
}

const BLOCK_STATUSES = ['new', 'side', 'pending', 'confirmed', 'orphaned'] as const;
const PAYMENT_STATUSES = ['signed', 'broadcast', 'confirmed', 'failed'] as const;

function countBy<T extends { status: string }>(items: readonly T[], statuses: readonly string[]): Record<string, number> {
  return Object.fromEntries(statuses.map((s) => [s, items.filter((x) => x.status === s).length]));
}

export class ApiServer {
  private server: Server | null = null;
  port = 0;
  private readonly miningcore: MiningcoreApi;
  private readonly history = new PerformanceHistory();
  private sampler: NodeJS.Timeout | null = null;

  constructor(private readonly ctx: ApiContext) {
    this.miningcore = new MiningcoreApi({
      store: ctx.store,
      stats: ctx.stats,
      rpc: ctx.rpc,
      rounds: new Rounds(ctx.store),
      history: this.history,
      config: ctx.miningcore,
    });
  }

  /** One sample of the pool and its miners into the performance history. */
  private async sample(): Promise<void> {
    const now = Date.now();
    this.history.record(now, await this.miningcore.poolSample(now), this.miningcore.workerSamples(now));
  }

  async listen(port: number, bind: string): Promise<void> {
    const server = createServer((req, res) => {
      this.route(req, res).catch((e) => {
        this.ctx.log.error({ err: (e as Error).message, url: req.url }, 'API request failed');
        this.send(res, 500, { error: 'internal error' });
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, bind, () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
    await this.sample();
    this.sampler = setInterval(() => {
      this.sample().catch((e) => this.ctx.log.warn({ err: (e as Error).message }, 'performance sample failed'));
    }, this.ctx.statsIntervalMs);
    this.sampler.unref();
  }

  async close(): Promise<void> {
    if (this.sampler) clearInterval(this.sampler);
    await new Promise((r) => (this.server ? this.server.close(r) : r(undefined)));
  }

  private send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
    const text = type === 'application/json' ? JSON.stringify(body) : String(body);
    res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  /** Every route the API serves (docs/api/pool.openapi.json describes each; its test reads this table). */
  static readonly ROUTES = new RouteTable([
    { method: 'GET', path: '/api/pool/stats', handler: 'stats' },
    { method: 'GET', path: '/api/blocks', handler: 'blocks' },
    { method: 'GET', path: '/api/workers', handler: 'liveWorkers' },
    { method: 'GET', path: '/api/workers/history', handler: 'workerHistory' },
    { method: 'GET', path: '/api/payments', handler: 'payments' },
    { method: 'GET', path: '/api/user/{address}', handler: 'user' },
    { method: 'GET', path: '/api/user/{address}/workers', handler: 'workers' },
    { method: 'GET', path: '/api/user/{address}/workers/history', handler: 'userWorkerHistory' },
    { method: 'GET', path: '/metrics', handler: 'metrics' },
    // miningcore's API (miningcore.ts).
    { method: 'GET', path: '/api/pools', handler: 'mcPools' },
    { method: 'GET', path: '/api/pools/{id}', handler: 'mcPool' },
    { method: 'GET', path: '/api/pools/{id}/blocks', handler: 'mcBlocks' },
    { method: 'GET', path: '/api/pools/{id}/payments', handler: 'mcPayments' },
    { method: 'GET', path: '/api/pools/{id}/miners', handler: 'mcMiners' },
    { method: 'GET', path: '/api/pools/{id}/miners/{address}', handler: 'mcMiner' },
    { method: 'GET', path: '/api/pools/{id}/performance', handler: 'mcPerformance' },
  ] as const);

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const path = url.pathname.replace(/\/+$/, '');
    const match = ApiServer.ROUTES.match(req.method ?? 'GET', path);
    if (match.kind === 'method-not-allowed') return this.send(res, 405, { error: 'only GET' });
    const address = match.kind === 'found' ? match.params.address : undefined;
    if (match.kind === 'not-found' || (address !== undefined && !ADDRESS.test(address))) return this.send(res, 404, { error: 'not found' });
    const now = Date.now();
    const { stats, store } = this.ctx;
    const withAddress = (ws: WorkerStats[]) => ws.map((w) => ({ address: w.address, ...workerJson(stats, w, now) }));
    const ofAddress = (connectedOnly: boolean) =>
      stats
        .ofAddress(address!)
        .filter((w) => !connectedOnly || w.connected > 0)
        .map((w) => workerJson(stats, w, now));
    try {
      switch (match.route.handler) {
        case 'stats':
          return this.send(res, 200, await this.poolStats(now));
        case 'blocks':
          return this.send(res, 200, pageOf((await store.blocks()).reverse(), url.searchParams).map(blockJson));
        case 'liveWorkers':
          return this.send(res, 200, withAddress(stats.live()));
        case 'workerHistory':
          return this.send(res, 200, withAddress([...stats.workers.values()]));
        case 'payments':
          return this.send(res, 200, pageOf((await store.payments()).reverse(), url.searchParams).map(paymentJson));
        case 'metrics':
          return this.send(res, 200, await this.metrics(now), 'text/plain; version=0.0.4');
        case 'workers':
          return this.send(res, 200, ofAddress(true));
        case 'userWorkerHistory':
          return this.send(res, 200, ofAddress(false));
        case 'user':
          return this.send(res, 200, await this.user(address!, now));
        default:
          return this.send(res, 200, await this.miningcore.handle(match.route.handler, match.params, url.searchParams, now));
      }
    } catch (e) {
      if (e instanceof PagingError) return this.send(res, 400, { error: e.message });
      if (e instanceof NotFoundError) return this.send(res, 404, { error: e.message });
      throw e;
    }
  }

  private async user(address: string, now: number) {
    const { stats, store } = this.ctx;
    const mine = stats.ofAddress(address);
    const payments = (await store.payments())
      .filter((p) => address in p.amounts)
      .map((p) => ({ ...paymentJson(p), amount: Number(p.amounts[address]) }));
    return {
      address,
      balance: balanceJson(await store.balance(address)),
      hashrate: mine.reduce((h, w) => h + stats.hashrate(w, now), 0),
      shares: {
        valid: mine.reduce((a, w) => a + w.valid, 0),
        invalid: mine.reduce((a, w) => a + w.invalid, 0),
        stale: mine.reduce((a, w) => a + w.stale, 0),
      },
      lastShare: mine.reduce((t, w) => Math.max(t, w.lastShare), 0),
      workers: mine.filter((w) => w.connected > 0).length,
      payments: payments.map(({ amounts: _all, ...p }) => p),
    };
  }

  private async poolStats(now: number) {
    const { stats, store } = this.ctx;
    const blocks = await store.blocks();
    let network: Record<string, unknown> = {};
    try {
      const m = await this.ctx.rpc.call('getmininginfo');
      network = { height: m.blocks, difficulty: m.difficulty, hashrate: m.networkhashps };
    } catch (e) {
      network = { error: (e as Error).message };
    }
    const lastShare = [...stats.workers.values()].reduce((t, w) => Math.max(t, w.lastShare), 0);
    return {
      ...this.ctx.info(),
      connectedMiners: this.ctx.connectedMiners(),
      hashrate: stats.poolHashrate(now),
      shares: stats.totals,
      lastShare,
      blocks: { ...countBy(blocks, BLOCK_STATUSES), rejected: stats.blocksRejected },
      payments: countBy(await store.payments(), PAYMENT_STATUSES),
      network,
    };
  }

  private async metrics(now: number): Promise<string> {
    const { stats, store } = this.ctx;
    const blocks = await store.blocks();
    const lines = [
      '# HELP cs_pool_connections Connected stratum clients.',
      '# TYPE cs_pool_connections gauge',
      `cs_pool_connections ${this.ctx.connectedMiners()}`,
      '# HELP cs_pool_shares_total Shares by outcome since start.',
      '# TYPE cs_pool_shares_total counter',
      ...Object.entries(stats.totals).map(([k, v]) => `cs_pool_shares_total{outcome="${k}"} ${v}`),
      '# HELP cs_pool_hashrate Estimated pool hashrate (Sol/s).',
      '# TYPE cs_pool_hashrate gauge',
      `cs_pool_hashrate ${stats.poolHashrate(now)}`,
      '# HELP cs_pool_blocks Blocks by status.',
      '# TYPE cs_pool_blocks gauge',
      ...Object.entries(countBy(blocks, BLOCK_STATUSES)).map(([s, n]) => `cs_pool_blocks{status="${s}"} ${n}`),
      "# HELP cs_pool_hashblock_to_jobs_seconds The last new block: from its first news (csd's ZeroMQ hashblock, or the long poll's answer if that came first) to its job written to every miner.",
      '# TYPE cs_pool_hashblock_to_jobs_seconds gauge',
      `cs_pool_hashblock_to_jobs_seconds ${stats.hashblockToJobsMs / 1000}`,
      '# HELP cs_pool_new_block_seen_timestamp_seconds When the pool first heard of that block (Unix time): a pool that hears of no new block for long has lost its node.',
      '# TYPE cs_pool_new_block_seen_timestamp_seconds gauge',
      `cs_pool_new_block_seen_timestamp_seconds ${stats.newBlockSeenAtMs / 1000}`,
      '# HELP cs_pool_job_fanout_seconds The last job broadcast: writing it to every miner, or handing it to the socket processes (the rest of hashblock_to_jobs is fetching and building it).',
      '# TYPE cs_pool_job_fanout_seconds gauge',
      `cs_pool_job_fanout_seconds ${stats.jobFanoutMs / 1000}`,
      '# HELP cs_pool_job_fanout_cpu_seconds CPU time the process used during that broadcast.',
      '# TYPE cs_pool_job_fanout_cpu_seconds gauge',
      `cs_pool_job_fanout_cpu_seconds ${stats.jobFanoutCpuMs / 1000}`,
      '# HELP cs_pool_blocks_rejected_total Blocks the node refused since start.',
      '# TYPE cs_pool_blocks_rejected_total counter',
      `cs_pool_blocks_rejected_total ${stats.blocksRejected}`,
    ];
    return `${lines.join('\n')}\n`;
  }
}
