// `npm run network` as a user runs it, for the cross-program test and the bench: a free block of
// loopback ports, the npm process and every process under it, and a question asked through the
// bridge API with a REQUEST from node 1's wallet.
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach } from 'node:test';
import { fileURLToPath } from 'node:url';
import { readEnvFile } from '@cs/bridge/setup';
import { RpcClient } from '@cs/client';
import type { Stage } from '../packages/cs-bridge/src/store/store.ts';
import { STAGES } from '../packages/cs-bridge/test/bridge-harness.ts';
import { PORT_OFFSETS } from '../packages/cs-network/src/network/network.ts';
import { eventually } from '../packages/cs-pool/test/pool-harness.ts';
import { freePortBlock } from '../packages/csd/test/daemon.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const NETWORK_BIN = join(ROOT, 'packages/cs-network/bin/cs-network.js');
/** Coming up compiles five programs through tsx on 2 shared cores and mines 101 blocks. */
const UP_MS = 600_000;

/** A base port whose every port of the network's layout is free now. */
export function freeBasePort(): Promise<number> {
  return freePortBlock(Object.values(PORT_OFFSETS));
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every process whose parent chain leads to `root` (read from /proc), root included. */
export function processTree(root: number): number[] {
  const parent = new Map<number, number>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // The command may hold spaces and parentheses: the fields after the last ')' are fixed.
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // exited meanwhile
    }
  }
  const tree = [root];
  for (let i = 0; i < tree.length; i++) for (const [pid, ppid] of parent) if (ppid === tree[i]) tree.push(pid);
  return tree;
}

/**
 * A test file's networks, all on one temporary data directory. `start` runs `npm run network` on
 * it (a new network gets a free block of ports unless the args name one; a resumed one keeps its
 * own). A test's network still running after it is interrupted, so that a test failing half way
 * does not leave the directory's lock held for the next; at the end of the file every process
 * either run started is killed and the directory removed.
 */
export function networkTests(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const datadir = join(dir, 'net');
  const seen = new Set<number>();
  let current: NetworkRun | undefined;
  const noneLeft = () => eventually(async () => ([...seen].some(alive) ? undefined : true), 'every process of the network to exit', 60_000);
  after(() => {
    for (const pid of seen) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    const run = current;
    current = undefined;
    if (!run || run.proc.exitCode !== null || run.proc.signalCode !== null) return;
    run.interrupt();
    await run.exited();
    await noneLeft();
  });
  return {
    datadir,
    noneLeft,
    async start(args: readonly string[] = []): Promise<NetworkRun> {
      const fresh = !existsSync(join(datadir, 'network.json')) && !args.some((a) => a.startsWith('-baseport='));
      const run = new NetworkRun(datadir, [...(fresh ? [`-baseport=${await freeBasePort()}`] : []), ...args]);
      current = run;
      seen.add(run.proc.pid!);
      await run.up();
      for (const pid of [...run.pids(), ...run.programPids()]) seen.add(pid);
      return run;
    },
  };
}

/** One `npm run network -- <args>` in the repository. */
export class NetworkRun {
  output = '';
  readonly proc: ChildProcess;

  constructor(
    readonly datadir: string,
    args: readonly string[] = [],
  ) {
    // Its own process group, as a shell gives a foreground job: interrupt() signals the group as Ctrl-C does.
    this.proc = spawn('npm', ['run', 'network', '--', `-datadir=${datadir}`, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.proc.stdout!.on('data', (d: Buffer) => (this.output += d.toString()));
    this.proc.stderr!.on('data', (d: Buffer) => (this.output += d.toString()));
  }

  /** Waits until it prints that the network is up; fails at once if npm exits first. */
  async up(): Promise<void> {
    await eventually(
      async () => {
        if (this.proc.exitCode !== null) throw new Error(`npm run network exited (${this.proc.exitCode}):\n${this.output}`);
        return this.output.includes('the network is up') ? true : undefined;
      },
      'the network to come up',
      UP_MS,
    );
  }

  /** Ctrl-C in the terminal: SIGINT to every process of the foreground group (npm, its shell, cs-network). */
  interrupt(): void {
    process.kill(-this.proc.pid!, 'SIGINT');
  }

  exited(): Promise<number | string> {
    const p = this.proc;
    if (p.exitCode !== null || p.signalCode !== null) return Promise.resolve(p.exitCode ?? p.signalCode!);
    return new Promise((resolve) => p.once('exit', (code, signal) => resolve(code ?? signal ?? 0)));
  }

  /** npm, the shell under it, cs-network and every program, while they run. */
  pids(): number[] {
    return processTree(this.proc.pid!);
  }

  /** The programs' pids from cs-network's pid file. */
  programPids(): number[] {
    return (JSON.parse(readFileSync(join(this.datadir, 'run/pids.json'), 'utf8')) as { programs: { pid: number }[] }).programs.map((p) => p.pid);
  }

  bridgeEnv(): Record<string, string> {
    return readEnvFile(join(this.datadir, 'bridge/.env'));
  }

  node1(): RpcClient {
    const base = (JSON.parse(readFileSync(join(this.datadir, 'network.json'), 'utf8')) as { basePort: number }).basePort;
    return new RpcClient({ url: `http://127.0.0.1:${base}`, auth: { cookieFile: join(this.datadir, 'node1/regtest/.cookie') } });
  }

  async bridgeApi<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
    const res = await fetch(`http://${this.bridgeEnv().API_LISTEN_ADDR}${path}`, init);
    return { status: res.status, body: (await res.json()) as T };
  }

  async poolApi<T>(path: string): Promise<T> {
    const base = (JSON.parse(readFileSync(join(this.datadir, 'network.json'), 'utf8')) as { basePort: number }).basePort;
    return (await (await fetch(`http://127.0.0.1:${base + PORT_OFFSETS.poolApi}${path}`)).json()) as T;
  }

  /**
   * Asks `prompt` of model tiny: a REQUEST from a fresh address funded by node 1's wallet (a REQUEST
   * spends the requester's own coin), then the prompt through the bridge API once it is mined.
   */
  async ask(prompt: string, maxTokens: number): Promise<string> {
    const id = randomUUID();
    const rpc = this.node1();
    try {
      const requester = await rpc.call('getnewaddress', ['requester']);
      await rpc.call('sendtoaddress', [requester, 1]);
      await eventually(
        async () => ((await rpc.call('listunspent', [1, 9_999_999, [requester]])).length > 0 ? true : undefined),
        "the requester's funding mined",
        300_000,
      );
      await rpc.call('submitopoirequest', [id, 'tiny', createHash('sha256').update(prompt).digest('hex'), maxTokens, 0.05, requester]);
    } finally {
      rpc.close();
    }
    const key = this.bridgeEnv().OPOI_REQUESTER_API_KEY;
    // The bridge answers 404 until the REQUEST is mined, and 429 past 60 calls a minute: retry both.
    await eventually(
      async () => {
        const r = await this.bridgeApi<{ error?: string }>('/svc/opoi/prompt', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-opoi-api-key': key },
          body: JSON.stringify({ request_id: id, prompt }),
        });
        if (r.status === 404 || r.status === 429) return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 1_000));
        if (r.status !== 200) throw new Error(`the bridge refused the prompt (${r.status}): ${JSON.stringify(r.body)}`);
        return true;
      },
      'the bridge to take the prompt',
      300_000,
    );
    return id;
  }

  /** Waits until the bridge has taken request `id` to `stage` or past it. */
  async reach(id: string, stage: Stage, timeoutMs: number): Promise<void> {
    let now: Stage | undefined;
    await eventually(
      async () => {
        now = (await this.bridgeApi<{ stage?: Stage }>(`/svc/opoi/submissions/${id}`)).body.stage;
        return now !== undefined && STAGES.indexOf(now) >= STAGES.indexOf(stage) ? true : undefined;
      },
      `request ${id} at stage ${stage} (now ${now})`,
      timeoutMs,
    );
  }
}
