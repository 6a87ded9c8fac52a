/**
 * JSON-RPC client for csd, shared by cs-pool, cs-bridge and cs-miner: one keep-alive HTTP
 * connection pool, Basic auth from user/password or csd's cookie file (read again after a 401,
 * since a restarted csd writes a new cookie), typed errors carrying Core's codes, and batches.
 * Every call is typed by the method's name from rpc-methods.gen.ts (generated from csd's method
 * table): its positional or named params and its result.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { type RpcErrorCodeName, rpcErrorCodeName } from './error-codes.ts';
import type { RpcMethods } from './rpc-methods.gen.ts';

export type RpcMethodName = keyof RpcMethods;
export type RpcParams<M extends RpcMethodName> = RpcMethods[M]['params'];
export type RpcNamedParams<M extends RpcMethodName> = RpcMethods[M]['named'];
export type RpcResult<M extends RpcMethodName> = RpcMethods[M]['result'];

/** The params argument of call(): optional when the method needs none. */
type CallArgs<M extends RpcMethodName> =
  readonly [] extends RpcParams<M> ? [params?: RpcParams<M>, timeoutMs?: number] : [params: RpcParams<M>, timeoutMs?: number];

/** The node answered with a JSON-RPC error: `code` is Core's (-5 invalid address, -8 bad parameter, ...), `codeName` its name. */
export class RpcError extends Error {
  override readonly name = 'RpcError';
  readonly codeName: RpcErrorCodeName | undefined;
  constructor(
    readonly code: number,
    message: string,
    readonly method: string,
  ) {
    super(message);
    this.codeName = rpcErrorCodeName(code);
  }
}

/** No JSON-RPC answer at all: the connection failed, timed out, or HTTP refused (401 bad credentials). */
export class RpcTransportError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
  }
}

export type RpcAuth = { readonly user: string; readonly password: string } | { readonly cookieFile: string };

export interface RpcClientOptions {
  /** http://host:port/ (a path selects csd's /wallet/<name> endpoint). */
  readonly url: string;
  readonly auth: RpcAuth;
  /** Per request; long polls pass their own. */
  readonly timeoutMs?: number;
}

export interface RpcCall<M extends RpcMethodName = RpcMethodName> {
  readonly method: M;
  readonly params?: RpcParams<M>;
}

/** One answer of a batch: a result or the error, in the order of the calls. */
export type RpcOutcome<T = unknown> = { readonly ok: true; readonly result: T } | { readonly ok: false; readonly error: RpcError };

interface RpcReply {
  readonly id: unknown;
  readonly result: unknown;
  readonly error: { code: number; message: string } | null;
}

export class RpcClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 8 });
  private readonly url: URL;
  private authHeader: string | null = null;
  private nextId = 1;

  constructor(private readonly opts: RpcClientOptions) {
    this.url = new URL(opts.url);
  }

  /** Calls a method with positional params; the result is typed as the method's help describes it. */
  call<M extends RpcMethodName>(method: M, ...[params, timeoutMs]: CallArgs<M>): Promise<RpcResult<M>> {
    return this.send1(method, params ?? [], timeoutMs) as Promise<RpcResult<M>>;
  }

  /** Calls a method with named params (csd maps them onto positions as Core does). */
  callNamed<M extends RpcMethodName>(method: M, params: RpcNamedParams<M>, timeoutMs?: number): Promise<RpcResult<M>> {
    return this.send1(method, params, timeoutMs) as Promise<RpcResult<M>>;
  }

  private async send1(method: string, params: unknown, timeoutMs: number | undefined): Promise<unknown> {
    const reply = (await this.post({ jsonrpc: '1.0', id: this.nextId++, method, params }, timeoutMs)) as RpcReply;
    if (typeof reply !== 'object' || reply === null || Array.isArray(reply))
      throw new RpcTransportError(`${method}: the answer is not a JSON-RPC object`);
    if (reply.error) throw new RpcError(reply.error.code, reply.error.message, method);
    return reply.result;
  }

  /** Several calls in one HTTP request; each answer is matched to its call by id. */
  async batch(calls: readonly RpcCall[]): Promise<RpcOutcome[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '1.0', id: first + i, method: c.method, params: c.params ?? [] }));
    const replies = await this.post(body);
    if (!Array.isArray(replies)) throw new RpcTransportError('batch: the answer is not an array');
    const byId = new Map<unknown, RpcReply>(replies.map((r: RpcReply) => [r.id, r]));
    return calls.map((c, i) => {
      const r = byId.get(first + i);
      if (!r) return { ok: false, error: new RpcError(-32603, 'no answer in the batch', c.method) };
      return r.error ? { ok: false, error: new RpcError(r.error.code, r.error.message, c.method) } : { ok: true, result: r.result };
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private credentials(): string {
    if (this.authHeader) return this.authHeader;
    const { auth } = this.opts;
    let pair: string;
    if ('cookieFile' in auth) {
      try {
        pair = readFileSync(auth.cookieFile, 'utf8').trim();
      } catch (e) {
        throw new RpcTransportError(`cannot read the node's cookie file ${auth.cookieFile}: ${(e as Error).message}`);
      }
    } else {
      pair = `${auth.user}:${auth.password}`;
    }
    this.authHeader = `Basic ${Buffer.from(pair).toString('base64')}`;
    return this.authHeader;
  }

  private async post(body: unknown, timeoutMs?: number): Promise<unknown> {
    const payload = JSON.stringify(body);
    let res = await this.send(payload, timeoutMs);
    if (res.status === 401 && 'cookieFile' in this.opts.auth) {
      // csd writes a fresh cookie at each start: read it again once.
      this.authHeader = null;
      res = await this.send(payload, timeoutMs);
    }
    if (res.status === 401 || res.status === 403) throw new RpcTransportError(`the node refused the credentials (HTTP ${res.status})`, res.status);
    try {
      return JSON.parse(res.body);
    } catch {
      throw new RpcTransportError(`HTTP ${res.status} without a JSON body`, res.status);
    }
  }

  private send(payload: string, timeoutMs = this.opts.timeoutMs ?? 30_000): Promise<{ status: number; body: string }> {
    const authorization = this.credentials();
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port || 80,
          path: this.url.pathname || '/',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload), authorization },
          timeout: timeoutMs,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
          res.on('error', (e) => reject(new RpcTransportError(e.message)));
        },
      );
      req.on('timeout', () => req.destroy(new RpcTransportError(`no answer within ${timeoutMs} ms`)));
      req.on('error', (e) =>
        reject(e instanceof RpcTransportError ? e : new RpcTransportError(`cannot reach the node at ${this.url.host}: ${e.message}`)),
      );
      req.end(payload);
    });
  }
}
