// A wallet on a real chain, mempool and database, with every node RPC method registered and
// called through the registry (no HTTP): for wallet method tests. The chain is the mempool
// fixture's (110 blocks paying a key the wallet does not hold).
import { OpoiContentStore } from '../src/opoi/content.ts';
import pino from 'pino';
import { loadConfig } from '../src/config/node-config.ts';
import { FeeEstimator } from '../src/fees/estimator.ts';
import type { NodeContext } from '../src/node/context.ts';
import { NodeClock } from '../src/rpc/clock.ts';
import { registerNodeMethods } from '../src/node/methods.ts';
import { RpcError } from '../src/rpc/errors.ts';
import type { JsonValue } from '../src/format/json-value.ts';
import { RpcRegistry } from '../src/rpc/registry.ts';
import { Wallet } from '../src/wallet/wallet.ts';
import { withMempool, type MempoolContext } from './mempool-harness.ts';

export interface WalletTestNode {
  readonly ctx: NodeContext;
  readonly wallet: Wallet;
  readonly fixture: MempoolContext;
  /** The method table, for help texts. */
  readonly registry: RpcRegistry;
  call<T = unknown>(method: string, ...params: JsonValue[]): Promise<T>;
  callNamed<T = unknown>(method: string, params: Record<string, JsonValue>): Promise<T>;
  callAt<T = unknown>(uri: string, method: string, ...params: JsonValue[]): Promise<T>;
  /** The RpcError a call fails with (throws if it succeeds). */
  callError(method: string, ...params: JsonValue[]): Promise<RpcError>;
  /** Closes the wallet and opens it again from the database, as a restart would. */
  restart(): Promise<void>;
  /** Mines `n` blocks (with the mempool's transactions) paying `address` (default: a fresh wallet address). */
  mine(n: number, address?: string): Promise<string[]>;
}

export interface WalletHarnessOptions {
  readonly fallbackFee?: bigint;
  readonly lookahead?: number;
}

export async function withWalletNode(fn: (node: WalletTestNode) => Promise<void>, opts: WalletHarnessOptions = {}): Promise<void> {
  await withMempool(async (fixture) => {
    const clock = new NodeClock(fixture.now);
    const config = loadConfig(['-regtest', `-datadir=${fixture.h.dir}`, '-noconf']);
    const log = pino({ level: 'silent' });
    const feeEstimator = new FeeEstimator(clock.now);
    const openWallet = () =>
      Wallet.open({
        db: fixture.h.db,
        chain: fixture.chain,
        mempool: fixture.mempool,
        feeEstimator,
        params: fixture.chain.params,
        now: clock.now,
        log,
        fallbackFee: opts.fallbackFee ?? 20_000n,
        lookahead: opts.lookahead ?? 20,
      });
    let ctx: NodeContext;
    let registry: RpcRegistry;
    const setup = async () => {
      const wallet = openWallet();
      await wallet.start();
      const opoiContent = new OpoiContentStore(fixture.h.db, fixture.chain.opoi, () => undefined);
      ctx = { config, params: fixture.chain.params, chain: fixture.chain, mempool: fixture.mempool, feeEstimator, clock, log, opoiContent, wallet };
      registry = new RpcRegistry();
      registerNodeMethods(registry, ctx);
    };
    await setup();
    const callAt = <T>(uri: string, method: string, params: JsonValue[] | Record<string, JsonValue>) =>
      registry.call(method, params, { uri, peer: '127.0.0.1' }) as Promise<T>;
    const node: WalletTestNode = {
      get ctx() {
        return ctx;
      },
      get wallet() {
        return ctx.wallet!;
      },
      get registry() {
        return registry;
      },
      fixture,
      call: (method, ...params) => callAt('/', method, params),
      callNamed: (method, params) => callAt('/', method, params),
      callAt: (uri, method, ...params) => callAt(uri, method, params),
      async callError(method, ...params) {
        try {
          await callAt('/', method, params);
        } catch (e) {
          if (e instanceof RpcError) return e;
          throw e;
        }
        throw new Error(`${method} succeeded but an RpcError was expected`);
      },
      async restart() {
        ctx.wallet!.close();
        await setup();
      },
      async mine(n, address) {
        const to = address ?? ((await callAt<string>('/', 'getnewaddress', [])) as string);
        return callAt<string[]>('/', 'generatetoaddress', [n, to]);
      },
    };
    try {
      await fn(node);
    } finally {
      ctx!.wallet!.close();
    }
  });
}
