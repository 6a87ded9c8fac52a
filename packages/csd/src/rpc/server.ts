/**
 * The node's HTTP server on the RPC port: JSON-RPC on POST `/` and `/wallet/<name>`, GET routes
 * that other modules add (REST under /rest/), and `GET /metrics`.
 *
 * Every request passes, in order: rpcallowip (403), routing (404), CORS preflight (204), HTTP
 * method (405). JSON-RPC then goes through Basic auth (401 after a delay), the body limit (413),
 * JSON parsing (-32700), the per-client rate limit (429) and dispatch. GET routes and /metrics
 * are not authenticated (REST is public and read-only, see docs/rpc.md) and not rate limited
 * here; REST applies its own limiter.
 */
import { createServer, type IncomingMessage, type OutgoingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { METRICS_CONTENT_TYPE, type MetricsRegistry } from '@cs/runtime/metrics';
import { AllowList } from './allowip.ts';
import type { RpcCredentials } from '@cs/runtime/datadir';
import { BasicAuth } from './auth.ts';
import { CorsPolicy, PREFLIGHT_HEADERS } from './cors.ts';
import { JsonRpcDispatcher, type RpcReply } from './dispatch.ts';
import { parseJson } from '../format/json-value.ts';
import type { Logger } from './logger.ts';
import { HttpMetrics } from './metrics.ts';
import { RateLimiter } from '@cs/runtime/rate-limit';
import type { RpcCallContext, RpcRegistry } from './registry.ts';
import { Router } from './router.ts';

/** Core's MAX_SIZE, the largest body its HTTP server accepts: 32 MiB, room for a maximal block in hex. */
export const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/** The interface document's JSON-RPC limit, per client address and minute. */
export const DEFAULT_RPC_RATE_LIMIT = 100;
/** Core sleeps this long before answering a wrong password, to slow down guessing. */
export const DEFAULT_AUTH_FAILURE_DELAY_MS = 250;
/** Core's rpcservertimeout: how long an idle keep-alive connection is kept. */
export const DEFAULT_KEEP_ALIVE_TIMEOUT_MS = 30_000;

const WWW_AUTHENTICATE = 'Basic realm="jsonrpc"';
/** How often close() looks for connections that have fallen idle. */
const CLOSE_SWEEP_MS = 50;
const RATE_WINDOW_MS = 60_000;

export interface RpcServerOptions {
  readonly registry: RpcRegistry;
  /** rpcuser/rpcpassword, or the cookie's credential; any of them is accepted. */
  readonly credentials: readonly RpcCredentials[];
  readonly logger: Logger;
  /** Default: loopback only. */
  readonly allowList?: AllowList;
  /** rpccorsdomain: the one origin browsers may call from. */
  readonly corsDomain?: string;
  /** rpcratelimit: JSON-RPC requests per client address and minute; 0 turns it off. */
  readonly rateLimit?: number;
  readonly maxBodyBytes?: number;
  readonly authFailureDelayMs?: number;
  readonly keepAliveTimeoutMs?: number;
  /** Where the server's metrics go and what /metrics serves; by default the registry's, which holds the call metrics. */
  readonly metrics?: MetricsRegistry;
  /** Monotonic milliseconds for the rate limit's windows (tests move it by hand). */
  readonly now?: () => number;
}

export interface RouteContext {
  /** The path after the route's prefix (the whole path for an exact route). */
  readonly path: string;
  readonly peer: string;
}

/** Writes the whole response; may be async. A throw becomes a 500 `{"error":"Internal server error"}`. */
export type RouteHandler = (req: IncomingMessage, res: ServerResponse, ctx: RouteContext) => void | Promise<void>;

type Target = { readonly kind: 'rpc' } | { readonly kind: 'get'; readonly handler: RouteHandler };

const RPC_TARGET: Target = { kind: 'rpc' };

export class RpcHttpServer {
  readonly metrics: MetricsRegistry;
  readonly #logger: Logger;
  readonly #auth: BasicAuth;
  readonly #allowList: AllowList;
  readonly #cors: CorsPolicy;
  readonly #limiter: RateLimiter;
  readonly #dispatcher: JsonRpcDispatcher;
  readonly #httpMetrics: HttpMetrics;
  readonly #router = new Router<Target>();
  readonly #maxBodyBytes: number;
  readonly #authFailureDelayMs: number;
  readonly #keepAliveTimeoutMs: number;
  readonly #servers: Server[] = [];
  readonly #registry: RpcRegistry;
  /** rpcallowip decided once per connection: the peer address cannot change on a socket. */
  readonly #socketAllowed = new WeakMap<Socket, boolean>();
  #closing = false;
  /** Counts the check phases that followed a turn with reads: a reply of an older count waited for something. */
  #turn = 0;
  #turnEnding = false;

  constructor(options: RpcServerOptions) {
    this.#logger = options.logger;
    this.#auth = new BasicAuth(options.credentials);
    this.#allowList = options.allowList ?? AllowList.forRpc([]);
    this.#cors = new CorsPolicy(options.corsDomain);
    this.#limiter = new RateLimiter({ limit: options.rateLimit ?? DEFAULT_RPC_RATE_LIMIT, windowMs: RATE_WINDOW_MS, now: options.now });
    this.#registry = options.registry;
    this.metrics = options.metrics ?? options.registry.metrics;
    this.#httpMetrics = new HttpMetrics(this.metrics);
    this.#dispatcher = new JsonRpcDispatcher(options.registry, this.#httpMetrics, this.#logger);
    this.#maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.#authFailureDelayMs = options.authFailureDelayMs ?? DEFAULT_AUTH_FAILURE_DELAY_MS;
    this.#keepAliveTimeoutMs = options.keepAliveTimeoutMs ?? DEFAULT_KEEP_ALIVE_TIMEOUT_MS;
    this.#router.add('/', RPC_TARGET);
    this.#router.add('/wallet/', RPC_TARGET, { prefix: true });
    this.addGetRoute('/metrics', (_req, res) => {
      res.writeHead(200, { 'Content-Type': METRICS_CONTENT_TYPE });
      res.end(this.metrics.render());
    });
  }

  /** Serves GET requests for `path` (every path under it with `prefix`), behind rpcallowip but without auth. */
  addGetRoute(path: string, handler: RouteHandler, options: { readonly prefix?: boolean } = {}): void {
    this.#router.add(path, { kind: 'get', handler }, options);
  }

  /** Starts listening on one address; call again for more (Core binds 127.0.0.1 and ::1 by default). */
  async listen(port: number, host = '127.0.0.1'): Promise<AddressInfo> {
    if (this.#closing) throw new Error('RPC server is closed');
    const server = createServer((req, res) => this.#onRequest(req, res));
    server.keepAliveTimeout = this.#keepAliveTimeoutMs;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.#logger.error({ err }, 'RPC server error'));
    this.#servers.push(server);
    const address = server.address() as AddressInfo;
    this.#logger.info({ address: address.address, port: address.port }, 'RPC server listening');
    return address;
  }

  /**
   * Stops accepting connections and lets requests in progress finish: their responses carry
   * `Connection: close`, and keep-alive connections are closed as soon as they fall idle. After
   * `graceMs` whatever is still open is cut.
   */
  async close(graceMs = 10_000): Promise<void> {
    this.#closing = true;
    this.#registry.interrupt();
    const servers = this.#servers.splice(0);
    const closeIdle = () => servers.forEach((server) => server.closeIdleConnections());
    // A connection busy at the start goes idle when its response is out; sweep until all are gone.
    const sweep = setInterval(closeIdle, CLOSE_SWEEP_MS);
    const force = setTimeout(() => servers.forEach((server) => server.closeAllConnections()), graceMs);
    const closed = Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
    closeIdle();
    await closed;
    clearInterval(sweep);
    clearTimeout(force);
    this.#logger.info({}, 'RPC server closed');
  }

  // The JSON-RPC path stays synchronous up to the body and uses one async step after it: every
  // promise and listener here is paid on each request (see bench/rpc-http.ts).
  #onRequest(req: IncomingMessage, res: ServerResponse): void {
    try {
      this.#route(req, res);
    } catch (err) {
      this.#fail(req, res, err);
    }
  }

  #route(req: IncomingMessage, res: ServerResponse): void {
    const peer = req.socket.remoteAddress ?? '';
    if (!this.#isAllowed(req.socket, peer)) {
      this.#logger.debug({ peer }, 'HTTP request rejected: client address not in rpcallowip');
      return this.#send(res, 403);
    }
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const match = this.#router.match(path);
    if (match === undefined) return this.#send(res, 404);
    const crossOrigin = this.#cors.apply(req, res);
    if (req.method === 'OPTIONS' && crossOrigin) return this.#send(res, 204, PREFLIGHT_HEADERS);
    const { target } = match;
    if (target.kind === 'rpc') {
      if (req.method !== 'POST') return this.#send(res, 405, { Allow: 'POST' }, 'JSONRPC server handles only POST requests');
      return this.#jsonRpc(req, res, { uri: path, peer });
    }
    if (req.method !== 'GET') return this.#send(res, 405, { Allow: 'GET' });
    if (this.#closing) res.setHeader('Connection', 'close');
    res.once('finish', () => this.#httpMetrics.response(res.statusCode));
    Promise.resolve(target.handler(req, res, { path: match.rest, peer })).catch((err: unknown) => this.#fail(req, res, err));
  }

  #jsonRpc(req: IncomingMessage, res: ServerResponse, ctx: RpcCallContext): void {
    const authorization = req.headers.authorization;
    if (authorization === undefined || !this.#auth.check(authorization)) {
      this.#httpMetrics.authFailed();
      if (authorization === undefined) return this.#send(res, 401, { 'WWW-Authenticate': WWW_AUTHENTICATE });
      // Like Core, only an attempt with credentials is slowed down and logged; a client's first
      // request without any is answered at once. The header itself is never logged.
      this.#logger.warn({ peer: ctx.peer }, 'incorrect RPC password attempt');
      // Unref'd: a pending refusal must not keep a stopping node alive.
      setTimeout(() => this.#send(res, 401, { 'WWW-Authenticate': WWW_AUTHENTICATE }), this.#authFailureDelayMs).unref();
      return;
    }
    if (Number(req.headers['content-length'] ?? 0) > this.#maxBodyBytes) return this.#tooLarge(res);
    readBody(req, this.#maxBodyBytes, (body) => {
      if (body === null) return this.#tooLarge(res);
      const turn = this.#readTurn();
      let reply: RpcReply | Promise<RpcReply>;
      try {
        reply = this.#reply(res, body, ctx);
      } catch (err) {
        return this.#fail(req, res, err);
      }
      Promise.resolve(reply).then(
        (reply) => (turn === this.#turn ? this.#sendLater(res, reply) : this.#sendReplyOrFail(res, reply)),
        (err: unknown) => this.#fail(req, res, err),
      );
    });
  }

  /** The reply to a JSON-RPC body: at once for a parse error or the rate limit, else once the call has run. */
  #reply(res: ServerResponse, body: string, ctx: RpcCallContext): RpcReply | Promise<RpcReply> {
    const request = parseJson(body);
    if (request === undefined) return this.#dispatcher.parseError();
    if (!this.#limiter.tryTake(ctx.peer)) {
      this.#httpMetrics.rateLimited();
      res.setHeader('Retry-After', this.#limiter.retryAfterSeconds(ctx.peer));
      return this.#dispatcher.rateLimited(request);
    }
    return this.#dispatcher.dispatch(request, ctx);
  }

  /**
   * JSON-RPC replies leave in the event loop's check phase, after every socket that was readable
   * in this turn has been read: the writes of a turn go out together instead of one between each
   * read (docs/rpc.md, Performance: a third more keep-alive throughput, measured).
   */
  #sendLater(res: ServerResponse, reply: RpcReply): void {
    setImmediate(() => this.#sendReplyOrFail(res, reply));
  }

  /**
   * The current turn's count, ended in its check phase. A reply that comes after that waited for
   * an event (a long poll's new tip, waitfornewblock, a worker): it leaves at once, as there are
   * no reads of its turn to group it with, and a pool waiting on a long poll gets its template
   * without the wait for the check phase.
   */
  #readTurn(): number {
    if (!this.#turnEnding) {
      this.#turnEnding = true;
      setImmediate(() => {
        this.#turn++;
        this.#turnEnding = false;
      });
    }
    return this.#turn;
  }

  #sendReplyOrFail(res: ServerResponse, reply: RpcReply): void {
    try {
      this.#sendReply(res, reply);
    } catch (err) {
      this.#fail(res.req, res, err);
    }
  }

  #tooLarge(res: ServerResponse): void {
    // The rest of the body is never read, so the connection cannot carry another request.
    res.setHeader('Connection', 'close');
    this.#send(res, 413, {}, `Request body larger than ${this.#maxBodyBytes} bytes`);
  }

  #isAllowed(socket: Socket, peer: string): boolean {
    let allowed = this.#socketAllowed.get(socket);
    if (allowed === undefined) {
      allowed = this.#allowList.allows(peer);
      this.#socketAllowed.set(socket, allowed);
    }
    return allowed;
  }

  #sendReply(res: ServerResponse, reply: RpcReply): void {
    if (reply.body === null) return this.#send(res, reply.status);
    this.#beginResponse(res, reply.status);
    res.writeHead(reply.status, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(reply.body) });
    res.end(reply.body);
  }

  #send(res: ServerResponse, status: number, headers: OutgoingHttpHeaders = {}, text?: string): void {
    this.#beginResponse(res, status);
    if (text === undefined) {
      res.writeHead(status, { ...headers, 'Content-Length': 0 });
      res.end();
    } else {
      res.writeHead(status, { ...headers, 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
      res.end(text);
    }
  }

  /** Counts the response; once closing, tells the client not to reuse the connection. */
  #beginResponse(res: ServerResponse, status: number): void {
    this.#httpMetrics.response(status);
    if (this.#closing) res.setHeader('Connection', 'close');
  }

  /** A bug or a route handler's exception: answered as REST errors are, logged with its stack, and the server carries on. */
  #fail(req: IncomingMessage, res: ServerResponse, err: unknown): void {
    this.#logger.error({ err, peer: req.socket.remoteAddress }, 'HTTP request handler failed');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const body = '{"error":"Internal server error"}';
    this.#beginResponse(res, 500);
    res.writeHead(500, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) });
    res.end(body);
  }
}

/**
 * Collects the request body and calls `done` with it as text, or with null as soon as it exceeds
 * `limit` bytes (once; later chunks are dropped). A client that disconnects before the end
 * simply never gets an answer.
 */
function readBody(req: IncomingMessage, limit: number, done: (body: string | null) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    if (size > limit) return;
    size += chunk.length;
    if (size <= limit) chunks.push(chunk);
    else done(null);
  });
  req.on('end', () => {
    if (size <= limit) done(chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString('utf8'));
  });
}
