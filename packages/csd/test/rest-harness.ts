// The REST interface on a real RPC HTTP server over an RPC test node (test/rpc-harness.ts), in
// this process: for REST tests that need to control the clock, warmup or indexes, and for the
// REST benchmark. Whole-daemon REST tests use test/daemon.ts instead.
import { AddressIndex } from '../src/indexes/address-index.ts';
import { TransactionIndex } from '../src/indexes/tx-index.ts';
import { MetricsRegistry } from '@cs/runtime/metrics';
import type { NodeContext } from '../src/node/context.ts';
import { REST_PREFIX, createRestHandler, type RestOptions } from '../src/rest/handler.ts';
import { silentLogger } from '../src/rpc/logger.ts';
import { RpcHttpServer } from '../src/rpc/server.ts';
import { Warmup } from '../src/rpc/warmup.ts';
import { waitSynced } from './index-harness.ts';
import type { RpcTestNode } from './rpc-harness.ts';

export interface RestResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
  readonly text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly json: unknown;
}

export interface RestTestServer {
  readonly port: number;
  readonly ctx: NodeContext;
  get(path: string, headers?: Record<string, string>): Promise<RestResponse>;
  close(): Promise<void>;
}

export interface RestTestOptions {
  /** Which indexes to run: started and synced (default), created but never started, or none. */
  readonly indexes?: 'synced' | 'unstarted' | 'none';
  readonly rateLimit?: number;
  readonly warmup?: Warmup;
  readonly callRpc?: RestOptions['callRpc'];
  readonly now?: () => number;
  readonly corsDomain?: string;
  readonly blockCacheBytes?: number;
}

export async function startRestServer(node: RpcTestNode, opts: RestTestOptions = {}): Promise<RestTestServer> {
  const mode = opts.indexes ?? 'synced';
  const base = node.ctx;
  const db = node.fixture.h.db;
  const indexes =
    mode === 'none'
      ? {}
      : {
          txIndex: new TransactionIndex({ db, chain: base.chain, log: base.log }),
          addressIndex: new AddressIndex({ db, chain: base.chain, mempool: base.mempool, log: base.log }),
        };
  if (mode === 'synced') {
    indexes.txIndex!.start();
    indexes.addressIndex!.start();
    await waitSynced(() => indexes.txIndex!.progress());
    await waitSynced(() => indexes.addressIndex!.progress());
  }
  const ctx: NodeContext = { ...base, ...indexes };
  const server = new RpcHttpServer({
    registry: node.registry,
    credentials: [{ user: 'u', password: 'p' }],
    logger: silentLogger,
    corsDomain: opts.corsDomain,
    // Its own: several servers may run over one registry, whose metrics each server would add.
    metrics: new MetricsRegistry(),
  });
  const callRpc = opts.callRpc ?? ((method, params) => node.registry.call(method, params, { uri: REST_PREFIX, peer: '' }));
  server.addGetRoute(
    REST_PREFIX,
    createRestHandler({
      ctx,
      callRpc,
      warmup: opts.warmup ?? new Warmup(),
      rateLimit: opts.rateLimit ?? 0,
      now: opts.now,
      blockCacheBytes: opts.blockCacheBytes,
    }),
    { prefix: true },
  );
  const { port } = await server.listen(0);
  return {
    port,
    ctx,
    async get(path, headers = {}) {
      const res = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
      const body = Buffer.from(await res.arrayBuffer());
      const text = body.toString('utf8');
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { status: res.status, headers: res.headers, body, text, json };
    },
    async close() {
      await server.close();
      await indexes.txIndex?.close();
      await indexes.addressIndex?.close();
    },
  };
}
