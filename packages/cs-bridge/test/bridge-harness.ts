// A real csd (wallet, rpcuser/rpcpassword, WebSocket, ZeroMQ hashblock), a real cs-pool and real
// cs-bridge processes on free loopback ports, each with its own temporary directory, started the
// way an operator starts them (the bridge from its environment file), and an OPoI miner built on
// cs-pool's test stratum client that announces OPoI and answers assignments as the test decides.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type OpoiAssignment,
  type OpoiAuditReport,
  type OpoiAuditTask,
  type OpoiModelFile,
  opoiSubmitAuditParams,
  opoiSubmitResultParams,
  opoiSubscribeParams,
  parseOpoiAssign,
  parseOpoiAudit,
} from '@cs/stratum';
import { Daemon, freePort } from '../../csd/test/daemon.ts';
import { STAGES as ALL_STAGES, type Stage } from '../src/store/store.ts';
import { PoolProcess, eventually, receivedTotal } from '../../cs-pool/test/pool-harness.ts';
import { StratumClient } from '../../cs-pool/test/stratum-client.ts';

export const BRIDGE_BIN = fileURLToPath(new URL('../bin/cs-bridge.js', import.meta.url));
export const API_KEY = 'test-api-key-0123456789abcdef';

export interface Chain {
  readonly node: Daemon;
  readonly pool: PoolProcess;
  readonly wsUrl: string;
  /** Where mined coins go (the node wallet's). */
  readonly payTo: string;
  mine(n?: number): Promise<void>;
}

/** csd with 101 blocks mined, and cs-pool (with `poolArgs` added) in front of it. */
export async function startChain(poolArgs: readonly string[] = []): Promise<Chain> {
  const zmq = `tcp://127.0.0.1:${await freePort()}`;
  const wsPort = await freePort();
  const node = new Daemon({ args: [`-zmqpubhashblock=${zmq}`, `-wsport=${wsPort}`, '-rpcratelimit=0', '-rest', '-fallbackfee=0.0002'] });
  await node.start();
  const payTo = await node.call<string>('getnewaddress');
  await node.call('generatetoaddress', 101, payTo);
  const pool = new PoolProcess(node, zmq, [`-rpcuser=${node.user}`, `-rpcpassword=${node.password}`, ...poolArgs]);
  await pool.start();
  return {
    node,
    pool,
    wsUrl: `ws://127.0.0.1:${wsPort}`,
    payTo,
    async mine(n = 1) {
      await node.call('generatetoaddress', n, payTo);
    },
  };
}

/** A wallet address of the node holding `coins` in one confirmed output: its txid:vout. */
export async function fundedAddress(chain: Chain, coins: number): Promise<{ address: string; utxo: string }> {
  const address = await chain.node.call<string>('getnewaddress');
  const txid = await chain.node.call<string>('sendtoaddress', address, coins);
  await chain.mine(1);
  const [coin] = await chain.node.call<{ txid: string; vout: number }[]>('listunspent', 1, 9_999_999, [address]);
  if (coin.txid !== txid) throw new Error('unexpected coin');
  return { address, utxo: `${coin.txid}:${coin.vout}` };
}

export class BridgeProcess {
  proc: ChildProcess | null = null;
  output = '';
  stratumPort = 0;
  apiPort = 0;

  constructor(
    readonly envFile: string,
    readonly dataDir: string,
  ) {}

  /** Writes an env file for `chain` (the values a test gives override the defaults here). */
  static async create(chain: Chain, values: Record<string, string>, dir = mkdtempSync(join(tmpdir(), 'cs-bridge-test-'))): Promise<BridgeProcess> {
    const b = new BridgeProcess(join(dir, '.env'), join(dir, 'data'));
    b.stratumPort = await freePort();
    b.apiPort = await freePort();
    const all: Record<string, string> = {
      UPSTREAM_POOL_ADDR: `127.0.0.1:${chain.pool.ports!.plain}`,
      CSD_RPC_URL: `http://127.0.0.1:${chain.node.rpcPort}`,
      CSD_RPC_USER: chain.node.user,
      CSD_RPC_PASS: chain.node.password,
      OPOI_REQUESTER_API_KEY: API_KEY,
      LISTEN_ADDR: `127.0.0.1:${b.stratumPort}`,
      API_LISTEN_ADDR: `127.0.0.1:${b.apiPort}`,
      CSD_WS_URL: chain.wsUrl,
      DATA_DIR: b.dataDir,
      POLL_INTERVAL_SECS: '0.2',
      LOG_LEVEL: 'debug',
      ...values,
    };
    writeFileSync(
      b.envFile,
      `${Object.entries(all)
        .map(([k, v]) => `${k}=${v}`)
        .join('\n')}\n`,
      { mode: 0o600 },
    );
    return b;
  }

  /** Runs `cs-bridge -env=FILE` and waits until its HTTP API answers; `env` adds process variables. */
  async start(env: Record<string, string> = {}): Promise<void> {
    const proc = this.launch(env);
    await eventually(async () => {
      if (proc.exitCode !== null || proc.signalCode !== null)
        throw new Error(`cs-bridge exited (${proc.exitCode ?? proc.signalCode}): ${this.output}`);
      return (await this.api('/healthz').catch(() => null)) ? true : undefined;
    }, 'cs-bridge to start');
  }

  launch(env: Record<string, string> = {}, args: readonly string[] = []): ChildProcess {
    this.output = '';
    const proc = spawn(process.execPath, [BRIDGE_BIN, `-env=${this.envFile}`, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    this.proc = proc;
    proc.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    return proc;
  }

  exited(): Promise<number | string> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc?.exitCode ?? proc?.signalCode ?? 0);
    return new Promise((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? 0)));
  }

  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | string> {
    this.proc?.kill(signal);
    return this.exited();
  }

  async api<T = unknown>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
    const res = await fetch(`http://127.0.0.1:${this.apiPort}${path}`, init);
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      // metrics are text
    }
    return { status: res.status, body: body as T };
  }

  postPrompt(requestId: string, prompt: string, key = API_KEY): Promise<{ status: number; body: { error?: string; stage?: string } }> {
    return this.api('/svc/opoi/prompt', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-opoi-api-key': key },
      body: JSON.stringify({ request_id: requestId, prompt }),
    });
  }

  async cleanup(): Promise<void> {
    await this.stop('SIGKILL');
    rmSync(join(this.envFile, '..'), { recursive: true, force: true });
  }
}

/** A miner that speaks OPoI: mining through the bridge, and assignments answered when the test says. */
export class OpoiMiner {
  private seen = 0;
  private audited = 0;
  private constructor(
    readonly client: StratumClient,
    readonly login: string,
  ) {}

  /** `files` and `audits` as opoi.subscribe announces them: the GGUF files held, and whether it takes opoi.audit. */
  static async connect(
    port: number,
    login: string,
    models = ['tiny'],
    announce = true,
    held: { files?: OpoiModelFile[]; audits?: boolean } = {},
  ): Promise<OpoiMiner> {
    const client = await StratumClient.connect(port);
    const m = new OpoiMiner(client, login);
    if (announce) {
      const r = await client.request(
        'opoi.subscribe',
        opoiSubscribeParams({ models, maxTokens: null, maxPromptBytes: null, concurrency: 1, files: held.files ?? [], audits: held.audits ?? false }),
      );
      if (r.error) throw new Error(`opoi.subscribe refused: ${JSON.stringify(r.error)}`);
    }
    await client.subscribe();
    const auth = await client.authorize(login);
    if (auth.result !== true) throw new Error(`authorize refused: ${JSON.stringify(auth.error)}`);
    return m;
  }

  assignments(): OpoiAssignment[] {
    return this.client.notifications.filter((n) => n.method === 'opoi.assign').map((n) => parseOpoiAssign(n.params));
  }

  /** Every opoi.* line this connection received. */
  opoiLines(): number {
    return this.client.notifications.filter((n) => n.method.startsWith('opoi.')).length;
  }

  /** The next assignment not yet returned by this method. */
  async nextAssignment(timeoutMs = 60_000): Promise<OpoiAssignment> {
    await this.client.waitFor(() => this.assignments().length > this.seen, 'an opoi.assign', timeoutMs);
    return this.assignments()[this.seen++];
  }

  answer(requestId: string, response: string, tokens: number) {
    return this.client.request('opoi.submit_result', opoiSubmitResultParams(requestId, Buffer.from(response), tokens));
  }

  /** A VERIFIABLE answer: its text and token ids. */
  answerVerifiable(requestId: string, text: string, ids: readonly number[]) {
    return this.client.request('opoi.submit_result', opoiSubmitResultParams(requestId, Buffer.from(text), ids.length, ids));
  }

  audits(): OpoiAuditTask[] {
    return this.client.notifications.filter((n) => n.method === 'opoi.audit').map((n) => parseOpoiAudit(n.params));
  }

  /** The next opoi.audit not yet returned by this method. */
  async nextAudit(timeoutMs = 60_000): Promise<OpoiAuditTask> {
    await this.client.waitFor(() => this.audits().length > this.audited, 'an opoi.audit', timeoutMs);
    return this.audits()[this.audited++];
  }

  /** The verdict on an audit, as the test decides it. */
  verdict(task: OpoiAuditTask, verdict: OpoiAuditReport['verdict'], position: number | null = null) {
    const evidence =
      verdict === 'invalid' ? { claimedToken: task.tokenIds[position ?? 0] ?? null, claimedLogit: 1.5, argmaxToken: 1, argmaxLogit: 9.25 } : null;
    const report: OpoiAuditReport = { auditId: task.auditId, requestId: task.requestId, verdict, position, evidence, reason: `scripted ${verdict}` };
    return this.client.request('opoi.submit_audit', opoiSubmitAuditParams(report));
  }

  close(): void {
    this.client.close();
  }
}

export { eventually };

/** getopoirequest's fields the tests read. */
export interface ChainRequest {
  status: string;
  executor: string | null;
  commits: { miner: string; revealed: boolean }[];
  commit_window_closed: boolean;
  winner: string | null;
  winner_amount: number | null;
  payout_status: string;
  payout_txid: string | null;
}

/** The stages on the way to `paid`, in order. */
export const STAGES: readonly Stage[] = ALL_STAGES.slice(0, ALL_STAGES.indexOf('paid') + 1);

/** Waits until the bridge has taken the request to `stage` or past it (other blocks may come meanwhile). */
export async function reachStage(bridge: BridgeProcess, id: string, stage: Stage): Promise<void> {
  let now: string | undefined;
  await eventually(async () => {
    const r = await bridge.api<{ stage: Stage }>(`/svc/opoi/submissions/${id}`);
    now = r.status === 200 ? r.body.stage : undefined;
    return now !== undefined && STAGES.indexOf(now as Stage) >= STAGES.indexOf(stage) ? true : undefined;
  }, `stage ${stage} (now ${now})`);
}

/** A REQUEST for model tiny from a freshly funded requester address (a REQUEST spends the requester's own coin). */
export async function submitRequest(chain: Chain, prompt: string, maxTokens = 100): Promise<string> {
  const id = randomUUID();
  const requester = (await fundedAddress(chain, 1)).address;
  await chain.node.call('submitopoirequest', id, 'tiny', createHash('sha256').update(prompt).digest('hex'), maxTokens, 0.05, requester);
  return id;
}

/** Mines one block at a time until `done` holds for the request on chain. */
export async function mineUntil(chain: Chain, id: string, done: (r: ChainRequest) => boolean, what: string): Promise<ChainRequest> {
  for (let i = 0; i < 60; i++) {
    const r = await chain.node.call<ChainRequest>('getopoirequest', id);
    if (done(r)) return r;
    await chain.mine(1);
  }
  throw new Error(`the chain never reached ${what}`);
}

/** Mines the blocks each stage waits for, once the bridge has done its part: from the answer to paid. */
export async function driveToPaid(chain: Chain, bridge: BridgeProcess, id: string): Promise<ChainRequest> {
  await reachStage(bridge, id, 'committed');
  await chain.mine(1);
  await mineUntil(chain, id, (r) => r.commit_window_closed, 'the end of the commit window');
  await reachStage(bridge, id, 'revealed');
  await chain.mine(1);
  await reachStage(bridge, id, 'published');
  const resolved = await mineUntil(chain, id, (r) => r.status !== 'PENDING', 'FULFILLED');
  await reachStage(bridge, id, 'claimed');
  await chain.mine(1);
  await reachStage(bridge, id, 'paid');
  return resolved;
}

/**
 * A graceful restart (SIGTERM exits 0), more blocks and a tick at the tip, then one more block to
 * confirm any second payment that tick would have broadcast: `wallet` still holds `paid`, once.
 */
export async function assertPaidOnceAfterRestart(chain: Chain, bridge: BridgeProcess, wallet: string, paid: bigint): Promise<void> {
  assert.equal(await bridge.stop('SIGTERM'), 0, 'SIGTERM stops the bridge cleanly');
  await bridge.start();
  await chain.mine(2);
  const height = await chain.node.call<number>('getblockcount');
  await eventually(
    async () => ((await bridge.api<{ node_height: number }>('/healthz')).body.node_height === height ? true : undefined),
    'a tick at the tip',
  );
  await chain.mine(1);
  assert.equal(BigInt(await receivedTotal(chain.node, wallet)), paid, 'paid exactly once');
}
