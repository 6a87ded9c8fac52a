// Running a document's shell walk-through as a user would: its ```sh blocks read from the
// Markdown itself (so a test cannot drift from the text), each command line run by bash in the
// repository with HOME pointing at a temporary directory, and the shell variables a line sets
// carried on to the next (bash -a exports them). `<placeholder>`s stand for values a reader copies from an earlier
// answer; the test supplies each one, and a placeholder nobody supplies fails the run.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The ```sh blocks of the `## heading` section of a Markdown file, in order. */
export function shellBlocks(file: string, heading: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const start = text.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`${file} has no section "## ${heading}"`);
  const end = text.indexOf('\n## ', start + 1);
  const section = text.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/** The command lines of a block: trailing `# comments` and comment-only lines dropped, `\` continuations joined. */
export function commandLines(block: string): string[] {
  const joined = block.replace(/\\\n\s*/g, '');
  return joined
    .split('\n')
    .map((line) => line.replace(/\s{2,}#.*$/, '').trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

const PLACEHOLDER = /<[a-z][a-z_ ]*>/g;

export interface LineResult {
  readonly line: string;
  readonly stdout: string;
}

/** A bash session in a temporary home directory, one process per line, variables carried over. */
export class Walkthrough {
  readonly home = mkdtempSync(join(tmpdir(), 'cs-walkthrough-'));
  readonly results: LineResult[] = [];
  private env: Record<string, string>;
  private readonly started: ChildProcess[] = [];
  /** What the background processes printed, for the failure messages. */
  private backgroundOutput = '';

  /** `prelude` is bash run before each line (the alias the document defines, as a function). */
  constructor(private readonly prelude = '') {
    this.env = { ...process.env, HOME: this.home } as Record<string, string>;
  }

  get datadir(): string {
    return join(this.home, '.cs');
  }

  /** Writes `~/.cs/cs.conf`. */
  conf(text: string): void {
    mkdirSync(this.datadir, { recursive: true });
    writeFileSync(join(this.datadir, 'cs.conf'), text);
  }

  variable(name: string): string {
    const v = this.env[name];
    if (v === undefined) throw new Error(`the walk-through never set $${name}`);
    return v;
  }

  /** The stdout of the first line run that contains `fragment`. */
  outputOf(fragment: string): string {
    const r = this.results.find((x) => x.line.includes(fragment));
    if (!r) throw new Error(`no line containing "${fragment}" has run`);
    return r.stdout;
  }

  /** Starts a long-running command of the document (npm start) in the background, in its own process group. */
  background(command: string, args: readonly string[]): ChildProcess {
    const proc = spawn(command, args, { cwd: ROOT, env: this.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    proc.stdout!.on('data', (d: Buffer) => (this.backgroundOutput += d));
    proc.stderr!.on('data', (d: Buffer) => (this.backgroundOutput += d));
    this.started.push(proc);
    return proc;
  }

  /**
   * Runs one line of the document. Each `<placeholder>` is replaced by what `fill` gives for it,
   * computed after the lines before have run.
   */
  async run(line: string, fill: Record<string, (w: Walkthrough) => string | Promise<string>> = {}): Promise<string> {
    let command = line;
    for (const name of new Set(line.match(PLACEHOLDER) ?? [])) {
      const f = fill[name];
      if (!f) throw new Error(`nothing supplies ${name} in: ${line}`);
      command = command.replaceAll(name, await f(this));
    }
    const { code, stdout, stderr, env } = await this.bash(`${this.prelude}\nset -aeo pipefail\n${command}\nenv -0 >&3`);
    if (code !== 0) throw new Error(`"${command}" exited with ${code}:\n${stderr}${stdout}`);
    this.env = env;
    this.results.push({ line, stdout });
    return stdout;
  }

  /** Runs a helper command (not a line of the document) in the same environment. */
  async query(command: string): Promise<string> {
    const { code, stdout, stderr } = await this.bash(`${this.prelude}\nset -aeo pipefail\n${command}\nenv -0 >&3`);
    if (code !== 0) throw new Error(`"${command}" exited with ${code}:\n${stderr}\nbackground output:\n${this.backgroundOutput}`);
    return stdout;
  }

  private bash(script: string): Promise<{ code: number; stdout: string; stderr: string; env: Record<string, string> }> {
    return new Promise((resolve, reject) => {
      const proc = spawn('bash', ['-c', script], { cwd: ROOT, env: this.env, stdio: ['ignore', 'pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      let envDump = '';
      proc.stdout!.on('data', (d: Buffer) => (stdout += d));
      proc.stderr!.on('data', (d: Buffer) => (stderr += d));
      (proc.stdio[3] as NodeJS.ReadableStream).on('data', (d: Buffer) => (envDump += d));
      proc.on('error', reject);
      proc.on('close', (code) => {
        const env: Record<string, string> = {};
        for (const entry of envDump.split('\0')) {
          const eq = entry.indexOf('=');
          if (eq > 0) env[entry.slice(0, eq)] = entry.slice(eq + 1);
        }
        resolve({ code: code ?? 1, stdout, stderr, env });
      });
    });
  }

  /** Waits for a background process to exit; after `ms` it is killed with its group and the wait fails. */
  async exited(proc: ChildProcess, ms = 60_000): Promise<void> {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.killGroup(proc);
        reject(new Error(`${proc.spawnargs.join(' ')} did not exit within ${ms} ms`));
      }, ms);
      proc.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private killGroup(proc: ChildProcess): void {
    if (proc.exitCode !== null || proc.signalCode !== null || proc.pid === undefined) return;
    try {
      process.kill(-proc.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }

  /** Kills what is still running of what this walk-through started, and removes its home directory. */
  cleanup(): void {
    for (const proc of this.started) this.killGroup(proc);
    rmSync(this.home, { recursive: true, force: true });
  }
}
