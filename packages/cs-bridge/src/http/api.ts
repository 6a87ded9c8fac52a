/**
 * The bridge's HTTP API (docs/bridge.md, "HTTP API"): prompt intake behind x-opoi-api-key, the
 * in-flight queue, one submission, health, Prometheus metrics and the OpenAPI description. Errors
 * are JSON `{"error": "..."}`; the key is compared in constant time and never logged.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { RateLimiter } from '@cs/runtime/rate-limit';
import type { Logger } from 'pino';
import type { HostPort } from '../config/env.ts';
import type { OpoiEngine } from '../opoi/engine.ts';
import type { AuditJob, RequestRecord } from '../store/store.ts';
import { OPENAPI } from './openapi.ts';
import { RouteTable } from '@cs/client/http-routes';

export interface ApiContext {
  readonly engine: OpoiEngine;
  /** The address the bridge stakes with: requesters name it as their request's executor. */
  readonly opoiAddress: string;
  readonly apiKey: string;
  readonly maxPromptBytes: number;
  readonly promptRateLimit: number;
  /** Miner connections open now. */
  readonly connections: () => number;
  readonly log: Logger;
}

class HttpFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

function send(res: ServerResponse, status: number, body: unknown, type = 'application/json'): void {
  const text = type === 'application/json' ? `${JSON.stringify(body)}\n` : String(body);
  res.writeHead(status, { 'content-type': type, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage, max: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (declared > max) return reject(new HttpFailure(413, `body larger than ${max} bytes`));
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        reject(new HttpFailure(413, `body larger than ${max} bytes`));
        req.destroy();
        return;
      }
      chunks.push(c);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

const minerOf = (a: { wallet: string; worker: string } | null | undefined) => (a ? `${a.wallet}.${a.worker}` : null);

/** A request in flight; `check` is a VERIFIABLE answer's pre-commit check by a second miner. */
function pendingView(r: RequestRecord) {
  const check = r.submission?.check;
  return {
    kind: 'request' as const,
    request_id: r.requestId,
    task_type: r.taskType ?? 'OPEN',
    model: r.model,
    max_tokens: r.maxTokens,
    payment: r.payment,
    has_prompt: r.prompt !== null,
    assigned_to: minerOf(r.assigned),
    stage: r.stage,
    check: check ? { miner: minerOf(check.assigned), verdict: check.verdict } : null,
  };
}

/** An audit this bridge's address was drawn for, not finished. */
function auditView(j: AuditJob) {
  return {
    kind: 'audit' as const,
    request_id: j.requestId,
    task_type: 'VERIFIABLE' as const,
    model: j.model,
    max_tokens: j.maxTokens,
    token_count: j.tokenIds.length,
    assigned_to: minerOf(j.assigned ?? j.miner),
    stage: j.stage,
    verdict: j.verdict ?? null,
    commit_txid: j.commitTxid ?? null,
    reveal_txid: j.revealTxid ?? null,
  };
}

function submissionView(r: RequestRecord) {
  const s = r.submission;
  return {
    request_id: r.requestId,
    stage: r.stage,
    note: r.note ?? null,
    submission_id: s?.id ?? null,
    task_type: r.taskType ?? 'OPEN',
    miner: s ? `${s.wallet}.${s.worker}` : null,
    response_hash: s?.responseHash ?? null,
    token_count: s?.tokenCount ?? null,
    token_ids: s?.tokenIds ?? null,
    check: s?.check ? { miner: minerOf(s.check.assigned), verdict: s.check.verdict } : null,
    commit_txid: s?.commitTxid ?? null,
    reveal_txid: s?.revealTxid ?? null,
    publish_txid: s?.publishTxid ?? null,
    payout_txid: s?.claimTxid ?? null,
    miner_share: s?.credited ? Number(BigInt(s.credited)) / 1e8 : null,
    check_share: s?.checkCredited ? Number(BigInt(s.checkCredited)) / 1e8 : null,
    response_hex: s?.responseHex ?? null,
  };
}

export class BridgeApi {
  private readonly server: Server;
  private readonly limiter: RateLimiter;
  private readonly keyDigest: Buffer;
  private readonly counts = new Map<string, number>();

  private constructor(private readonly ctx: ApiContext) {
    this.limiter = new RateLimiter({ limit: ctx.promptRateLimit });
    this.keyDigest = digest(ctx.apiKey);
    this.server = createServer((req, res) => {
      this.route(req, res).catch((e) => {
        const status = e instanceof HttpFailure ? e.status : 500;
        if (status === 500) ctx.log.error({ err: (e as Error).message, path: req.url }, 'HTTP API request failed');
        this.count(status);
        if (!res.headersSent) send(res, status, { error: status === 500 ? 'internal error' : (e as Error).message });
      });
    });
  }

  static async listen(at: HostPort, ctx: ApiContext): Promise<BridgeApi> {
    const api = new BridgeApi(ctx);
    await new Promise<void>((resolve, reject) => {
      api.server.once('error', reject);
      api.server.listen(at.port, at.host, () => {
        api.server.off('error', reject);
        resolve();
      });
    });
    return api;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private count(status: number): void {
    const key = String(status);
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  private keyMatches(given: string | string[] | undefined): boolean {
    return typeof given === 'string' && timingSafeEqual(digest(given), this.keyDigest);
  }

  /** Every route the API serves (docs/api/bridge.openapi.json describes each; its test reads this table). */
  static readonly ROUTES = new RouteTable([
    { method: 'POST', path: '/svc/opoi/prompt', handler: 'prompt' },
    { method: 'GET', path: '/svc/opoi/pending', handler: 'pending' },
    { method: 'GET', path: '/svc/opoi/submissions/{request_id}', handler: 'submission' },
    { method: 'GET', path: '/healthz', handler: 'healthz' },
    { method: 'GET', path: '/metrics', handler: 'metrics' },
    { method: 'GET', path: '/openapi.json', handler: 'openapi' },
  ] as const);

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = new URL(req.url ?? '/', 'http://bridge').pathname;
    const match = BridgeApi.ROUTES.match(req.method ?? 'GET', path);
    if (match.kind === 'not-found') throw new HttpFailure(404, 'no such route');
    if (match.kind === 'method-not-allowed') throw new HttpFailure(405, `use ${match.allowed.join(' or ')}`);
    const { engine } = this.ctx;
    const ok = (body: unknown, type?: string) => {
      this.count(200);
      send(res, 200, body, type);
    };
    switch (match.route.handler) {
      case 'prompt':
        return this.prompt(req, res);
      case 'pending':
        return ok([...engine.store.active().map(pendingView), ...engine.store.activeAudits().map(auditView)]);
      case 'submission': {
        const r = engine.store.request(match.params.request_id.toLowerCase());
        if (!r) throw new HttpFailure(404, 'request_id not known to this bridge');
        return ok(submissionView(r));
      }
      case 'healthz': {
        const healthy = engine.stake === 'active' && engine.lastError === null;
        const body = {
          status: healthy ? 'ok' : 'degraded',
          opoi_address: this.ctx.opoiAddress,
          stake: engine.stake,
          node_height: engine.height,
          last_error: engine.lastError,
          miners: this.ctx.connections(),
          opoi_miners: engine.opoiMiners,
        };
        this.count(healthy ? 200 : 503);
        send(res, healthy ? 200 : 503, body);
        return;
      }
      case 'metrics':
        return ok(this.metrics(), 'text/plain; version=0.0.4');
      case 'openapi':
        return ok(OPENAPI);
    }
  }

  private async prompt(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.limiter.tryTake(req.socket.remoteAddress ?? '')) throw new HttpFailure(429, 'Rate limit exceeded');
    if (!this.keyMatches(req.headers['x-opoi-api-key'])) throw new HttpFailure(401, 'missing or wrong x-opoi-api-key');
    // Room for the JSON around a prompt of the largest size, escaped.
    const text = await readBody(req, this.ctx.maxPromptBytes * 2 + 1024);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new HttpFailure(400, 'the body is not JSON');
    }
    const { request_id, prompt } = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
    if (typeof request_id !== 'string' || !UUID.test(request_id)) throw new HttpFailure(400, 'request_id must be a UUID string');
    if (typeof prompt !== 'string' || prompt === '') throw new HttpFailure(400, 'prompt must be a non-empty string');
    if (Buffer.byteLength(prompt) > this.ctx.maxPromptBytes) throw new HttpFailure(413, `prompt larger than ${this.ctx.maxPromptBytes} bytes`);
    const outcome = await this.ctx.engine.acceptPrompt(request_id, prompt);
    this.count(outcome.status);
    send(res, outcome.status, outcome.body);
  }

  private metrics(): string {
    const { engine } = this.ctx;
    const stages = new Map<string, number>();
    for (const r of engine.store.requests()) stages.set(r.stage, (stages.get(r.stage) ?? 0) + 1);
    const auditStages = new Map<string, number>();
    for (const j of engine.store.audits()) auditStages.set(j.stage, (auditStages.get(j.stage) ?? 0) + 1);
    const lines = [
      '# HELP cs_bridge_miner_connections Miner connections open.',
      '# TYPE cs_bridge_miner_connections gauge',
      `cs_bridge_miner_connections ${this.ctx.connections()}`,
      '# HELP cs_bridge_opoi_miners Authorized miners that announced OPoI support.',
      '# TYPE cs_bridge_opoi_miners gauge',
      `cs_bridge_opoi_miners ${engine.opoiMiners}`,
      '# HELP cs_bridge_node_height Chain height the node reported last.',
      '# TYPE cs_bridge_node_height gauge',
      `cs_bridge_node_height ${engine.height}`,
      '# HELP cs_bridge_stake_active 1 when the OPoI address has an ACTIVE stake.',
      '# TYPE cs_bridge_stake_active gauge',
      `cs_bridge_stake_active ${engine.stake === 'active' ? 1 : 0}`,
      '# HELP cs_bridge_requests Requests known to the bridge, by stage.',
      '# TYPE cs_bridge_requests gauge',
      ...[...stages].map(([s, n]) => `cs_bridge_requests{stage="${s}"} ${n}`),
      '# HELP cs_bridge_audits Audits the OPoI address was drawn for, by stage.',
      '# TYPE cs_bridge_audits gauge',
      ...[...auditStages].map(([s, n]) => `cs_bridge_audits{stage="${s}"} ${n}`),
      '# HELP cs_bridge_http_responses_total HTTP API responses by status.',
      '# TYPE cs_bridge_http_responses_total counter',
      ...[...this.counts].map(([s, n]) => `cs_bridge_http_responses_total{status="${s}"} ${n}`),
    ];
    return `${lines.join('\n')}\n`;
  }
}
