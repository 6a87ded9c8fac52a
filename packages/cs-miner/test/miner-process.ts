// The real cs-miner program for tests, started as a user starts it (bin/cs-miner.js) with -json,
// its log lines parsed as they arrive so that a test can wait for an event or a status.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const MINER_BIN = fileURLToPath(new URL('../bin/cs-miner.js', import.meta.url));

export interface LogLine {
  readonly time: string;
  readonly level: string;
  readonly msg: string;
  readonly [field: string]: unknown;
}

export class MinerProcess {
  readonly lines: LogLine[] = [];
  stderr = '';
  private readonly proc: ChildProcess;
  private pending = '';

  constructor(args: readonly string[], env: Record<string, string> = {}) {
    this.proc = spawn(process.execPath, [MINER_BIN, '-json', '-statusinterval=1', '-loglevel=debug', ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    this.proc.stdout!.setEncoding('utf8');
    this.proc.stdout!.on('data', (chunk: string) => {
      const parts = (this.pending + chunk).split('\n');
      this.pending = parts.pop()!;
      for (const p of parts) if (p.trim() !== '') this.lines.push(JSON.parse(p) as LogLine);
    });
    this.proc.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
  }

  get pid(): number {
    return this.proc.pid!;
  }

  /** The last status line's fields. */
  status(): LogLine | undefined {
    return this.lines.filter((l) => l.msg === 'status').at(-1);
  }

  /** The log without its status lines and accepted shares. */
  events(): LogLine[] {
    return this.lines.filter((l) => l.msg !== 'status' && l.msg !== 'share accepted');
  }

  count(msg: string): number {
    return this.lines.filter((l) => l.msg === msg).length;
  }

  /** Waits for a log line matching `match` after the first `from` lines. */
  async waitFor(match: (l: LogLine) => boolean, what: string, from = 0, timeoutMs = 120_000): Promise<LogLine> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.lines.slice(from).find(match);
      if (found) return found;
      if (this.proc.exitCode !== null) throw new Error(`cs-miner exited (${this.proc.exitCode}) while waiting for ${what}: ${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last events: ${JSON.stringify(this.events().slice(-8))}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Waits until a status line shows `field` at `min` or more. */
  waitForStatus(field: string, min: number, from = 0): Promise<LogLine> {
    return this.waitFor((l) => l.msg === 'status' && Number(l[field]) >= min, `status ${field} >= ${min}`, from);
  }

  async stop(): Promise<number | string> {
    if (this.proc.exitCode !== null || this.proc.signalCode !== null) return this.proc.exitCode ?? this.proc.signalCode ?? 0;
    const exited = new Promise<number | string>((resolve) => this.proc.once('exit', (code, signal) => resolve(code ?? signal ?? 0)));
    this.proc.kill('SIGTERM');
    return exited;
  }

  kill(): void {
    this.proc.kill('SIGKILL');
  }
}

/** Runs cs-miner to completion (for -help and configuration errors). */
export function runMiner(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, [MINER_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    proc.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
