// A small stratum server standing in for the bridge in the miner's tests: real TCP, ZIP 301
// subscribe/authorize/set_target/notify built from a synthetic template with @cs/stratum, shares
// checked with the same validateShare the pool uses, and the OPoI side read with the same
// @cs/stratum functions the bridge uses: opoi.subscribe recorded, opoi.assign sent on demand,
// opoi.submit_result accepted only when response_hash is the SHA-256 of response_hex and
// token_count <= max_tokens of the assignment sent to that connection.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { EQUIHASH_48_5, REGTEST } from '@cs/consensus';
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
  opoiAssignParams,
  parseOpoiSubmitError,
  parseOpoiSubmitResult,
  parseOpoiSubscribe,
  parseSubmit,
  targetToHex,
  validateShare,
  type Job,
  type OpoiFailureReport,
  type OpoiResult,
  type OpoiSubscription,
  type StratumId,
} from '@cs/stratum';

export interface Assign {
  readonly model: string;
  readonly prompt: string;
  readonly maxTokens: number;
}

export interface ServerOptions {
  /** Send notify without the trailing ALGO_TYPE and PERSONALIZATION, as stock pools do. */
  readonly withoutAlgorithm?: boolean;
}

/** ~1 share in 17 x 16 solutions on regtest: a few shares a second from one thread. */
const SHARE_TARGET = REGTEST.powLimit / 16n;

export class TestStratumServer {
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly job: Job;
  private readonly seen = new Set<string>();
  port = 0;
  validShares = 0;
  invalidShares = 0;
  readonly announcements: OpoiSubscription[] = [];
  readonly results: OpoiResult[] = [];
  readonly errors: OpoiFailureReport[] = [];
  /** Sent assignments by request_id, with the connection they went to. */
  private readonly assigned = new Map<string, Assign & { socket: Socket }>();
  private opoiSocket: Socket | null = null;

  constructor(private readonly options: ServerOptions = {}) {
    const now = Math.floor(Date.now() / 1000);
    this.job = buildJob({
      id: '1',
      template: {
        version: 4,
        previousblockhash: randomBytes(32).toString('hex'),
        transactions: [],
        coinbasevalue: 5_000_000_000,
        target: targetToHex(REGTEST.powLimit),
        mintime: now - 600,
        curtime: now,
        bits: REGTEST.powLimitBits.toString(16),
        height: 10,
      },
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
    for (const s of this.sockets) s.destroy();
    await new Promise((r) => this.server.close(r));
  }

  /** Sends opoi.assign to the miner that announced OPoI; returns the request_id. */
  assign(a: Assign): string {
    if (!this.opoiSocket) throw new Error('no miner announced OPoI');
    const requestId = randomUUID();
    this.assigned.set(requestId, { ...a, socket: this.opoiSocket });
    const params = opoiAssignParams({
      requestId,
      model: a.model,
      prompt: Buffer.from(a.prompt),
      maxTokens: a.maxTokens,
      taskType: 'OPEN',
      taskClass: null,
    });
    // The reference system's framing: JSON-RPC 2.0 with id null.
    this.opoiSocket.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'opoi.assign', params, id: null })}\n`);
    return requestId;
  }

  private accept(socket: Socket): void {
    this.sockets.add(socket);
    socket.setEncoding('utf8');
    const splitter = new LineSplitter();
    const nonce1 = randomBytes(4);
    socket.on('close', () => this.sockets.delete(socket));
    socket.on('error', () => {});
    socket.on('data', (chunk: string) => {
      for (const line of splitter.push(chunk)) {
        const msg = decodeMessage(line);
        if (msg.kind !== 'request') continue;
        try {
          this.handle(socket, splitter, nonce1, msg.id, msg.method, msg.params);
        } catch (e) {
          socket.write(encodeError(msg.id, e instanceof StratumError ? e : new StratumError(StratumErrorCode.OTHER, (e as Error).message)));
        }
      }
    });
  }

  private handle(socket: Socket, splitter: LineSplitter, nonce1: Uint8Array, id: StratumId, method: string, params: readonly unknown[]): void {
    const send = (line: string) => socket.write(line);
    switch (method) {
      case 'mining.subscribe':
        return void send(encodeResult(id, [null, Buffer.from(nonce1).toString('hex')]));
      case 'mining.authorize': {
        send(encodeResult(id, true));
        send(encodeNotification('mining.set_target', [targetToHex(SHARE_TARGET)]));
        const notify = notifyParams(this.job, true);
        return void send(encodeNotification('mining.notify', this.options.withoutAlgorithm ? notify.slice(0, 8) : notify));
      }
      case 'mining.submit':
        try {
          validateShare({
            job: this.job,
            nonce1,
            submit: parseSubmit(params),
            target: SHARE_TARGET,
            previousTarget: null,
            seen: this.seen,
            now: Math.floor(Date.now() / 1000),
            maxFutureTime: REGTEST.maxFutureBlockTime,
          });
          this.validShares++;
          return void send(encodeResult(id, true));
        } catch (e) {
          this.invalidShares++;
          return void send(encodeError(id, e instanceof StratumError ? e : new StratumError(StratumErrorCode.OTHER, (e as Error).message)));
        }
      case 'opoi.subscribe': {
        const sub = parseOpoiSubscribe(params);
        this.announcements.push(sub);
        this.opoiSocket = socket;
        splitter.maxLineBytes = OPOI_MAX_LINE_BYTES;
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
      default:
        return void send(encodeError(id, new StratumError(StratumErrorCode.OTHER, `unsupported method ${method}`)));
    }
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
