/**
 * run/pids.json: the supervisor's and every program's pid with its command line, so that `down`
 * and `status` in another terminal find them, and never signal a process that merely reuses a pid
 * (its /proc command line must be the one recorded). Linux only, as csd's data directory lock.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface RecordedProcess {
  readonly name: string;
  readonly pid: number;
  /** argv joined with NUL, as /proc/<pid>/cmdline has it. */
  readonly cmdline: string;
}

export interface PidFile {
  readonly supervisor: RecordedProcess;
  readonly programs: readonly RecordedProcess[];
}

export function cmdlineOf(argv: readonly string[]): string {
  return argv.map((a) => `${a}\0`).join('');
}

export function readPidFile(path: string): PidFile | null {
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, 'utf8')) as PidFile;
}

export function writePidFile(path: string, content: PidFile): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(`${path}.tmp`, `${JSON.stringify(content, null, 2)}\n`);
  renameSync(`${path}.tmp`, path);
}

export function removePidFile(path: string): void {
  rmSync(path, { force: true });
}

/** The recorded process is running (same pid, same command line). */
export function isRunning(p: RecordedProcess): boolean {
  try {
    return readFileSync(`/proc/${p.pid}/cmdline`, 'utf8') === p.cmdline;
  } catch {
    return false;
  }
}
