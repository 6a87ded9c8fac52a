// The real cs-dashboard program for tests, started as an operator starts it (bin/cs-dashboard.js
// with -conf=<file> written owner-only), on a port the kernel picks (listen 127.0.0.1:0): its
// pino log says where it listens.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DASHBOARD_BIN = fileURLToPath(new URL('../bin/cs-dashboard.js', import.meta.url));

export class DashboardProcess {
  output = '';
  url = '';
  private proc: ChildProcess | null = null;
  private readonly dir = mkdtempSync(join(tmpdir(), 'cs-dashboard-test-'));
  readonly confFile = join(this.dir, 'dashboard.json');

  constructor(conf: Record<string, unknown>) {
    writeFileSync(this.confFile, JSON.stringify({ listen: '127.0.0.1:0', logLevel: 'debug', ...conf }), { mode: 0o600 });
  }

  /** Starts it and waits for its "listening" line. */
  async start(): Promise<void> {
    const proc = spawn(process.execPath, [DASHBOARD_BIN, `-conf=${this.confFile}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    this.proc = proc;
    proc.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    proc.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const line = this.output.split('\n').find((l) => l.includes('"cs-dashboard listening"'));
      if (line) {
        this.url = (JSON.parse(line) as { url: string }).url;
        return;
      }
      if (proc.exitCode !== null) throw new Error(`cs-dashboard exited (${proc.exitCode}): ${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`cs-dashboard did not start: ${this.output}`);
  }

  async get<T = unknown>(path: string): Promise<{ status: number; body: T }> {
    const res = await fetch(new URL(path, this.url));
    const text = await res.text();
    return { status: res.status, body: (res.headers.get('content-type')?.startsWith('application/json') ? JSON.parse(text) : text) as T };
  }

  async post<T = unknown>(path: string, value: unknown): Promise<{ status: number; body: T }> {
    const res = await fetch(new URL(path, this.url), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(value),
    });
    return { status: res.status, body: (await res.json()) as T };
  }

  async stop(): Promise<number | string> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return proc?.exitCode ?? proc?.signalCode ?? 0;
    const exited = new Promise<number | string>((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? 0)));
    proc.kill('SIGTERM');
    return exited;
  }

  async cleanup(): Promise<void> {
    this.proc?.kill('SIGKILL');
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Runs cs-dashboard to its end (for -help and configuration errors). */
export function runDashboard(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [DASHBOARD_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
