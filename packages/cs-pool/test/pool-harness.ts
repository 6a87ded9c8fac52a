// A real csd (regtest, cookie auth, ZeroMQ hashblock) and real cs-pool processes on free loopback
// ports, each with its own temporary directory, driven as an operator and miners would.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REGTEST, encodeDestination } from '@cs/consensus';
import { Daemon, freePort } from '../../csd/test/daemon.ts';
import type { StratumClient } from './stratum-client.ts';

export const POOL_BIN = fileURLToPath(new URL('../bin/cs-pool.js', import.meta.url));

export async function startNode(): Promise<{ node: Daemon; zmq: string }> {
  const zmq = `tcp://127.0.0.1:${await freePort()}`;
  const node = new Daemon({ cookie: true, args: [`-zmqpubhashblock=${zmq}`, '-rpcratelimit=0', '-rest'] });
  await node.start();
  return { node, zmq };
}

export interface PoolPorts {
  plain: number;
  vardiff: number;
  rental: number;
  tls: number;
  solo: number;
  api: number;
}

export class PoolProcess {
  readonly datadir = mkdtempSync(join(tmpdir(), 'cs-pool-test-'));
  proc: ChildProcess | null = null;
  output = '';
  ports: PoolPorts | null = null;
  /** Options for node itself (a bench's --cpu-prof), before the program. */
  nodeArgs: readonly string[] = [];

  constructor(
    private readonly node: Daemon,
    private readonly zmq: string,
    private readonly args: readonly string[] = [],
  ) {}

  async start(env: Record<string, string> = {}, extra: readonly string[] = []): Promise<void> {
    if (!this.ports) {
      this.ports = {
        plain: await freePort(),
        vardiff: await freePort(),
        rental: await freePort(),
        tls: await freePort(),
        solo: await freePort(),
        api: await freePort(),
      };
    }
    const p = this.ports;
    const args = [
      '-regtest',
      `-datadir=${this.datadir}`,
      `-rpcport=${this.node.rpcPort}`,
      `-rpccookiefile=${this.node.cookiePath}`,
      `-zmqhashblock=${this.zmq}`,
      '-bind=127.0.0.1',
      `-port=${p.plain}`,
      `-vardiffport=${p.vardiff}`,
      `-rentalport=${p.rental}`,
      `-tlsport=${p.tls}`,
      `-soloport=${p.solo}`,
      `-apiport=${p.api}`,
      '-processinterval=0.2',
      '-payoutinterval=0',
      // Regtest has no fee history to estimate from.
      '-payoutfeerate=2',
      '-loglevel=debug',
      ...this.args,
      ...extra,
    ];
    this.output = '';
    const proc = spawn(process.execPath, [...this.nodeArgs, POOL_BIN, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    this.proc = proc;
    proc.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) throw new Error(`cs-pool exited with ${proc.exitCode}: ${this.output}`);
      if (this.output.includes('cs-pool started')) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`cs-pool did not start: ${this.output}`);
  }

  async api<T = unknown>(path: string): Promise<T> {
    const res = await fetch(`http://127.0.0.1:${this.ports!.api}${path}`);
    if (path === '/metrics') return (await res.text()) as T;
    return (await res.json()) as T;
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

  async cleanup(): Promise<void> {
    await this.stop('SIGKILL');
    rmSync(this.datadir, { recursive: true, force: true });
  }
}

/** A block as GET /api/blocks lists it (docs/pool.md, "HTTP API"). */
export interface ApiBlock {
  height: number;
  hash: string;
  status: string;
  confirmations: number;
  reward: number;
  fee: number;
  finder: string;
  worker: string;
  solo: boolean;
  time: number;
  credits: Record<string, number>;
}

/** The pool's record of a block once it has `status`. */
export function blockWith(pool: PoolProcess, hash: string, status: string): Promise<ApiBlock> {
  return eventually(
    async () => (await pool.api<ApiBlock[]>('/api/blocks')).find((b) => b.hash === hash && b.status === status),
    `block ${hash} ${status}`,
  );
}

/** Polls until `check` returns a value (not undefined), or fails with what it last saw. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** A miner's payout address outside csd's wallet, as real miners' are (the pool wallet must not spend it). */
export function externalAddress(): string {
  return encodeDestination({ type: 'witness', version: 0, program: randomBytes(20) }, REGTEST.address);
}

/** Everything confirmed outputs ever paid an address, in base units (csd's address index over REST). */
export async function receivedTotal(node: Daemon, address: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${node.rpcPort}/rest/address/${address}`);
  const r = (await res.json()) as { totalReceived: number };
  return Math.round(r.totalReceived * 1e8);
}

/** Waits until `c` holds a job on the node's tip (a block just found reaches the pool a moment later); the tip's hash. */
export async function jobOnTip(node: Daemon, c: StratumClient): Promise<string> {
  const tip = await node.call<string>('getbestblockhash');
  await c.waitFor(() => c.job !== null && Buffer.from(c.job.headerInput.subarray(4, 36)).reverse().toString('hex') === tip, 'the job on the tip');
  return tip;
}

/** A block found by `c` for `login` on the tip's job, accepted by the pool; its hash, once it is the node's tip. */
export async function findBlock(node: Daemon, c: StratumClient, login: string): Promise<string> {
  await jobOnTip(node, c);
  const s = c.solve(REGTEST.equihash, true, login);
  const reply = await c.submit(s.params);
  if (reply.result !== true) throw new Error(`the pool refused a block: ${JSON.stringify(reply.error)}`);
  const hash = s.hash.toString(16).padStart(64, '0');
  await eventually(async () => ((await node.call<string>('getbestblockhash')) === hash ? true : undefined), 'the block on the chain');
  return hash;
}

/** A pool's socket processes (-stratumprocesses): the children of its main thread. */
export function socketProcesses(pid: number): number[] {
  return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
    .split(' ')
    .filter((p) => p !== '')
    .map(Number);
}

/** How many sockets a process has open. */
export function openSockets(pid: number): number {
  let n = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) n++;
    } catch {
      // Closed between the listing and the look.
    }
  }
  return n;
}
