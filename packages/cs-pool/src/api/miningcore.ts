/**
 * miningcore's API (docs/pool.md, "miningcore's API"), for the pool front-ends and rig monitors
 * that read it: its routes under /api/pools, its field names (camelCase, as its ASP.NET server
 * writes them, null fields left out), its units (amounts in coins, hashrates in solutions per
 * second, times as ISO 8601 UTC, effort as a ratio) and its paging (`page` from 0, `pageSize` 15).
 * This process is one pool, `cs-<chain>`.
 */
import type { RpcClient } from '@cs/client';
import type { AccountingStore, BlockRecord, PaymentRecord } from '../accounting/store.ts';
import { PagingError, pageOf } from './paging.ts';
import type { MinerRange, PerformanceHistory, PoolSample, WorkerSample } from './performance.ts';
import { type Rounds, networkDifficulty } from './rounds.ts';
import type { PoolStats } from './stats.ts';

/** What the pool was started with that miningcore's PoolInfo shows. */
export interface MiningcoreConfig {
  readonly chain: string;
  readonly poolAddress: string;
  readonly scheme: 'pplns' | 'prop' | 'solo';
  /** Percent. */
  readonly fee: number;
  readonly soloFee: number;
  readonly pplnsFactor: string;
  readonly minPayout: bigint;
  readonly payouts: boolean;
  readonly maturity: number;
  readonly bind: string;
  readonly ports: readonly {
    readonly name: string;
    readonly port: number;
    readonly difficulty: string;
    readonly tls: boolean;
    readonly vardiff: {
      readonly minDiff: number;
      readonly maxDiff: number;
      readonly targetTime: number;
      readonly retargetTime: number;
      readonly variancePercent: number;
    } | null;
  }[];
  readonly banning: { readonly checkThreshold: number; readonly invalidPercent: number; readonly time: number };
  /** Seconds. */
  readonly idleTimeout: number;
  readonly txRefresh: number;
}

export interface MiningcoreContext {
  readonly store: AccountingStore;
  readonly stats: PoolStats;
  readonly rpc: RpcClient;
  readonly rounds: Rounds;
  readonly history: PerformanceHistory;
  readonly config: () => MiningcoreConfig;
}

export class NotFoundError extends Error {}

const COIN = 1e8;
const coins = (units: bigint | string | number) => Number(units) / COIN;
const iso = (ms: number) => new Date(ms).toISOString();
const DAY = 86_400_000;

/** miningcore's block statuses: ours before maturity are all `pending` there. */
function blockStatus(b: BlockRecord): 'pending' | 'confirmed' | 'orphaned' {
  return b.status === 'confirmed' || b.status === 'orphaned' ? b.status : 'pending';
}

/** Payments that left: miningcore records one once its transaction is sent. */
const sent = (p: PaymentRecord) => p.status === 'broadcast' || p.status === 'confirmed';

/** miningcore's paging: `page` 0 and `pageSize` 15 unless asked otherwise. */
function paged<T>(items: readonly T[], query: URLSearchParams): readonly T[] {
  const q = new URLSearchParams(query);
  if (!q.has('page')) q.set('page', '0');
  return pageOf(items, q);
}

function choice<T extends string>(query: URLSearchParams, name: string, values: Record<string, T>, fallback: T): T {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const v = values[raw.toLowerCase()];
  if (v === undefined) throw new PagingError(`${name} must be one of ${Object.keys(values).join(', ')}`);
  return v;
}

export class MiningcoreApi {
  constructor(private readonly ctx: MiningcoreContext) {}

  get id(): string {
    return `cs-${this.ctx.config().chain}`;
  }

  private pool(id: string): void {
    if (id !== this.id) throw new NotFoundError(`Pool ${id} does not exist`);
  }

  /** The workers with a share in the stats window or a connection now, with miningcore's figures. */
  workerSamples(now: number): WorkerSample[] {
    const { stats } = this.ctx;
    return [...stats.workers.values()]
      .filter((w) => w.connected > 0 || stats.sharesPerSecond(w, now) > 0)
      .map((w) => ({
        address: w.address,
        worker: w.worker,
        hashrate: Math.floor(stats.hashrate(w, now)),
        sharesPerSecond: round3(stats.sharesPerSecond(w, now)),
      }));
  }

  /** Miners by hashrate, highest first: miningcore's MinerPerformanceStats. */
  private miners(now: number) {
    const byAddress = new Map<string, { miner: string; hashrate: number; sharesPerSecond: number }>();
    for (const w of this.workerSamples(now)) {
      const m = byAddress.get(w.address) ?? { miner: w.address, hashrate: 0, sharesPerSecond: 0 };
      m.hashrate += w.hashrate;
      m.sharesPerSecond = round3(m.sharesPerSecond + w.sharesPerSecond);
      byAddress.set(w.address, m);
    }
    return [...byAddress.values()].sort((a, b) => b.hashrate - a.hashrate || (a.miner < b.miner ? -1 : 1));
  }

  /** Addresses with a worker connected now, and valid shares per second over the stats window. */
  private live(now: number): { connectedMiners: number; validSharesPerSecond: number } {
    const { stats } = this.ctx;
    let shares = 0;
    for (const w of stats.workers.values()) shares += stats.sharesPerSecond(w, now);
    return { connectedMiners: new Set(stats.live().map((w) => w.address)).size, validSharesPerSecond: shares };
  }

  /** The pool now, as the performance history samples it. */
  async poolSample(now: number): Promise<PoolSample> {
    const network = await this.ctx.rpc.call('getmininginfo').catch(() => null);
    return {
      poolHashrate: this.ctx.stats.poolHashrate(now),
      ...this.live(now),
      networkHashrate: network?.networkhashps ?? 0,
      networkDifficulty: network?.difficulty ?? 0,
    };
  }

  private async networkStats() {
    const { rpc } = this.ctx;
    const [mining, network, tip] = await Promise.all([
      rpc.call('getmininginfo'),
      rpc.call('getnetworkinfo') as Promise<{ connections: number; subversion: string }>,
      rpc.call('getbestblockhash').then((hash) => rpc.call('getblockheader', [hash, true])),
    ]);
    const tipTime = (tip as { time: number }).time;
    const chain = this.ctx.config().chain;
    return {
      // NBitcoin's network names, which miningcore's Bitcoin-family pools show.
      networkType: chain === 'main' ? 'Main' : chain === 'test' ? 'TestNet' : 'RegTest',
      networkHashrate: mining.networkhashps,
      networkDifficulty: mining.difficulty,
      nextNetworkTarget: mining.next.target,
      nextNetworkBits: mining.next.bits,
      lastNetworkBlockTime: iso(tipTime * 1000),
      blockHeight: mining.blocks,
      connectedPeers: network.connections,
      nodeVersion: network.subversion,
      rewardType: 'POW',
    };
  }

  private async poolInfo(now: number) {
    const { store, stats } = this.ctx;
    const c = this.ctx.config();
    const [blocks, payments] = await Promise.all([store.blocks(), store.payments()]);
    const round = await this.ctx.rounds.current(blocks);
    const last = blocks.reduce<BlockRecord | null>((l, b) => (l === null || b.time > l.time ? b : l), null);
    const live = this.live(now);
    const lastPoolBlockTime = last ? iso(last.time) : undefined;
    const difficulty = last ? networkDifficulty(last) : null;
    return {
      id: this.id,
      coin: { type: 'CS', name: 'cs', symbol: 'CS', family: 'equihash', algorithm: 'Equihash' },
      ports: Object.fromEntries(
        c.ports.map((p) => [
          String(p.port),
          {
            listenAddress: c.bind,
            name: p.name,
            difficulty: Number(p.difficulty),
            ...(p.vardiff ? { varDiff: p.vardiff } : {}),
            tls: p.tls,
            tlsAuto: false,
          },
        ]),
      ),
      paymentProcessing: {
        enabled: c.payouts,
        minimumPayment: coins(c.minPayout),
        payoutScheme: c.scheme.toUpperCase(),
        ...(c.scheme === 'pplns' ? { payoutSchemeConfig: { factor: Number(c.pplnsFactor) } } : {}),
      },
      shareBasedBanning: { enabled: true, ...c.banning },
      clientConnectionTimeout: c.idleTimeout,
      jobRebroadcastTimeout: c.txRefresh,
      // New blocks come by ZeroMQ and the long poll, not by polling.
      blockRefreshInterval: 0,
      poolFeePercent: c.scheme === 'solo' ? c.soloFee : c.fee,
      address: c.poolAddress,
      poolStats: {
        ...(lastPoolBlockTime ? { lastPoolBlockTime } : {}),
        connectedMiners: live.connectedMiners,
        poolHashrate: Math.floor(stats.poolHashrate(now)),
        sharesPerSecond: Math.trunc(live.validSharesPerSecond),
      },
      networkStats: await this.networkStats(),
      topMiners: this.miners(now).slice(0, 15),
      totalPaid: coins(payments.filter(sent).reduce((t, p) => t + Object.values(p.amounts).reduce((a, v) => a + BigInt(v), 0n), 0n)),
      totalBlocks: blocks.length,
      ...(lastPoolBlockTime ? { lastPoolBlockTime } : {}),
      poolEffort: difficulty ? round.total / difficulty : 0,
    };
  }

  private async blocks(query: URLSearchParams) {
    const { store, rounds } = this.ctx;
    const { maturity } = this.ctx.config();
    const states = query.getAll('state').map((s) => s.toLowerCase());
    for (const s of states)
      if (!['pending', 'confirmed', 'orphaned'].includes(s)) throw new PagingError('state must be pending, confirmed or orphaned');
    const all = await store.blocks();
    const newest = [...all].sort((a, b) => b.time - a.time || b.shareSeq - a.shareSeq);
    const page = paged(
      newest.filter((b) => states.length === 0 || states.includes(blockStatus(b))),
      query,
    );
    const efforts = await rounds.effort(all, page);
    return page.map((b) => {
      const status = blockStatus(b);
      return {
        poolId: this.id,
        blockHeight: b.height,
        networkDifficulty: networkDifficulty(b),
        status,
        type: 'block',
        confirmationProgress: status === 'confirmed' ? 1 : status === 'orphaned' ? 0 : Math.min(1, Math.max(0, b.confirmations) / maturity),
        effort: efforts.get(b.hash),
        transactionConfirmationData: b.coinbaseTxid,
        reward: coins(b.reward),
        hash: b.hash,
        miner: b.finder,
        source: 'cs-pool',
        created: iso(b.time),
      };
    });
  }

  /** One row per address paid, newest payment first, as miningcore's payments table has them. */
  private async paymentRows(address: string | null) {
    const rows = [];
    for (const p of (await this.ctx.store.payments()).filter(sent).sort((a, b) => b.time - a.time || b.id - a.id)) {
      for (const [to, amount] of Object.entries(p.amounts).sort(([a], [b]) => (a < b ? -1 : 1))) {
        if (address !== null && to !== address) continue;
        rows.push({ coin: 'CS', address: to, amount: coins(amount), transactionConfirmationData: p.txid, created: iso(p.time), time: p.time });
      }
    }
    return rows;
  }

  private async miner(address: string, query: URLSearchParams, now: number) {
    const { store, rounds, history } = this.ctx;
    const perfMode = choice<MinerRange>(query, 'perfMode', { hour: 'hour', day: 'day', month: 'month' }, 'day');
    const [balance, blocks, payments] = await Promise.all([store.balance(address), store.blocks(), this.paymentRows(address)]);
    const round = await rounds.current(blocks);
    const today = now - (now % DAY);
    const workers = this.workerSamples(now).filter((w) => w.address === address);
    const last = payments[0];
    return {
      pendingShares: round.byAddress.get(address) ?? 0,
      pendingBalance: coins(balance.pending),
      totalPaid: coins(balance.paid),
      todayPaid: payments.filter((p) => p.time >= today).reduce((t, p) => t + p.amount, 0),
      ...(last ? { lastPayment: last.created } : {}),
      ...(workers.length > 0
        ? {
            performance: {
              created: iso(now),
              workers: Object.fromEntries(workers.map((w) => [w.worker, { hashrate: w.hashrate, sharesPerSecond: w.sharesPerSecond }])),
            },
          }
        : {}),
      performanceSamples: history.minerSamples(address, perfMode, now).map((s) => ({ created: iso(s.created), workers: s.workers })),
    };
  }

  /** The body for a miningcore route, or a NotFoundError / PagingError. */
  async handle(handler: string, params: Readonly<Record<string, string>>, query: URLSearchParams, now: number): Promise<unknown> {
    if (handler === 'mcPools') return { pools: [await this.poolInfo(now)] };
    this.pool(params.id);
    switch (handler) {
      case 'mcPool':
        return { pool: await this.poolInfo(now) };
      case 'mcBlocks':
        return this.blocks(query);
      case 'mcPayments':
        return paged(await this.paymentRows(null), query).map(({ time: _, ...row }) => row);
      case 'mcMiners':
        return paged(this.miners(now), query);
      case 'mcMiner':
        return this.miner(params.address, query, now);
      case 'mcPerformance': {
        const range = choice(query, 'r', { day: 'day', month: 'month' } as const, 'day');
        const interval = choice(query, 'i', { hour: 'hour', day: 'day' } as const, 'hour');
        return { stats: this.ctx.history.poolStats(now, range, interval).map((s) => ({ ...s, created: iso(s.created) })) };
      }
    }
    throw new NotFoundError('not found');
  }
}

const round3 = (x: number) => Math.round(x * 1000) / 1000;
