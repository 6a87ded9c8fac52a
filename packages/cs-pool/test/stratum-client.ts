// A stratum client for tests: speaks ZIP 301 over TCP or TLS like a miner, and solves (48,5) jobs
// with the consensus CPU solver. It knows the block target from notify's bits, so a test can
// choose to send a share that is a block or one that is not.
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Writer, compactToTarget, fromHex, hashToBigInt, sha256d, solveHeader, toHex, type EquihashParams } from '@cs/consensus';
import { LineSplitter, decodeMessage, headerPrefix, parseNotify, type NotifiedJob, type StratumErrorArray } from '@cs/stratum';

export interface Reply {
  readonly result: unknown;
  readonly error: StratumErrorArray | null;
}

export interface EncodedRequests {
  readonly first: number;
  readonly count: number;
  readonly text: string;
}

export interface Solved {
  readonly params: string[];
  readonly isBlock: boolean;
  readonly hash: bigint;
}

export class StratumClient {
  private readonly splitter = new LineSplitter();
  private readonly waiting = new Map<number, { resolve: (r: Reply) => void; reject: (e: Error) => void }>();
  private nextId = 1;
  readonly notifications: { method: string; params: unknown[] }[] = [];
  /** Responses to no request of this client's: the pool's error line before it cuts a connection. */
  readonly unsolicited: Reply[] = [];
  private readonly listeners: (() => void)[] = [];
  nonce1: Uint8Array = new Uint8Array(0);
  sessionId: string | null = null;
  target = 0n;
  job: NotifiedJob | null = null;
  closed = false;
  private counter = 0;

  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => this.onData(chunk));
    socket.on('close', () => {
      this.closed = true;
      for (const w of this.waiting.values()) w.reject(new Error('connection closed before the answer'));
      this.waiting.clear();
      for (const l of this.listeners.splice(0)) l();
    });
    socket.on('error', () => {});
  }

  /** `from` (plain TCP): the local address to connect from (any of 127.0.0.0/8 reaches a pool on 127.0.0.1). */
  static connect(port: number, tls = false, from?: string): Promise<StratumClient> {
    return new Promise((resolve, reject) => {
      const socket = tls
        ? tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => resolve(new StratumClient(socket)))
        : netConnect({ host: '127.0.0.1', port, localAddress: from }, () => resolve(new StratumClient(socket)));
      socket.once('error', reject);
    });
  }

  private onData(chunk: string): void {
    for (const line of this.splitter.push(chunk)) {
      const msg = decodeMessage(line);
      if (msg.kind === 'response') {
        const waiting = this.waiting.get(msg.id as number);
        if (waiting) waiting.resolve({ result: msg.result, error: msg.error });
        else this.unsolicited.push({ result: msg.result, error: msg.error });
        this.waiting.delete(msg.id as number);
        continue;
      }
      const params = [...msg.params];
      this.notifications.push({ method: msg.method, params });
      if (msg.method === 'mining.set_target') this.target = BigInt(`0x${params[0]}`);
      if (msg.method === 'mining.notify') this.job = parseNotify(params);
      if (msg.method === 'mining.set_extranonce') this.nonce1 = fromHex(params[0] as string);
      for (const l of this.listeners.splice(0)) l();
    }
  }

  request(method: string, params: unknown[]): Promise<Reply> {
    return this.sendEncoded(this.encodeRequests(method, [params]))[0];
  }

  /** Requests encoded ahead of sending (a bench keeps the encoding out of its clock), ids taken in order. */
  encodeRequests(method: string, paramsList: readonly unknown[][]): EncodedRequests {
    const first = this.nextId;
    this.nextId += paramsList.length;
    return {
      first,
      count: paramsList.length,
      text: paramsList.map((params, i) => `${JSON.stringify({ id: first + i, method, params })}\n`).join(''),
    };
  }

  /** Writes encoded requests in one piece; one promise of a reply per request, in order. */
  sendEncoded(encoded: EncodedRequests): Promise<Reply>[] {
    const replies = Array.from(
      { length: encoded.count },
      (_, i) =>
        new Promise<Reply>((resolve, reject) => {
          if (this.closed) return reject(new Error('connection closed before the request'));
          this.waiting.set(encoded.first + i, { resolve, reject });
        }),
    );
    this.socket.write(encoded.text);
    return replies;
  }

  writeRaw(text: string): void {
    this.socket.write(text);
  }

  /** Resolves when a notification (or close) matching `pred` has arrived. */
  async waitFor(pred: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred()) {
      if (this.closed) throw new Error(`connection closed while waiting for ${what}`);
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.listeners.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  async subscribe(sessionId: string | null = null): Promise<Reply> {
    const r = await this.request('mining.subscribe', ['cs-test/1.0', sessionId, '127.0.0.1', 3333]);
    if (!r.error) {
      const [session, nonce1] = r.result as [string, string];
      this.sessionId = session;
      this.nonce1 = fromHex(nonce1);
    }
    return r;
  }

  async authorize(login: string, password = 'x'): Promise<Reply> {
    const before = this.notifications.length;
    const r = await this.request('mining.authorize', [login, password]);
    if (r.result === true) await this.waitFor(() => this.notifications.slice(before).some((n) => n.method === 'mining.notify'), 'the first job');
    return r;
  }

  /**
   * Solves the current job: the first solution whose hash meets the share target (or, to test
   * rejections, does not) and is (or is not, as asked) a block. NONCE_2 counts up per client so solutions never repeat.
   */
  solve(equihash: EquihashParams, wantBlock: boolean, worker: string, meetTarget = true): Solved {
    const job = this.job;
    if (!job) throw new Error('no job yet');
    const blockTarget = compactToTarget(new DataView(job.headerInput.buffer, job.headerInput.byteOffset).getUint32(104, true)).target;
    for (let tries = 0; tries < 100_000; tries++) {
      const nonce2 = new Uint8Array(32 - this.nonce1.length);
      new DataView(nonce2.buffer).setUint32(0, ++this.counter, true);
      const header = headerPrefix(job.headerInput, job.time, this.nonce1, nonce2);
      for (const solution of solveHeader(equihash, header)) {
        const full = new Writer(200).bytes(header).varBytes(solution).finish();
        const hash = hashToBigInt(sha256d(full));
        if (hash > this.target === meetTarget) continue;
        const isBlock = hash <= blockTarget;
        if (isBlock !== wantBlock) continue;
        const time = toHex(job.headerInput.subarray(100, 104));
        return { params: [worker, job.jobId, time, toHex(nonce2), toHex(new Writer(40).varBytes(solution).finish())], isBlock, hash };
      }
    }
    throw new Error('no such solution in 100,000 nonces');
  }

  submit(params: string[]): Promise<Reply> {
    return this.request('mining.submit', params);
  }

  close(): void {
    this.socket.destroy();
  }
}
