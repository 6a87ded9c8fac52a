import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import type { Logger } from 'pino';
import type { AssumeutxoEntry } from '@cs/consensus';
import { Chain } from '../chain/chainstate.ts';
import { registerChainMetrics } from '../chain/metrics.ts';
import { ScriptVerifier } from '../chain/script-verifier.ts';
import type { NodeConfig } from '../config/node-config.ts';
import { splitHostPort } from '@cs/runtime/config';
import { removeCookie, writeCookie, type RpcCredentials } from '@cs/runtime/datadir';
import { FeeEstimator } from '../fees/estimator.ts';
import { closeIndexes, openIndexes, startIndexes } from '../indexes/node-indexes.ts';
import { Mempool } from '../mempool/mempool.ts';
import { registerNetworkMetrics } from '../p2p/metrics.ts';
import { Network } from '../p2p/network.ts';
import { contentStoreSink, relayPublishedContent } from '../p2p/opoi-content.ts';
import { registerRest } from '../rest/handler.ts';
import { AllowList } from '../rpc/allowip.ts';
import { registerControlMethods } from '../rpc/methods/control.ts';
import { RpcRegistry } from '../rpc/registry.ts';
import { RpcHttpServer } from '../rpc/server.ts';
import { Warmup } from '../rpc/warmup.ts';
import { ChainDatabase } from '../storage/database.ts';
import { Wallet } from '../wallet/wallet.ts';
import { OpoiContentStore } from '../opoi/content.ts';
import { WebSocketService } from '../ws/service.ts';
import { ZmqNotificationInterface } from '../zmq/interface.ts';
import { zmqNotifications } from '../zmq/notifications.ts';
import { NodeClock } from '../rpc/clock.ts';
import type { NodeContext } from './context.ts';
import { registerNodeMethods } from './methods.ts';

/** How often expired and excess mempool transactions are dropped. */
const MEMPOOL_TRIM_MS = 60_000;
/** How often fee estimates are saved (Core: hourly), so a crash loses at most that much. */
const FEE_ESTIMATES_SAVE_MS = 3_600_000;

/** Node.start's rejection when a shutdown was requested before the node had finished starting. */
export class StartupInterrupted extends Error {
  override readonly name = 'StartupInterrupted';
  constructor() {
    super('shutdown requested during startup');
  }
}

/**
 * A running node: storage, chain, mempool and the RPC server, started in Core's order (the RPC
 * server first, answering "warming up" while the chain loads) and stopped in reverse.
 */
export class Node {
  private readonly timers: NodeJS.Timeout[] = [];
  private stopping: Promise<void> | null = null;
  private cookieWritten = false;
  /** Set once loaded: a shutdown during startup must not save an empty mempool or empty estimates over the files. */
  private mempoolLoaded = false;
  private estimatesLoaded = false;
  private zmq: ZmqNotificationInterface | null = null;
  private ws: WebSocketService | null = null;

  private constructor(
    readonly ctx: NodeContext,
    private readonly db: ChainDatabase,
    private readonly rpc: RpcHttpServer | null,
    private readonly registry: RpcRegistry,
  ) {}

  /**
   * Starts the node. `interrupt` (a shutdown requested by a signal or `stop` while starting)
   * ends a long step such as -reindex early; then, as after any failure once the RPC server is
   * up, what was started is stopped again (cookie removed, nothing half-loaded saved) and the
   * promise rejects, with StartupInterrupted in the first case.
   */
  static async start(
    config: NodeConfig,
    log: Logger,
    requestShutdown: () => void,
    interrupt: AbortSignal = new AbortController().signal,
  ): Promise<Node> {
    const o = config.options;
    const startedAt = Date.now();
    const clock = new NodeClock(o.mocktime);
    const db = ChainDatabase.open(join(config.paths.networkDir, 'chainstate'), { reindex: o.reindex });
    const chain = new Chain({
      db,
      params: config.network,
      verifier: new ScriptVerifier(scriptThreads(o.par)),
      log,
      now: clock.now,
      coinsCacheBytes: o.dbcache * 1024 * 1024,
      assumeutxo: [...config.network.assumeutxo, ...o.assumeutxo.map(parseAssumeutxo)],
    });
    const feeEstimator = new FeeEstimator(clock.now);
    const mempool = new Mempool({
      chain,
      policy: {
        requireStandard: !o.acceptnonstdtxn,
        permitBareMultisig: o.permitbaremultisig,
        maxDatacarrierBytes: o.datacarrier ? o.datacarriersize : null,
        minRelayFee: o.minrelaytxfee,
        incrementalRelayFee: o.incrementalrelayfee,
        dustRelayFee: o.dustrelayfee,
        bytesPerSigop: o.bytespersigop,
      },
      limits: {
        ancestorCount: o.limitancestorcount,
        ancestorSize: o.limitancestorsize * 1000,
        descendantCount: o.limitdescendantcount,
        descendantSize: o.limitdescendantsize * 1000,
      },
      maxMempoolBytes: o.maxmempool * 1_000_000,
      expiryHours: o.mempoolexpiry,
      fullRbf: o.mempoolfullrbf,
      feeEstimator,
      log,
    });
    const indexes = openIndexes({ db, chain, mempool, log, txindex: o.txindex, addressindex: o.addressindex });
    // The wallet only reads its records here; it follows the chain from start() on.
    const wallet = o.disablewallet
      ? undefined
      : Wallet.open({ db, chain, mempool, feeEstimator, params: config.network, now: clock.now, log, fallbackFee: o.fallbackfee });
    const opoiContent = new OpoiContentStore(db, chain.opoi, (event, err) => log.error({ event, err }, 'OPoI content listener failed'));
    const network = new Network({
      chain,
      mempool,
      params: config.network,
      log,
      now: clock.now,
      dataDir: config.paths.networkDir,
      opoi: contentStoreSink(opoiContent),
      options: {
        // Core: -connect turns listening off unless -listen is given.
        listen: config.isSet('listen') || o.connect.length === 0 ? o.listen : false,
        port: o.port,
        bind: o.bind,
        connect: o.connect,
        addnode: o.addnode,
        seednode: o.seednode,
        maxconnections: o.maxconnections,
        whitelist: o.whitelist,
        whitelistrelay: o.whitelistrelay,
        whitelistforcerelay: o.whitelistforcerelay,
        peertimeout: o.peertimeout,
        bantime: o.bantime,
      },
    });
    relayPublishedContent(opoiContent, network);
    const ctx: NodeContext = { config, params: config.network, chain, mempool, feeEstimator, clock, log, ...indexes, opoiContent, wallet, network };

    const registry = new RpcRegistry(new Warmup('Loading block index...'));
    registerChainMetrics(registry.metrics, chain);
    const networkMetrics = registerNetworkMetrics(registry.metrics, network);
    registerControlMethods(registry, { shutdown: requestShutdown, startedAt });
    registerNodeMethods(registry, ctx);
    const rpc = o.server ? await startRpc(config, registry, log) : null;
    if (rpc && o.rest) registerRest(rpc, registry, ctx, o.restratelimit);
    const node = new Node(ctx, db, rpc, registry);
    node.timers.push(networkMetrics);
    node.cookieWritten = rpc !== null && !o.rpcpassword && config.paths.cookieFile !== null;
    try {
      await node.load(interrupt);
    } catch (e) {
      await node.stop();
      throw e;
    }
    return node;
  }

  /** Everything after the RPC server is up, in Core's order; checks for an interrupt between steps. */
  private async load(interrupt: AbortSignal): Promise<void> {
    const { ctx, registry } = this;
    const { chain, mempool, feeEstimator, wallet, log } = ctx;
    const o = ctx.config.options;
    const checkpoint = () => {
      if (interrupt.aborted) throw new StartupInterrupted();
    };
    if (o.reindex || chain.reindexPending) {
      registry.warmup.set('Reindexing blocks...');
      log.info('reindexing: rebuilding the block index and UTXO set from stored blocks');
      await chain.reindex(interrupt);
    } else {
      await chain.load();
    }
    checkpoint();
    // The indexes follow the chain from here and catch up in the background; the address index
    // also follows the mempool, so it starts before mempool.dat is read.
    startIndexes(ctx);
    await this.startNotifications();
    checkpoint();
    registry.warmup.set('Loading mempool...');
    // mempool.dat's load logs its own report.
    await mempool.load(o.persistmempool ? ctx.config.paths.mempoolFile : null);
    this.mempoolLoaded = true;
    const estimates = await feeEstimator.load(ctx.config.paths.feeEstimatesFile);
    this.estimatesLoaded = true;
    if (!estimates.loaded) log.info({ reason: estimates.reason }, 'fee estimator starts empty');
    checkpoint();
    if (wallet) {
      registry.warmup.set('Loading wallet...');
      await wallet.start();
      checkpoint();
    }
    // Peers last, as Core's StartNode: everything they ask about is loaded.
    await ctx.network?.start();
    registry.warmup.finish();
    this.timers.push(setInterval(() => mempool.limitSize(), MEMPOOL_TRIM_MS).unref());
    this.timers.push(setInterval(() => void this.saveFeeEstimates(), FEE_ESTIMATES_SAVE_MS).unref());
    log.info({ network: ctx.config.network.name, height: chain.height, tip: chain.tip.hashHex }, 'csd started');
  }

  /**
   * ZeroMQ and WebSocket notifications, once the chain is loaded and before the mempool is, so
   * that ZeroMQ announces what mempool.dat brings back (as Core).
   */
  private async startNotifications(): Promise<void> {
    const { ctx } = this;
    const zmq = zmqNotifications(ctx.config.options);
    if (zmq.length > 0) this.zmq = await ZmqNotificationInterface.start(zmq, ctx.chain, ctx.mempool, ctx.log, ctx.opoiContent);
    const { wsport } = ctx.config.options;
    if (wsport !== null) this.ws = await WebSocketService.start(ctx, wsport);
  }

  private async saveFeeEstimates(): Promise<void> {
    try {
      await this.ctx.feeEstimator.save(this.ctx.config.paths.feeEstimatesFile);
    } catch (err) {
      this.ctx.log.warn({ err }, 'could not save fee estimates');
    }
  }

  /** Clean shutdown; safe to call more than once (signals and `stop` may race). */
  stop(): Promise<void> {
    this.stopping ??= this.stopNow();
    return this.stopping;
  }

  private async stopNow(): Promise<void> {
    const { ctx } = this;
    ctx.log.info('shutdown: in progress');
    for (const t of this.timers) clearInterval(t);
    await ctx.network?.stop();
    await this.rpc?.close();
    await this.ws?.close();
    this.zmq?.close();
    // Let a block being connected finish before saving what depends on it.
    await ctx.chain.close();
    if (ctx.config.options.persistmempool && this.mempoolLoaded) {
      try {
        await ctx.mempool.save(ctx.config.paths.mempoolFile);
      } catch (err) {
        ctx.log.warn({ err }, 'could not save the mempool');
      }
    }
    ctx.mempool.close();
    ctx.wallet?.close();
    await closeIndexes(ctx);
    if (this.estimatesLoaded) {
      ctx.feeEstimator.flushUnconfirmed();
      await this.saveFeeEstimates();
    }
    await this.db.close();
    if (this.cookieWritten && ctx.config.paths.cookieFile) await removeCookie(ctx.config.paths.cookieFile);
    ctx.log.info('shutdown: done');
  }
}

/** An -assumeutxo value, <height>:<blockhash>:<hash> (checked by the option's table). */
function parseAssumeutxo(item: string): AssumeutxoEntry {
  const [height, blockHash, hash] = item.split(':');
  return { height: Number(height), blockHash, hash };
}

/** -par: 0 one thread per core, negative leaves that many cores free. */
function scriptThreads(par: number): number {
  if (par > 0) return par;
  return par === 0 ? 0 : Math.max(1, availableParallelism() + par);
}

async function startRpc(config: NodeConfig, registry: RpcRegistry, log: Logger): Promise<RpcHttpServer> {
  const o = config.options;
  const credentials: RpcCredentials[] = [];
  if (o.rpcpassword) {
    credentials.push({ user: o.rpcuser ?? '', password: o.rpcpassword });
  } else if (config.paths.cookieFile) {
    credentials.push(await writeCookie(config.paths.cookieFile));
  } else {
    throw new Error('RPC needs -rpcpassword or a cookie file (-rpccookiefile); both are disabled');
  }
  const server = new RpcHttpServer({
    registry,
    credentials,
    logger: log,
    allowList: AllowList.forRpc(o.rpcallowip),
    corsDomain: o.rpccorsdomain ?? undefined,
    rateLimit: o.rpcratelimit,
  });
  // Core: without -rpcallowip the server binds loopback only, whatever -rpcbind says. A bind
  // address may carry its own port ("addr:port", "[v6]:port"); -rpcport is the default.
  const binds =
    o.rpcallowip.length > 0
      ? o.rpcbind.map((bind) => {
          const { host, port } = splitHostPort(bind) ?? { host: bind, port: null };
          return { host, port: port ?? o.rpcport };
        })
      : [
          { host: '127.0.0.1', port: o.rpcport },
          { host: '::1', port: o.rpcport },
        ];
  if (o.rpcallowip.length === 0 && config.isSet('rpcbind')) {
    log.warn('-rpcbind was ignored because -rpcallowip was not specified, refusing to allow everyone to connect');
  }
  if (o.rpcallowip.length > 0 && !config.isSet('rpcbind')) {
    log.warn("option -rpcallowip was specified without -rpcbind; this doesn't usually make sense");
  }
  let bound = 0;
  for (const { host, port } of binds) {
    try {
      await server.listen(port, host);
      bound++;
    } catch (err) {
      // ::1 is missing on hosts without IPv6; the IPv4 loopback is enough.
      if (host === '::1' && (err as NodeJS.ErrnoException).code === 'EADDRNOTAVAIL') continue;
      await server.close();
      // A cookie nobody can use would only make cs-cli fail with "Authorization failed" later.
      if (!o.rpcpassword && config.paths.cookieFile) await removeCookie(config.paths.cookieFile);
      throw new Error(`Unable to bind RPC server to ${host.includes(':') ? `[${host}]` : host}:${port}: ${(err as Error).message}`);
    }
  }
  if (bound === 0) throw new Error('Unable to bind any endpoint for the RPC server');
  return server;
}
