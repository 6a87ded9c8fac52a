/**
 * The programs behind the dashboard: each node's JSON-RPC (through @cs/client) and REST, the
 * pool API and the bridge API. Every call has a timeout, and a program that does not answer comes
 * back as an `UpstreamDown` naming it, which the HTTP layer turns into a 502 while the dashboard
 * keeps serving everything else.
 */
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { RpcClient, RpcError, type RpcMethodName, type RpcParams, type RpcResult, RpcTransportError } from '@cs/client';
import type { DashboardConfig } from '../config/config.ts';

const TIMEOUT_MS = 10_000;

export type Program = 'node' | 'pool' | 'bridge';

export class UpstreamDown extends Error {
  constructor(
    readonly program: Program,
    message: string,
  ) {
    super(message);
  }
}

/** An upstream's HTTP answer, passed to the browser as it came (JSON bodies only). */
export interface Relayed {
  readonly status: number;
  readonly body: string;
}

export interface ProgramStatus {
  readonly name: string;
  readonly configured: boolean;
  readonly up: boolean;
  readonly detail: string;
}

export class Upstreams {
  private readonly rpc: RpcClient[];
  private readonly httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 16 });
  private readonly httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 16 });

  constructor(readonly config: DashboardConfig) {
    this.rpc = config.nodes.map((n) => new RpcClient({ url: n.rpcUrl, auth: n.auth, timeoutMs: TIMEOUT_MS }));
  }

  nodeCount(): number {
    return this.rpc.length;
  }

  /** The node's client itself, for code shared with other programs that takes one. */
  rpcClient(node: number): RpcClient {
    return this.rpc[node];
  }

  /** One JSON-RPC call; RpcError (the node answered with an error) passes through. */
  async call<M extends RpcMethodName>(node: number, method: M, params?: RpcParams<M>): Promise<RpcResult<M>> {
    // RpcClient.call's optional-params tuple does not resolve for an unresolved M; this is the same call.
    const call = this.rpc[node].call as (method: M, params?: RpcParams<M>) => Promise<RpcResult<M>>;
    try {
      return await call.call(this.rpc[node], method, params);
    } catch (e) {
      if (e instanceof RpcError) throw e;
      const why = e instanceof RpcTransportError ? e.message : ((e as NodeJS.ErrnoException).code ?? (e as Error).message);
      throw new UpstreamDown('node', `${this.config.nodes[node].name} did not answer JSON-RPC: ${why}`);
    }
  }

  rest(node: number, pathAndQuery: string): Promise<Relayed> {
    return this.send('node', this.config.nodes[node].name, `${this.config.nodes[node].restUrl}/rest/${pathAndQuery}`);
  }

  pool(pathAndQuery: string): Promise<Relayed> {
    if (!this.config.poolUrl) throw new UpstreamDown('pool', 'no pool API is configured');
    return this.send('pool', 'cs-pool', `${this.config.poolUrl}/api/${pathAndQuery}`);
  }

  bridge(path: string, init: { method?: string; body?: string; withKey?: boolean } = {}): Promise<Relayed> {
    if (!this.config.bridgeUrl) throw new UpstreamDown('bridge', 'no bridge API is configured');
    const headers: Record<string, string> = {};
    if (init.body !== undefined) headers['content-type'] = 'application/json';
    // The key is added here, server side: the browser never sees it.
    if (init.withKey && this.config.bridgeKey) headers['x-opoi-api-key'] = this.config.bridgeKey;
    return this.send('bridge', 'cs-bridge', `${this.config.bridgeUrl}${path}`, { method: init.method ?? 'GET', body: init.body, headers });
  }

  /** Up or down, and a word on each: node heights, pool miners, bridge health. */
  async status(): Promise<{ nodes: ProgramStatus[]; pool: ProgramStatus; bridge: ProgramStatus }> {
    const nodes = Promise.all(
      this.config.nodes.map(async (n, i) => {
        try {
          const height = await this.call(i, 'getblockcount');
          return { name: n.name, configured: true, up: true, detail: `height ${height}` };
        } catch (e) {
          return { name: n.name, configured: true, up: false, detail: (e as Error).message };
        }
      }),
    );
    const probe = async (name: string, configured: boolean, fn: () => Promise<Relayed>): Promise<ProgramStatus> => {
      if (!configured) return { name, configured, up: false, detail: 'not configured' };
      try {
        const r = await fn();
        // The bridge's /healthz answers 503 "degraded" while it runs: that is up, and says why.
        return { name, configured, up: true, detail: r.status === 200 ? 'ok' : `HTTP ${r.status}` };
      } catch (e) {
        return { name, configured, up: false, detail: (e as Error).message };
      }
    };
    const [n, pool, bridge] = await Promise.all([
      nodes,
      probe('cs-pool', this.config.poolUrl !== null, () => this.pool('pool/stats')),
      probe('cs-bridge', this.config.bridgeUrl !== null, () => this.bridge('/healthz')),
    ]);
    return { nodes: n, pool, bridge };
  }

  close(): void {
    for (const c of this.rpc) c.close();
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }

  /** One request over a kept-alive connection (node:http: fetch costs several times more per call). */
  private send(
    program: Program,
    name: string,
    url: string,
    init: { method?: string; body?: string; headers?: Record<string, string> } = {},
  ): Promise<Relayed> {
    const u = new URL(url);
    const headers: Record<string, string> = { ...init.headers };
    if (u.username)
      headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
    if (init.body !== undefined) headers['content-length'] = String(Buffer.byteLength(init.body));
    const send = u.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise((resolve, reject) => {
      const req = send(
        {
          agent: u.protocol === 'https:' ? this.httpsAgent : this.httpAgent,
          host: u.hostname,
          port: u.port,
          path: u.pathname + u.search,
          method: init.method ?? 'GET',
          headers,
          timeout: TIMEOUT_MS,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 502, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (e) => reject(new UpstreamDown(program, `${name} did not answer: ${(e as NodeJS.ErrnoException).code ?? e.message}`)));
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      req.on('error', (e) => reject(new UpstreamDown(program, `${name} did not answer: ${(e as NodeJS.ErrnoException).code ?? e.message}`)));
      req.end(init.body);
    });
  }
}
