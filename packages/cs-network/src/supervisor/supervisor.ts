/**
 * Starts the programs as child processes, each in its own process group (so a Ctrl-C in the
 * terminal reaches only cs-network, which then stops them in reverse start order: miners before the
 * bridge, the bridge before the pool, the pool before the nodes), with stdout and stderr appended
 * to logs/<name>.log. A program that exits while the network runs is reported with the tail of its
 * logs through `onDeath`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { nodeArgv } from '@cs/runtime/launch';
import type { Network } from '../network/network.ts';
import type { Program } from '../programs/programs.ts';
import { cmdlineOf, type RecordedProcess, removePidFile, writePidFile } from './pid-file.ts';

/** A program that stops on SIGTERM within this long is stopped cleanly; after it, SIGKILL. */
const STOP_GRACE_MS = 30_000;
const TAIL_LINES = 20;

export class ProgramDied extends Error {
  constructor(
    readonly program: Program,
    readonly how: string,
    readonly tail: string,
  ) {
    super(`${program.title} exited unexpectedly (${how})`);
  }
}

interface Running {
  readonly program: Program;
  readonly child: ChildProcess;
  readonly record: RecordedProcess;
  readonly exited: Promise<void>;
}

/** The last lines of a file ('' when there is none). */
export function tail(file: string, lines = TAIL_LINES): string {
  if (!existsSync(file)) return '';
  const text = readFileSync(file, 'utf8').trimEnd();
  return text.split('\n').slice(-lines).join('\n');
}

export class Supervisor {
  private readonly running: Running[] = [];
  private stopping = false;
  private readonly self: RecordedProcess;

  constructor(
    private readonly net: Network,
    private readonly onDeath: (death: ProgramDied) => void,
  ) {
    this.self = { name: 'cs-network', pid: process.pid, cmdline: readFileSync('/proc/self/cmdline', 'utf8') };
    this.record();
  }

  start(program: Program): void {
    const argv = [process.execPath, ...nodeArgv(program.bin), ...program.args(this.net)];
    mkdirSync(this.net.path('logs'), { recursive: true });
    const log = openSync(this.net.logFile(program.name), 'a');
    let child: ChildProcess;
    try {
      child = spawn(argv[0], argv.slice(1), { stdio: ['ignore', log, log], detached: true, env: program.env?.(this.net) ?? process.env });
    } finally {
      // The child has its own copy of the descriptor.
      closeSync(log);
    }
    const exited = new Promise<void>((resolve) => {
      child.once('exit', (code, signal) => {
        resolve();
        if (this.stopping) return;
        this.onDeath(new ProgramDied(program, signal ? `signal ${signal}` : `exit status ${code}`, this.explain(program)));
      });
    });
    this.running.push({ program, child, record: { name: program.name, pid: child.pid ?? -1, cmdline: cmdlineOf(argv) }, exited });
    this.record();
  }

  /** Whether `program` has been started and has not exited. */
  alive(program: Program): boolean {
    const r = this.running.find((x) => x.program === program);
    return r !== undefined && r.child.exitCode === null && r.child.signalCode === null;
  }

  /** Stops every program, last started first; resolves when all have exited. */
  async stopAll(progress: (line: string) => void): Promise<void> {
    this.stopping = true;
    for (const r of [...this.running].reverse()) {
      if (r.child.exitCode !== null || r.child.signalCode !== null) continue;
      progress(`stopping ${r.program.title}`);
      r.child.kill('SIGTERM');
      const timer = setTimeout(() => {
        progress(`${r.program.title} did not stop within ${STOP_GRACE_MS / 1000} s: killing it`);
        r.child.kill('SIGKILL');
      }, STOP_GRACE_MS);
      await r.exited;
      clearTimeout(timer);
    }
    removePidFile(this.net.pidFile);
  }

  private explain(program: Program): string {
    return [this.net.logFile(program.name), ...program.logs(this.net)]
      .map((file) => ({ file, text: tail(file) }))
      .filter((t) => t.text !== '')
      .map((t) => `--- last lines of ${t.file}\n${t.text}`)
      .join('\n');
  }

  private record(): void {
    writePidFile(this.net.pidFile, { supervisor: this.self, programs: this.running.map((r) => r.record) });
  }
}
