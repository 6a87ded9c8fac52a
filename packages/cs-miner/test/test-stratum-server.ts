// A small stratum server standing in for the bridge (issue #12) in the miner's tests: real TCP,
// ZIP 301 subscribe/authorize/set_target/notify built from a synthetic template with @cs/stratum,
// shares checked with the same validateShare the pool uses, and the OPoI side checked the way the
// bridge must: opoi.subscribe recorded, opoi.assign sent on demand, opoi.submit_result accepted
// only when response_hash is the SHA-256 of response_hex and token_count <= max_tokens.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { EQUIHASH_48_5, REGTEST } from '@cs/consensus';
import {
  LineSplitter,
  StratumError,
  StratumErrorCode,
  buildJob,
  decodeMessage,
  encodeError,
  encodeNotification,
  encodeResult,
  notifyParams,
  parseSubmit,
  targetToHex,
  validateShare,
  type Job,
  type StratumId,
} from '@cs/stratum';

export interface Submission {
  readonly request_id: string;
  readonly response_hash: string;
  readonly response_hex: string;
  readonly token_count: number;
}

export interface SubmittedError {
  readonly request_id: string;
  readonly error: string;
  readonly message: string;
}

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
  announcements: unknown[] = [];
  readonly results: Submission[] = [];
  readonly errors: SubmittedError[] = [];
  /** Sent assignments by request_id, to check what comes back. */
  private readonly assigned = new Map<string, Assign>();
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
    this.assigned.set(requestId, a);
    const params = { request_id: requestId, model: a.model, prompt_hex: Buffer.from(a.prompt).toString('hex'), max_tokens: a.maxTokens, task_type: 'OPEN' };
    this.opoiSocket.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'opoi.assign', params: [params], id: null })}\n`);
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
        if (msg.kind === 'request') this.handle(socket, nonce1, msg.id, msg.method, msg.params);
      }
    });
  }

  private handle(socket: Socket, nonce1: Uint8Array, id: StratumId, method: string, params: readonly unknown[]): void {
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
      case 'opoi.subscribe':
        this.announcements.push(params[0]);
        this.opoiSocket = socket;
        return void send(encodeResult(id, true));
      case 'opoi.submit_result':
        return void send(this.submitResult(id, params[0] as Submission));
      case 'opoi.submit_error':
        this.errors.push(params[0] as SubmittedError);
        return void send(encodeResult(id, true));
      default:
        return void send(encodeError(id, new StratumError(StratumErrorCode.OTHER, `unsupported method ${method}`)));
    }
  }

  /** The bridge's checks: assigned here, the hash is the response's, the token count within max_tokens. */
  private submitResult(id: StratumId, s: Submission): string {
    const a = this.assigned.get(s.request_id);
    const bad = (why: string) => encodeError(id, new StratumError(StratumErrorCode.OTHER, why));
    if (!a) return encodeError(id, new StratumError(25 as StratumErrorCode, 'not assigned to this connection'));
    if (!/^([0-9a-f]{2})*$/.test(s.response_hex)) return bad('bad hex');
    if (createHash('sha256').update(Buffer.from(s.response_hex, 'hex')).digest('hex') !== s.response_hash) return bad('hash mismatch');
    if (!Number.isSafeInteger(s.token_count) || s.token_count < 0 || s.token_count > a.maxTokens) return bad('token_count over max_tokens');
    this.results.push(s);
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
