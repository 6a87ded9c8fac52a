/**
 * The running bridge: one lock per environment file and per data directory, the node checked, the
 * store opened, then the engine, the miners' port, the HTTP API and the node follower, in that
 * order; stopped in reverse.
 */
import { join } from 'node:path';
import { DataDirLockedError, lockDataDir, type DataDirLock } from '@cs/runtime/datadir';
import { RpcClient } from '@cs/client';
import type { Logger } from 'pino';
import type { BridgeConfig } from './config/env.ts';
import { BridgeApi } from './http/api.ts';
import { NodeFollower } from './node/follow.ts';
import { checkNode } from './node/node-check.ts';
import { OpoiEngine } from './opoi/engine.ts';
import { Relay } from './relay/relay.ts';
import { BridgeStore } from './store/store.ts';
import { mkdirSync } from 'node:fs';

export class StartError extends Error {}

export function rpcClientFor(config: Pick<BridgeConfig, 'rpcUrl' | 'rpcUser' | 'rpcPass'>): RpcClient {
  return new RpcClient({ url: config.rpcUrl, auth: { user: config.rpcUser, password: config.rpcPass }, timeoutMs: 30_000 });
}

/** Both locks, or a StartError saying which one another bridge holds. */
export async function lockBridge(config: BridgeConfig): Promise<DataDirLock[]> {
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  const locks: DataDirLock[] = [];
  try {
    locks.push(await lockDataDir(config.envFile, 'cs-bridge-env'));
    locks.push(await lockDataDir(config.dataDir, 'cs-bridge'));
    return locks;
  } catch (e) {
    for (const l of locks) await l.release();
    if (e instanceof DataDirLockedError) {
      const which = locks.length === 0 ? `environment file ${config.envFile}` : `data directory ${config.dataDir}`;
      throw new StartError(`another cs-bridge is already running with the ${which}; it was left untouched`);
    }
    throw e;
  }
}

export class Bridge {
  private constructor(
    readonly engine: OpoiEngine,
    readonly relay: Relay,
    readonly api: BridgeApi,
    private readonly follower: NodeFollower | null,
    private readonly rpc: RpcClient,
    private readonly locks: DataDirLock[],
  ) {}

  /** Starts with the locks already held (the caller took them before the wizard ran). */
  static async start(config: BridgeConfig, locks: DataDirLock[], log: Logger): Promise<Bridge> {
    const rpc = rpcClientFor(config);
    const info = await checkNode(rpc, config.rpcUrl, config.opoiAddress);
    const store = new BridgeStore(join(config.dataDir, 'db'));
    const engine = new OpoiEngine(config, rpc, store, log);
    await engine.start();
    const relay = await Relay.listen(config.listen, config.upstream, engine, log);
    const api = await BridgeApi.listen(config.apiListen, {
      engine,
      opoiAddress: config.opoiAddress,
      apiKey: config.apiKey,
      maxPromptBytes: config.maxPromptBytes,
      promptRateLimit: config.promptRateLimit,
      connections: () => relay.connections,
      log,
    });
    const follower = config.wsUrl ? new NodeFollower(config.wsUrl, () => engine.wake(), log) : null;
    follower?.start();
    engine.wake();
    log.info(
      {
        chain: info.chain,
        node_height: info.height,
        stratum: `${config.listen.host}:${relay.port}`,
        api: `${config.apiListen.host}:${api.port}`,
        upstream: `${config.upstream.host}:${config.upstream.port}`,
      },
      `cs-bridge started; node reachable at height ${info.height}`,
    );
    return new Bridge(engine, relay, api, follower, rpc, locks);
  }

  async stop(): Promise<void> {
    this.follower?.stop();
    await this.api.close();
    await this.relay.close();
    await this.engine.stop();
    await this.engine.store.close();
    this.rpc.close();
    for (const l of this.locks) await l.release();
  }
}
