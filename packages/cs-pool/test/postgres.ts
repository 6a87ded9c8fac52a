// A throwaway PostgreSQL cluster for tests: Debian's server binaries (initdb, pg_ctl from
// /usr/lib/postgresql/*/bin), run as the `postgres` user through runuser when the test runs as
// root (the server refuses root), in a temporary directory it owns, on a free port with its
// socket in that directory. A string with the reason when PostgreSQL cannot be had here. The
// cluster can be paused (SIGSTOP to the postmaster and every backend: a server that stalls, its
// connections open and silent), resumed, killed (SIGKILL to all of them: a crash) and started
// again on the same data and port (crash recovery).
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from '../../csd/test/daemon.ts';

export interface Cluster {
  readonly url: string;
  stop(): void;
  /** SIGSTOP to the postmaster, then to each of its children: nothing answers, nothing new starts. */
  pause(): void;
  resume(): void;
  /** SIGKILL to every process of the server, as a crash. */
  kill(): void;
  /** Starts the server again after kill(), on the same data directory and port. */
  start(): void;
}

/** The postmaster's pid (postmaster.pid's first line) and its children's, from /proc. */
function serverPids(data: string): { postmaster: number; children: () => number[] } {
  const postmaster = Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const children = () =>
    readdirSync('/proc')
      .filter((d) => /^\d+$/.test(d))
      .filter((d) => {
        try {
          const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
          return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === postmaster;
        } catch {
          return false;
        }
      })
      .map(Number);
  return { postmaster, children };
}

function signalAll(pids: readonly number[], signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  }
}

function serverBin(): string | null {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return null;
  const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
  for (const v of versions) if (existsSync(join(root, v, 'bin', 'initdb'))) return join(root, v, 'bin');
  return null;
}

export async function startCluster(): Promise<Cluster | string> {
  const bin = serverBin();
  if (!bin) return 'PostgreSQL server binaries not found under /usr/lib/postgresql (apt-get install postgresql)';
  const root = userInfo().uid === 0;
  let uid = userInfo().uid;
  let gid = userInfo().gid;
  if (root) {
    try {
      uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
      gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    } catch {
      return 'running as root and there is no postgres user to run the server as';
    }
  }
  const dir = mkdtempSync(join(tmpdir(), 'cs-pool-pg-'));
  chownSync(dir, uid, gid);
  const data = join(dir, 'data');
  const port = await freePort();
  const as = (cmd: string, args: string[]) =>
    execFileSync(root ? 'runuser' : cmd, root ? ['-u', 'postgres', '--', cmd, ...args] : args, { stdio: 'pipe', timeout: 120_000 });
  as(join(bin, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const start = () =>
    as(join(bin, 'pg_ctl'), ['-D', data, '-w', '-l', join(dir, 'log'), '-o', `-p ${port} -k ${dir} -h 127.0.0.1 -c fsync=off`, 'start']);
  start();
  const pause = () => {
    const { postmaster, children } = serverPids(data);
    signalAll([postmaster], 'SIGSTOP');
    signalAll(children(), 'SIGSTOP');
  };
  const resume = () => {
    const { postmaster, children } = serverPids(data);
    signalAll(children(), 'SIGCONT');
    signalAll([postmaster], 'SIGCONT');
  };
  const kill = () => {
    const { postmaster, children } = serverPids(data);
    const all = [postmaster, ...children()];
    signalAll(all, 'SIGKILL');
    // Until each is gone, so that a start finds the port and shared memory free.
    const deadline = Date.now() + 10_000;
    while (all.some((pid) => existsSync(`/proc/${pid}`)) && Date.now() < deadline) execFileSync('sleep', ['0.05']);
  };
  const stop = () => {
    try {
      as(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
  const admin = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres` });
  await admin.connect();
  await admin.query('CREATE DATABASE pool');
  await admin.end();
  return { url: `postgres://postgres@127.0.0.1:${port}/pool`, stop, pause, resume, kill, start };
}
