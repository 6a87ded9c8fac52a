// A small stratum server standing in for the bridge in the miner's tests: real TCP, ZIP 301
// subscribe/authorize/set_target/notify built from a synthetic template with @cs/stratum, shares
// checked with the same validateShare the pool uses, and the OPoI side read with the same
// @cs/stratum functions the bridge uses: opoi.subscribe recorded, opoi.assign sent on demand,
// opoi.submit_result accepted only when response_hash is the SHA-256 of response_hex and
// token_count <= max_tokens of the assignment sent to that connection; opoi.audit sent on demand
// and opoi.submit_audit recorded.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { EQUIHASH_48_5, REGTEST, hashToBigInt } from '@cs/consensus';
import {
  LineSplitter,
  OPOI_MAX_LINE_BYTES,
  StratumError,
  StratumErrorCode,
  buildJob,
  decodeMessage,
  encodeError,
  encodeNotification,
  encodeResult,
  notifyParams,
  encodeOpoiAudit,
  opoiAssignParams,
  parseOpoiSubmitAudit,
  parseOpoiSubmitError,
  parseOpoiSubmitResult,
  parseOpoiSubscribe,
  parseSubmit,
  prepareTemplate,
  targetToHex,
  validateShare,
  type Job,
  type OpoiAuditReport,
  type OpoiAuditTask,
  type OpoiFailureReport,
  type OpoiManifest,
  type OpoiResult,
  type OpoiSubscription,
  type StratumId,
} from '@cs/stratum';

export interface Assign {
  readonly model: string;
  readonly prompt: string;
  readonly maxTokens: number;
  /** A VERIFIABLE assignment's manifest. */
  readonly manifest?: OpoiManifest;
}

export interface ServerOptions {
  /** Send notify without the trailing ALGO_TYPE and PERSONALIZATION, as stock pools do. */
  readonly withoutAlgorithm?: boolean;
}

/** ~1 share in 17 x 16 solutions on regtest: a few shares a second from one thread. */
export const SHARE_TARGET = REGTEST.powLimit / 16n;

/** One miner connection and what the server told it last. */
interface Session {
  readonly socket: Socket;
  readonly splitter: LineSplitter;
  nonce1: Uint8Array;
  /** Shares solved before the miner saw a set_extranonce are still taken, as pools do. */
  previousNonce1: Uint8Array | null;
}

export class TestStratumServer {
  private readonly server: Server;
  private readonly sessions = new Set<Session>();
  private readonly job: Job;
  private readonly seen = new Set<string>();
  port = 0;
  target = SHARE_TARGET;
  /** The target before the last setTarget: shares meeting only it are accepted, as within a grace period. */
  private previousTarget: bigint | null = null;
  validShares = 0;
  invalidShares = 0;
  /** Accepted shares whose hash is above the previous target: only a miner mining to the new one sends them. */
  sharesOverPreviousTarget = 0;
  /** Accepted shares per NONCE_1 (hex). */
  readonly sharesByNonce1 = new Map<string, number>();
  readonly announcements: OpoiSubscription[] = [];
  readonly results: OpoiResult[] = [];
  readonly errors: OpoiFailureReport[] = [];
  readonly auditReports: OpoiAuditReport[] = [];
  /** Sent assignments by request_id, with the connection they went to. */
  private readonly assigned = new Map<string, Assign & { socket: Socket }>();
  /** The connections that sent opoi.subscribe, in order; assignments and audits go to one of them. */
  private readonly opoiSockets: Socket[] = [];

  constructor(private readonly options: ServerOptions = {}) {
    const now = Math.floor(Date.now() / 1000);
    this.job = buildJob({
      id: '1',
      template: prepareTemplate({
        version: 4,
        previousblockhash: randomBytes(32).toString('hex'),
        transactions: [],
        coinbasevalue: 5_000_000_000,
        target: targetToHex(REGTEST.powLimit),
        mintime: now - 600,
        curtime: now,
        bits: REGTEST.powLimitBits.toString(16),
        height: 10,
      }),
      payouts: [{ value: 5_000_000_000n, scriptPubKey: Uint8Array.of(0x51) }],
      coinbaseTag: Buffer.from('cs-miner test'),
      equihash: EQUIHASH_48_5,
    });
    this.server = createServer((s) => this.accept(s));
  }

  async listen(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
    return this.port;
  }

  async close(): Promise<void> {
    for (const s of this.sessions) s.socket.destroy();
    await new Promise((r) => this.server.close(r));
  }

  get connections(): number {
    return this.sessions.size;
  }

  /** mining.set_target to every miner, then the job again (miners may apply a target at the next notify). */
  setTarget(target: bigint): void {
    this.previousTarget = this.target;
    this.target = target;
    for (const s of this.sessions) {
      s.socket.write(encodeNotification('mining.set_target', [targetToHex(target)]));
      this.notify(s, false);
    }
  }

  /** mining.set_extranonce with a fresh NONCE_1 to every miner, then a clean job; returns the new NONCE_1s (hex). */
  setExtranonce(): string[] {
    const fresh: string[] = [];
    for (const s of this.sessions) {
      s.previousNonce1 = s.nonce1;
      s.nonce1 = randomBytes(4);
      fresh.push(Buffer.from(s.nonce1).toString('hex'));
      s.socket.write(encodeNotification('mining.set_extranonce', [Buffer.from(s.nonce1).toString('hex'), 4]));
      this.notify(s, true);
    }
    return fresh;
  }

  /** client.reconnect [host, port, wait] to every miner. */
  reconnect(host: string, port: number, waitSeconds: number): void {
    for (const s of this.sessions) s.socket.write(encodeNotification('client.reconnect', [host, port, waitSeconds]));
  }

  /** The `miner`th connection that announced OPoI (the latest by default). */
  private opoiSocket(miner: number | undefined): Socket {
    const socket = miner === undefined ? this.opoiSockets.at(-1) : this.opoiSockets[miner];
    if (!socket || socket.destroyed) throw new Error('no such miner announced OPoI');
    return socket;
  }

  /** Sends opoi.assign to a miner that announced OPoI; returns the request_id. */
  assign(a: Assign, miner?: number): string {
    const socket = this.opoiSocket(miner);
    const requestId = randomUUID();
    this.assigned.set(requestId, { ...a, socket });
    const params = opoiAssignParams({
      requestId,
      model: a.model,
      prompt: Buffer.from(a.prompt),
      maxTokens: a.maxTokens,
      taskType: a.manifest ? 'VERIFIABLE' : 'OPEN',
      taskClass: null,
      manifest: a.manifest ?? null,
    });
    // The reference system's framing: JSON-RPC 2.0 with id null.
    socket.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'opoi.assign', params, id: null })}\n`);
    return requestId;
  }

  /** Sends opoi.audit to a miner that announced OPoI. */
  audit(task: OpoiAuditTask, miner?: number): void {
    this.opoiSocket(miner).write(encodeOpoiAudit(task));
  }

  private notify(s: Session, clean: boolean): void {
    const notify = notifyParams(this.job, clean);
    s.socket.write(encodeNotification('mining.notify', this.options.withoutAlgorithm ? notify.slice(0, 8) : notify));
  }

  private accept(socket: Socket): void {
    const session: Session = { socket, splitter: new LineSplitter(), nonce1: randomBytes(4), previousNonce1: null };
    this.sessions.add(session);
    socket.setEncoding('utf8');
    socket.on('close', () => this.sessions.delete(session));
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      for (const line of session.splitter.push(chunk)) {
        const msg = decodeMessage(line);
        if (msg.kind !== 'request') continue;
        try {
          this.handle(session, msg.id, msg.method, msg.params);
        } catch (e) {
          socket.write(encodeError(msg.id, e instanceof StratumError ? e : new StratumError(StratumErrorCode.OTHER, (e as Error).message)));
        }
      }
    });
  }

  private handle(session: Session, id: StratumId, method: string, params: readonly unknown[]): void {
    const { socket } = session;
    const send = (line: string) => socket.write(line);
    switch (method) {
      case 'mining.subscribe':
        return void send(encodeResult(id, [null, Buffer.from(session.nonce1).toString('hex')]));
      case 'mining.authorize':
        send(encodeResult(id, true));
        send(encodeNotification('mining.set_target', [targetToHex(this.target)]));
        return this.notify(session, true);
      case 'mining.submit':
        return void send(this.submit(session, id, params));
      case 'opoi.subscribe': {
        const sub = parseOpoiSubscribe(params);
        this.announcements.push(sub);
        this.opoiSockets.push(socket);
        session.splitter.maxLineBytes = OPOI_MAX_LINE_BYTES;
        return void send(encodeResult(id, { subscribed: true, models: sub.models }));
      }
      case 'opoi.submit_result':
        return void send(this.submitResult(socket, id, params));
      case 'opoi.submit_error': {
        const report = parseOpoiSubmitError(params);
        if (this.assigned.get(report.requestId)?.socket !== socket)
          return void send(encodeError(id, new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'not assigned to this connection')));
        this.errors.push(report);
        return void send(encodeResult(id, { accepted: true }));
      }
      case 'opoi.submit_audit':
        this.auditReports.push(parseOpoiSubmitAudit(params));
        return void send(encodeResult(id, { accepted: true }));
      default:
        return void send(encodeError(id, new StratumError(StratumErrorCode.OTHER, `unsupported method ${method}`)));
    }
  }

  /** The pool's share check (validateShare), against the current NONCE_1 and then the previous one. */
  private submit(session: Session, id: StratumId, params: readonly unknown[]): string {
    const submit = parseSubmit(params);
    const check = (nonce1: Uint8Array) =>
      validateShare({
        job: this.job,
        nonce1,
        submit,
        target: this.target,
        previousTarget: this.previousTarget,
        seen: this.seen,
        now: Math.floor(Date.now() / 1000),
        maxFutureTime: REGTEST.maxFutureBlockTime,
      });
    for (const nonce1 of [session.nonce1, session.previousNonce1]) {
      if (nonce1 === null || submit.nonce2.length !== 64 - nonce1.length * 2) continue;
      try {
        const share = check(nonce1);
        this.validShares++;
        const key = Buffer.from(nonce1).toString('hex');
        this.sharesByNonce1.set(key, (this.sharesByNonce1.get(key) ?? 0) + 1);
        if (this.previousTarget !== null && hashToBigInt(share.hash) > this.previousTarget) this.sharesOverPreviousTarget++;
        return encodeResult(id, true);
      } catch (e) {
        if (nonce1 === session.previousNonce1 || session.previousNonce1 === null) {
          this.invalidShares++;
          return encodeError(id, e instanceof StratumError ? e : new StratumError(StratumErrorCode.OTHER, (e as Error).message));
        }
      }
    }
    this.invalidShares++;
    return encodeError(id, new StratumError(StratumErrorCode.OTHER, 'NONCE_2 of the wrong length'));
  }

  /** The bridge's checks: the hash is the response's (parseOpoiSubmitResult), assigned to this connection, within max_tokens. */
  private submitResult(socket: Socket, id: StratumId, params: readonly unknown[]): string {
    const r = parseOpoiSubmitResult(params);
    const a = this.assigned.get(r.requestId);
    if (a?.socket !== socket) return encodeError(id, new StratumError(StratumErrorCode.NOT_SUBSCRIBED, 'not assigned to this connection'));
    if (r.tokenCount > a.maxTokens) return encodeError(id, new StratumError(StratumErrorCode.OTHER, 'token_count over max_tokens'));
    this.results.push(r);
    return encodeResult(id, { accepted: true, submission_id: this.results.length });
  }
}

/** Polls until `check` is true. */
export async function until(check: () => boolean, what: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
