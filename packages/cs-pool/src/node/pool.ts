/**
 * One cs-pool process, wired in start-up order: options, the node connection, the store, the pool
 * address, jobs, stratum listeners, the payout processor, the API. Shutdown runs it backwards and
 * tells miners to reconnect.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { addressToScript, isValidAddress, type ChainParams } from '@cs/consensus';
import { networkDataDir } from '@cs/runtime/datadir';
import { RpcClient, RpcError, RpcTransportError } from '@cs/client';
import { solutionsPerDifficulty } from '@cs/stratum';
import type { Logger } from 'pino';
import { LmdbStore } from '../accounting/lmdb-store.ts';
import { PgStore } from '../accounting/pg-store.ts';
import { PayoutProcessor } from '../accounting/processor.ts';
import type { PayoutScheme } from '../accounting/schemes.ts';
import type { AccountingStore } from '../accounting/store.ts';
import { ApiServer } from '../api/http.ts';
import { PoolStats } from '../api/stats.ts';
import { JobManager } from '../stratum/jobs.ts';
import { StratumServer, type AcceptedShare, type PortConfig } from '../stratum/server.ts';
import { submitFoundBlock } from './blocks.ts';
import { ConfigError, parsePercent, whitelistSubnet, type Options } from './config.ts';
import { loadOrCreateCertificate } from './tls-cert.ts';

/** Statistics window for hashrate estimates. */
const STATS_WINDOW_MS = 10 * 60_000;

export class Pool {
  private processorTimer: NodeJS.Timeout | null = null;
  private processing: Promise<void> = Promise.resolve();
  stats: PoolStats | null = null;

  private constructor(
    readonly net: ChainParams,
    readonly rpc: RpcClient,
    readonly store: AccountingStore,
    readonly jobs: JobManager,
    readonly stratum: StratumServer,
    readonly processor: PayoutProcessor | null,
    readonly api: ApiServer | null,
    readonly poolAddress: string,
    private readonly log: Logger,
  ) {}

  static async start(o: Options, log: Logger): Promise<Pool> {
    const net = o.net();
    const datadir = join(o.path('datadir'), net.name);
    mkdirSync(datadir, { recursive: true, mode: 0o700 });
    const rpc = new RpcClient({
      url: `http://${o.str('rpcconnect')}:${o.str('rpcport') || net.rpcPort}/`,
      auth:
        o.str('rpcuser') !== ''
          ? { user: o.str('rpcuser'), password: o.str('rpcpassword') }
          : { cookieFile: o.str('rpccookiefile') || join(networkDataDir(o.path('csddatadir'), net.name), '.cookie') },
    });
    await waitForNode(rpc, log);

    const db = o.str('db');
    let store: AccountingStore;
    if (db === 'lmdb') store = new LmdbStore(join(datadir, 'db'), net.powLimit);
    else if (/^postgres(ql)?:\/\//.test(db)) {
      store = await PgStore.open(db, net.powLimit, {
        timeoutMs: o.num('dbtimeout', 0.1) * 1000,
        onRetry: (shares, e) => log.warn({ shares, err: (e as Error).message }, 'the database did not take the shares; trying again'),
        onSettled: (backends) => log.warn({ backends }, 'database connections whose answer was lost are settled: their work is final'),
      });
    } else throw new ConfigError('-db must be lmdb or a postgres:// URL');

    const scheme = o.str('scheme');
    if (scheme !== 'pplns' && scheme !== 'prop' && scheme !== 'solo') throw new ConfigError(`-scheme must be pplns, prop or solo (got '${scheme}')`);
    const feeBasisPoints = parsePercent(o.str('fee'), 'fee');
    const soloFeeBasisPoints = parsePercent(o.str('solofee'), 'solofee');
    const poolAddress = await resolvePoolAddress(o, rpc, store, net);
    const defaultDiff = net.name === 'regtest' ? '0.001' : '0.05';
    const diff = o.str('diff') || defaultDiff;
    const diffNumber = Number(diff);
    if (!(diffNumber > 0)) throw new ConfigError(`-diff must be a positive number (got '${diff}')`);

    const jobs = new JobManager({
      rpc,
      net,
      poolScript: addressToScript(poolAddress, net.address),
      // Random per start: two pools (or two runs) never build the same coinbase.
      coinbaseTag: Buffer.concat([Buffer.from('/cs-pool/'), randomBytes(8)]),
      soloFeeBasisPoints,
      zmqHashBlock: o.str('zmqhashblock') || null,
      txRefreshMs: o.num('txrefresh', 1) * 1000,
      log,
    });
    await jobs.start();

    // Regtest blocks sit at difficulty 1: a rental port there stays below it, else every share is a block.
    const rentalDefault = net.name === 'regtest' ? '0.5' : String(diffNumber * 1000);
    const stats = new PoolStats(STATS_WINDOW_MS, solutionsPerDifficulty(net.powLimit));
    const solo = scheme === 'solo';
    const portList: PortConfig[] = [
      { name: 'plain', port: o.num('port', 0, 65535), tls: false, solo, difficulty: diff, vardiff: false },
      { name: 'vardiff', port: o.num('vardiffport', 0, 65535), tls: false, solo, difficulty: diff, vardiff: true },
      {
        name: 'rental',
        port: o.num('rentalport', 0, 65535),
        tls: false,
        solo,
        difficulty: o.str('rentaldiff') || rentalDefault,
        vardiff: false,
      },
      { name: 'tls', port: o.num('tlsport', 0, 65535), tls: true, solo, difficulty: diff, vardiff: true },
      { name: 'solo', port: o.num('soloport', 0, 65535), tls: false, solo: true, difficulty: diff, vardiff: true },
    ];
    const ports = portList.filter((p) => p.port !== 0);
    const tls = ports.some((p) => p.tls) ? await loadOrCreateCertificate(o.str('tlscert'), o.str('tlskey'), datadir) : null;
    const validAddresses = new Map<string, boolean>();
    const vardiff = {
      targetTime: o.num('vardifftarget', 0.1),
      retargetTime: o.num('vardiffretarget', 0),
      variancePercent: o.num('vardiffvariance', 0, 100),
      maxFactor: 4,
      minDifficulty: o.str('vardiffmin') || String(diffNumber / 1000),
      maxDifficulty: o.str('vardiffmax') || String(diffNumber * 1e9),
    };
    const stratum: StratumServer = new StratumServer(
      {
        bind: o.str('bind'),
        ports,
        tls,
        vardiff,
        maxConnections: o.num('maxconnections', 1),
        maxPerIp: o.num('maxperip', 1),
        bans: {
          banTimeMs: o.num('bantime') * 1000,
          windowMs: o.num('banwindow', 1) * 1000,
          maxAbuse: o.num('banmalformed', 1),
          maxRefusedLogins: o.num('banlogins', 1),
          whitelist: o.values.whitelist.map(whitelistSubnet),
        },
        banInvalidPercent: o.num('baninvalidpercent', 1, 100),
        banCheckThreshold: o.num('bancheckthreshold', 1),
        loginTimeoutMs: o.num('logintimeout', 1) * 1000,
        idleTimeoutMs: o.num('idletimeout', 1) * 1000,
        targetGraceMs: o.num('targetgrace') * 1000,
        sessionTtlMs: 10 * 60_000,
        instance: o.str('instanceid') === '' ? null : o.num('instanceid', 0, 255),
        verifyThreads: o.num('verifythreads', 0, 64),
        socketProcesses: o.num('stratumprocesses', 0, 64),
      },
      net,
      jobs,
      {
        async validateAddress(address) {
          const cached = validAddresses.get(address);
          if (cached !== undefined) return cached;
          // The node has the last word; consensus's decoder only spares it obvious garbage.
          const valid = isValidAddress(address, net.address) && (await rpc.call('validateaddress', [address])).isvalid;
          if (validAddresses.size > 100_000) validAddresses.clear();
          validAddresses.set(address, valid);
          return valid;
        },
        addressScript: (address) => addressToScript(address, net.address),
        onShare: (s) => pool.onShare(s),
      },
      stats,
      log,
    );

    const maturity = o.str('maturity') === '' ? net.coinbaseMaturity : o.num('maturity', 1);
    const processor =
      o.str('payouts') === '0'
        ? null
        : new PayoutProcessor(
            store,
            rpc,
            {
              scheme: scheme as PayoutScheme,
              feeBasisPoints,
              pplnsFactor: o.str('pplnsfactor'),
              maturity,
              minPayout: o.values.minpayout,
              payoutIntervalMs: o.num('payoutinterval', 0) * 1000,
              feeRate: o.str('payoutfeerate') === '' ? null : o.num('payoutfeerate', 1, 1_000_000),
            },
            log,
          );
    const apiPort = o.num('apiport', 0, 65535);
    const api =
      apiPort === 0
        ? null
        : new ApiServer({
            store,
            stats,
            rpc,
            log,
            connectedMiners: () => stratum.connectionCount,
            statsIntervalMs: o.num('statsinterval', 0.1) * 1000,
            miningcore: () => ({
              chain: net.name,
              poolAddress,
              scheme,
              fee: feeBasisPoints / 100,
              soloFee: soloFeeBasisPoints / 100,
              pplnsFactor: o.str('pplnsfactor'),
              minPayout: o.values.minpayout,
              payouts: processor !== null,
              maturity,
              bind: o.str('bind'),
              ports: ports.map((p) => ({
                name: p.name,
                port: stratum.boundPorts.get(p.name) ?? p.port,
                difficulty: p.difficulty,
                tls: p.tls,
                vardiff: p.vardiff
                  ? {
                      minDiff: Number(vardiff.minDifficulty),
                      maxDiff: Number(vardiff.maxDifficulty),
                      targetTime: vardiff.targetTime,
                      retargetTime: vardiff.retargetTime,
                      variancePercent: vardiff.variancePercent,
                    }
                  : null,
              })),
              banning: {
                checkThreshold: o.num('bancheckthreshold', 1),
                invalidPercent: o.num('baninvalidpercent', 1, 100),
                time: o.num('bantime'),
              },
              idleTimeout: o.num('idletimeout', 1),
              txRefresh: o.num('txrefresh', 1),
            }),
            info: () => ({
              chain: net.name,
              scheme,
              fee: feeBasisPoints / 100,
              soloFee: soloFeeBasisPoints / 100,
              minPayout: Number(o.values.minpayout),
              poolAddress,
              ports: Object.fromEntries(stratum.boundPorts),
              algorithm: `${net.equihash.n}_${net.equihash.k}`,
              personalization: net.equihash.personalization,
            }),
          });
    const pool: Pool = new Pool(net, rpc, store, jobs, stratum, processor, api, poolAddress, log);
    pool.stats = stats;
    await stratum.listen();
    if (api) await api.listen(apiPort, o.str('apibind'));
    if (processor) {
      pool.processorTimer = setInterval(() => pool.runProcessor(), o.num('processinterval', 0.1) * 1000);
      pool.runProcessor();
    }
    log.info({ chain: net.name, ports: Object.fromEntries(stratum.boundPorts), api: api?.port ?? null, poolAddress, scheme }, 'cs-pool started');
    return pool;
  }

  /** One processor tick at a time; a failed tick is logged and retried at the next. */
  runProcessor(): Promise<void> {
    this.processing = this.processing.then(() =>
      this.processor!.tick().catch((e) => this.log.error({ err: (e as Error).message }, 'payout processor tick failed')),
    );
    return this.processing;
  }

  /** Resolves once the share is durable. Not async: the usual share, not a block, keeps nothing of itself alive while it waits. */
  private onShare(s: AcceptedShare): Promise<unknown> {
    const stored = this.store.addShare({
      address: s.address,
      worker: s.worker,
      weight: s.weight,
      difficulty: s.difficulty,
      solo: s.solo,
      time: Date.now(),
      hash: s.share.hash,
    });
    if (!s.share.isBlock) return stored;
    // The block goes to the node even when its share could not be stored (the database is
    // unreachable, say): a failed write costs the miner's reply, not the block.
    return stored.then(
      (seq) => this.submitBlock(s, seq),
      (e: unknown) => {
        this.submitBlock(s, null);
        throw e;
      },
    );
  }

  /** The miner hears `true` now; the block goes to the node right away, concurrently. */
  private submitBlock(s: AcceptedShare, seq: number | null): void {
    void submitFoundBlock(
      { job: s.job, share: s.share, address: s.address, worker: s.worker, solo: s.solo, shareSeq: seq },
      this.rpc,
      this.store,
      this.log,
      this.net.powLimit,
    )
      .then((r) => {
        if (r.kind === 'refused') this.stats!.blocksRejected++;
        else this.stats!.blocksFound++;
        return this.jobs.refresh();
      })
      .catch((e) => this.log.error({ err: (e as Error).message }, 'block submission failed'));
  }

  async stop(): Promise<void> {
    if (this.processorTimer) clearInterval(this.processorTimer);
    await this.stratum.close();
    this.jobs.stop();
    await this.api?.close();
    await this.processing;
    await this.store.close();
    this.rpc.close();
    this.log.info('cs-pool stopped');
  }
}

async function waitForNode(rpc: RpcClient, log: Logger): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await rpc.call('getblockchaininfo');
      return;
    } catch (e) {
      const warming = e instanceof RpcError && e.code === -28;
      const unreachable = e instanceof RpcTransportError && e.status === null;
      if (!warming && !unreachable) throw e;
      if (attempt % 10 === 0) log.info({ err: (e as Error).message }, 'waiting for csd');
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

/** -pooladdress, else the one chosen at an earlier start, else a new address of csd's wallet. */
async function resolvePoolAddress(o: Options, rpc: RpcClient, store: AccountingStore, net: ChainParams): Promise<string> {
  let address = o.str('pooladdress') || (await store.meta('pooladdress'));
  if (!address) address = await rpc.call('getnewaddress', ['cs-pool']);
  if (!isValidAddress(address, net.address)) throw new ConfigError(`-pooladdress '${address}' is not a ${net.name} address`);
  if ((await store.meta('pooladdress')) !== address) await store.apply({ meta: { pooladdress: address } });
  return address;
}
