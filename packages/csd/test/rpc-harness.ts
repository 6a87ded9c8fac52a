// RPC methods against a real chain and mempool, called through the real method registry (no
// HTTP): for method-level tests. Whole-daemon tests use test/daemon.ts instead.
import { OpoiContentStore } from '../src/opoi/content.ts';
import pino from 'pino';
import { loadConfig } from '../src/config/node-config.ts';
import { FeeEstimator } from '../src/fees/estimator.ts';
import type { NodeContext } from '../src/node/context.ts';
import { NodeClock } from '../src/rpc/clock.ts';
import { RpcError } from '../src/rpc/errors.ts';
import type { JsonValue } from '../src/format/json-value.ts';
import { RpcRegistry } from '../src/rpc/registry.ts';
import { withMempool, type MempoolContext } from './mempool-harness.ts';

export interface RpcTestNode {
  readonly ctx: NodeContext;
  readonly registry: RpcRegistry;
  /** The mempool fixture underneath (chain with mature coinbases paying the test key). */
  readonly fixture: MempoolContext;
  call(method: string, ...params: JsonValue[]): Promise<JsonValue>;
  /** Calls with named parameters. */
  callNamed(method: string, params: Record<string, JsonValue>): Promise<JsonValue>;
  /** The RpcError a call fails with (the assertion fails if it succeeds). */
  callError(method: string, ...params: JsonValue[]): Promise<RpcError>;
}

export async function withRpcNode(
  register: (registry: RpcRegistry, ctx: NodeContext) => void,
  fn: (node: RpcTestNode) => Promise<void>,
  args: readonly string[] = [],
): Promise<void> {
  await withMempool(async (fixture) => {
    const clock = new NodeClock(fixture.now);
    const config = loadConfig(['-regtest', `-datadir=${fixture.h.dir}`, '-noconf', ...args]);
    const ctx: NodeContext = {
      config,
      params: fixture.chain.params,
      chain: fixture.chain,
      mempool: fixture.mempool,
      feeEstimator: new FeeEstimator(clock.now),
      clock,
      log: pino({ level: 'silent' }),
      opoiContent: new OpoiContentStore(fixture.h.db, fixture.chain.opoi, () => undefined),
    };
    const registry = new RpcRegistry();
    register(registry, ctx);
    const rpcCtx = { uri: '/', peer: '127.0.0.1' };
    const node: RpcTestNode = {
      ctx,
      registry,
      fixture,
      call: (method, ...params) => registry.call(method, params, rpcCtx),
      callNamed: (method, params) => registry.call(method, params, rpcCtx),
      async callError(method, ...params) {
        try {
          await registry.call(method, params, rpcCtx);
        } catch (e) {
          if (e instanceof RpcError) return e;
          throw e;
        }
        throw new Error(`${method} succeeded but an RpcError was expected`);
      },
    };
    await fn(node);
  });
}
