// Real csd processes for integration tests: each on free loopback ports with its own temporary
// data directory, driven over HTTP exactly as a user's client would.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeArgv } from '@cs/runtime/launch';

export const CSD_BIN = fileURLToPath(new URL('../bin/csd.js', import.meta.url));
/** Node's arguments that start csd as its users' `csd` does: the shebang's options, then the script. */
export const CSD_ARGV = nodeArgv(CSD_BIN);
export const CLI_BIN = fileURLToPath(new URL('../bin/cs-cli.js', import.meta.url));

/** Whether a loopback listener can take `port` now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/**
 * The lowest port of the kernel's ephemeral range. Outgoing connections (RPC clients, peers, a
 * browser) take their local ports from that range, so a port picked there and released for a
 * daemon can be taken before the daemon binds it: CI saw EADDRINUSE that way.
 */
function ephemeralFloor(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
  } catch {
    return 32768;
  }
}

const PORT_FLOOR = 10_000;
const handedOut = new Set<number>();

/** A port free now, below the ephemeral range and not handed out before by this process. */
export async function freePort(): Promise<number> {
  return freePortBlock([0]);
}

/** A first port `base` such that base + each offset is free now (below the ephemeral range, not handed out before). */
export async function freePortBlock(offsets: readonly number[]): Promise<number> {
  const span = Math.max(...offsets) + 1;
  const ceiling = Math.max(ephemeralFloor(), PORT_FLOOR + 1000) - span;
  for (;;) {
    const base = PORT_FLOOR + Math.floor(Math.random() * (ceiling - PORT_FLOOR));
    const ports = offsets.map((o) => base + o);
    if (ports.some((p) => handedOut.has(p))) continue;
    if ((await Promise.all(ports.map(portFree))).every(Boolean)) {
      for (const p of ports) handedOut.add(p);
      return base;
    }
  }
}

export interface RpcResponse {
  readonly status: number;
  readonly body: string;
  readonly json: { result: unknown; error: { code: number; message: string } | null; id: unknown } | null;
  readonly headers: Headers;
}

export class RpcCallError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export interface DaemonOptions {
  readonly datadir?: string;
  readonly args?: readonly string[];
  readonly user?: string;
  readonly password?: string;
  /** Run without rpcuser/rpcpassword: csd writes a cookie, and calls authenticate with it. */
  readonly cookie?: boolean;
  /** -printtoconsole: log lines also go to the process's stdout (captured in `stdout`). */
  readonly console?: boolean;
}

export class Daemon {
  readonly datadir: string;
  rpcPort = 0;
  /** Peer-to-peer port, on 127.0.0.1 only: tests never listen beyond loopback. */
  p2pPort = 0;
  proc: ChildProcess | null = null;
  stdout = '';
  stderr = '';
  private readonly ownsDir: boolean;

  constructor(private readonly opts: DaemonOptions = {}) {
    this.ownsDir = !opts.datadir;
    this.datadir = opts.datadir ?? mkdtempSync(join(tmpdir(), 'csd-test-'));
  }

  get user(): string {
    return this.opts.user ?? 'test';
  }

  get password(): string {
    return this.opts.password ?? 'test-password';
  }

  get cookiePath(): string {
    return join(this.datadir, 'regtest', '.cookie');
  }

  get debugLogPath(): string {
    return join(this.datadir, 'regtest', 'debug.log');
  }

  /** The command-line flags this daemon runs with (without extra args). */
  baseArgs(): string[] {
    const auth = this.opts.cookie ? [] : [`-rpcuser=${this.user}`, `-rpcpassword=${this.password}`];
    return [
      '-regtest',
      `-datadir=${this.datadir}`,
      `-rpcport=${this.rpcPort}`,
      // Set by launch(); callers that spawn csd themselves with these flags never get that far.
      ...(this.p2pPort ? [`-port=${this.p2pPort}`] : []),
      '-bind=127.0.0.1',
      ...auth,
      `-printtoconsole=${this.opts.console ? 1 : 0}`,
    ];
  }

  /** user:password for Basic auth: the cookie file's content in cookie mode. */
  private credentials(): string {
    if (!this.opts.cookie) return `${this.user}:${this.password}`;
    return existsSync(this.cookiePath) ? readFileSync(this.cookiePath, 'utf8').trim() : 'no-cookie-yet:';
  }

  /** Starts csd without waiting for anything. */
  async launch(extraArgs: readonly string[] = []): Promise<ChildProcess> {
    if (!this.rpcPort) this.rpcPort = await freePort();
    if (!this.p2pPort) this.p2pPort = await freePort();
    this.stdout = '';
    this.stderr = '';
    const proc = spawn(process.execPath, [...CSD_ARGV, ...this.baseArgs(), ...(this.opts.args ?? []), ...extraArgs], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    proc.stdout!.on('data', (d: Buffer) => (this.stdout += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    return proc;
  }

  /** Starts csd and waits until its RPC answers. */
  async start(extraArgs: readonly string[] = []): Promise<void> {
    const proc = await this.launch(extraArgs);
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (proc.exitCode !== null) throw new Error(`csd exited with ${proc.exitCode}: ${this.stderr}${this.stdout}`);
      try {
        await this.call('getblockcount');
        return;
      } catch (e) {
        // Not listening yet, no cookie yet (401), or warming up (-28): keep waiting.
        if (e instanceof RpcCallError && e.code !== -28) throw e;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    // A csd left running would keep the test process alive after its failure is reported.
    proc.kill('SIGKILL');
    throw new Error(`csd did not answer RPC within 60 s: ${this.stderr}`);
  }

  /** One HTTP request to the RPC port; by default authenticated as this daemon's user. */
  async http(
    body: string,
    init: { method?: string; headers?: Record<string, string>; path?: string; auth?: string | null } = {},
  ): Promise<RpcResponse> {
    const headers: Record<string, string> = { 'content-type': 'application/json', ...init.headers };
    const auth = init.auth === undefined ? this.credentials() : init.auth;
    if (auth !== null) headers.authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
    const res = await fetch(`http://127.0.0.1:${this.rpcPort}${init.path ?? '/'}`, {
      method: init.method ?? 'POST',
      headers,
      body: init.method === 'GET' || init.method === 'OPTIONS' ? undefined : body,
    });
    const text = await res.text();
    let json = null;
    try {
      json = JSON.parse(text);
    } catch {
      // not JSON: callers look at status and body
    }
    return { status: res.status, body: text, json, headers: res.headers };
  }

  /** A JSON-RPC call; an error reply throws RpcCallError with its code. */
  async call<T = unknown>(method: string, ...params: unknown[]): Promise<T> {
    const r = await this.http(JSON.stringify({ jsonrpc: '1.0', id: 'test', method, params }));
    if (!r.json) throw new HttpError(r.status, `non-JSON reply (${r.status}): ${r.body}`);
    if (r.json.error) throw new RpcCallError(r.json.error.code, r.json.error.message);
    return r.json.result as T;
  }

  /** Waits for the process to exit (after stop or a signal); resolves to its exit code or signal. */
  exited(): Promise<number | string> {
    const proc = this.proc;
    if (!proc) return Promise.resolve(0);
    if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode ?? proc.signalCode!);
    return new Promise((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? 0)));
  }

  kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<number | string> {
    this.proc?.kill(signal);
    return this.exited();
  }

  async stop(): Promise<void> {
    if (!this.proc || this.proc.exitCode !== null || this.proc.signalCode !== null) return;
    try {
      await this.call('stop');
    } catch {
      this.proc.kill('SIGTERM');
    }
    await this.exited();
  }

  async cleanup(): Promise<void> {
    await this.kill('SIGKILL');
    if (this.ownsDir) rmSync(this.datadir, { recursive: true, force: true });
  }
}
