/**
 * The dashboard's HTTP server (docs/dashboard.md, "API"): the bundled pages, a same-origin API
 * that relays to the programs with the credentials added here (read-only RPC whitelist, node
 * REST, pool API, the bridge's status endpoints and the ask flow), `/live` for pushes, and
 * `/metrics`. Errors are JSON `{"error"}`; a program that is down is a 502 naming it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { RpcError, type RpcMethodName } from '@cs/client';
import type { Logger } from 'pino';
import { AskError, type AskService, parseAsk } from '../ask/ask-service.ts';
import { type DashboardConfig, publicView } from '../config/config.ts';
import type { LiveHub } from '../live/live-hub.ts';
import { requestSnapshot } from '../upstream/request-snapshot.ts';
import { refuseRpc } from '../upstream/rpc-whitelist.ts';
import type { PoolHistory } from '../upstream/pool-history.ts';
import { type Relayed, UpstreamDown, type Upstreams } from '../upstream/upstreams.ts';
import type { Asset } from '../web/bundle.ts';
import { HttpMetrics } from './metrics.ts';

const MAX_BODY = 128 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The pool API's GET routes (docs/pool.md, "HTTP API"). */
const POOL_PATH = /^(pool\/stats|blocks|payments|workers(\/history)?|user\/[A-Za-z0-9]{1,100}(\/workers(\/history)?)?)$/;
/** The pool's lists that page (page, pageSize): only those two parameters are relayed, as given. */
const POOL_PAGED = new Set(['blocks', 'payments']);
/** Node REST paths: the endpoint names of docs/rest.md, and nothing that climbs out of /rest/. */
const REST_PATH =
  /^(chaininfo|block|headers|blockhashbyheight|tx|address|mempool|getutxos|opoi)(\.[a-z]+)?(\/[A-Za-z0-9_-][A-Za-z0-9._-]*)*(\?[A-Za-z0-9_=&.-]*)?$/;

/** Label values of the responses counter: the API's routes, so that stray paths cannot grow it. */
const ROUTES = ['/api/node', '/api/pool', '/api/pool-history', '/api/bridge', '/api/ask', '/api/config', '/api/status', '/metrics'];

export interface ServerParts {
  readonly config: DashboardConfig;
  readonly upstreams: Upstreams;
  readonly live: LiveHub;
  readonly history: PoolHistory;
  readonly asker: AskService;
  readonly assets: Map<string, Asset>;
  readonly log: Logger;
}

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly type?: string;
}

const json = (status: number, value: unknown): Answer => ({ status, body: JSON.stringify(value) });
const relayed = (r: Relayed): Answer => ({ status: r.status, body: r.body });

export class DashboardServer {
  private server: Server | null = null;
  readonly metrics = new HttpMetrics();
  port = 0;

  constructor(private readonly parts: ServerParts) {}

  async listen(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.on('upgrade', (req, socket, head) => {
      if (new URL(req.url ?? '/', 'http://x').pathname === '/live') this.parts.live.handleUpgrade(req, socket, head);
      else socket.end('HTTP/1.1 404 Not Found\r\nconnection: close\r\n\r\n');
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.parts.config.port, this.parts.config.host, () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    let route = 'other';
    let answer: Answer;
    try {
      const asset = req.method === 'GET' ? this.parts.assets.get(url.pathname === '/index.html' ? '/' : url.pathname) : undefined;
      if (asset) {
        route = 'page';
        res.writeHead(200, { 'content-type': asset.type, 'content-length': asset.body.length, 'cache-control': 'no-cache' });
        res.end(asset.body);
        this.metrics.response(route, 200);
        return;
      }
      route = ROUTES.find((r) => url.pathname === r || url.pathname.startsWith(`${r}/`)) ?? 'other';
      answer = await this.route(req, url);
    } catch (e) {
      answer = this.failure(e, req);
    }
    this.metrics.response(route, answer.status);
    const headers = {
      'content-type': answer.type ?? 'application/json',
      'content-length': Buffer.byteLength(answer.body),
      'cache-control': 'no-store',
    };
    res.writeHead(answer.status, headers);
    res.end(answer.body);
  }

  private failure(e: unknown, req: IncomingMessage): Answer {
    if (e instanceof HttpError) return json(e.status, { error: e.message });
    if (e instanceof AskError) return json(400, { error: e.message });
    if (e instanceof RpcError) return json(400, { error: `the node refused: ${e.message}`, code: e.code });
    if (e instanceof UpstreamDown) {
      this.metrics.upstreamError(e.program);
      return json(502, { error: e.message, program: e.program });
    }
    this.parts.log.error({ err: (e as Error).message, url: req.url }, 'dashboard request failed');
    return json(500, { error: 'internal error' });
  }

  private async route(req: IncomingMessage, url: URL): Promise<Answer> {
    const { upstreams, config } = this.parts;
    const path = url.pathname;
    const get = (fn: () => Promise<Answer> | Answer): Promise<Answer> | Answer => {
      if (req.method !== 'GET') throw new HttpError(405, 'only GET here');
      return fn();
    };
    if (path === '/metrics') return get(() => ({ status: 200, body: this.renderMetrics(), type: 'text/plain; version=0.0.4' }));
    if (path === '/api/config') return get(() => json(200, publicView(config)));
    if (path === '/api/status') return get(async () => json(200, { ...(await upstreams.status()), feeds: this.parts.live.feedsUp() }));
    if (path === '/api/pool-history') return get(() => json(200, this.parts.history.list()));

    const node = /^\/api\/node\/(\d+)\/(rpc|rest\/.*)$/.exec(path);
    if (node) {
      const i = this.nodeIndex(node[1]);
      if (node[2] === 'rpc') {
        if (req.method !== 'POST') throw new HttpError(405, 'JSON-RPC goes by POST');
        const body = await readJson(req);
        const refused = refuseRpc(body);
        if (refused) throw new HttpError(403, refused);
        const { method, params } = body as { method: string; params?: unknown[] };
        try {
          // refuseRpc let only whitelisted method names through; their params are the node's to check.
          return json(200, { result: await upstreams.call(i, method as RpcMethodName, (params ?? []) as never) });
        } catch (e) {
          // The node answered: the call went through and the method failed, as JSON-RPC says it.
          if (e instanceof RpcError) return json(200, { error: { code: e.code, message: e.message } });
          throw e;
        }
      }
      const rest = node[2].slice('rest/'.length) + url.search;
      if (!REST_PATH.test(rest)) throw new HttpError(404, `not a REST path the dashboard relays: /rest/${rest}`);
      return get(async () => relayed(await upstreams.rest(i, rest)));
    }
    if (path.startsWith('/api/pool/')) {
      const rest = path.slice('/api/pool/'.length);
      if (!POOL_PATH.test(rest)) throw new HttpError(404, `not a pool API path: /api/${rest}`);
      return get(async () => relayed(await upstreams.pool(rest + pagingQuery(rest, url.searchParams))));
    }
    if (path === '/api/bridge/healthz' || path === '/api/bridge/pending') {
      return get(async () => relayed(await upstreams.bridge(path === '/api/bridge/pending' ? '/svc/opoi/pending' : '/healthz')));
    }
    const submission = /^\/api\/bridge\/submissions\/([^/]+)$/.exec(path);
    if (submission) {
      if (!UUID.test(submission[1])) throw new HttpError(400, 'request_id must be a UUID');
      return get(async () => relayed(await upstreams.bridge(`/svc/opoi/submissions/${submission[1].toLowerCase()}`)));
    }
    if (path === '/api/ask') {
      if (req.method !== 'POST') throw new HttpError(405, 'ask goes by POST');
      if (!publicView(config).ask) throw new HttpError(403, 'the ask form is off: it needs the bridge API URL and key, and ask not set to 0');
      return json(200, await this.parts.asker.ask(parseAsk(await readJson(req))));
    }
    const opoi = /^\/api\/node\/(\d+)\/opoi\/([^/]+)$/.exec(path);
    if (opoi) {
      const i = this.nodeIndex(opoi[1]);
      if (!UUID.test(opoi[2])) throw new HttpError(400, 'request_id must be a UUID');
      return get(async () => json(200, await requestSnapshot(upstreams, this.parts.asker, i, opoi[2].toLowerCase())));
    }
    throw new HttpError(404, `not found: ${path}`);
  }

  private nodeIndex(text: string): number {
    const i = Number(text);
    if (i >= this.parts.upstreams.nodeCount()) throw new HttpError(404, `no node ${i}: the dashboard knows ${this.parts.upstreams.nodeCount()}`);
    return i;
  }

  private renderMetrics(): string {
    const { live, config } = this.parts;
    return this.metrics.render({
      liveClients: live.browserCount(),
      feedsUp: live.feedsUp(),
      nodeNames: config.nodes.map((n) => n.name),
      relayed: live.relayed,
    });
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  if (!/^application\/json\b/.test(req.headers['content-type'] ?? '')) throw new HttpError(415, 'the body must be application/json');
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new HttpError(413, `the body is over ${MAX_BODY} bytes`);
    chunks.push(c as Buffer);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new HttpError(400, 'the body is not JSON');
  }
}

/** `?page=..&pageSize=..` for a paged pool list, each only when given and all digits (the pool checks the range). */
function pagingQuery(path: string, params: URLSearchParams): string {
  if (!POOL_PAGED.has(path)) return '';
  const kept = new URLSearchParams();
  for (const name of ['page', 'pageSize']) {
    const v = params.get(name);
    if (v === null) continue;
    if (!/^\d{1,16}$/.test(v)) throw new HttpError(400, `${name} must be a whole number`);
    kept.set(name, v);
  }
  const q = kept.toString();
  return q === '' ? '' : `?${q}`;
}
