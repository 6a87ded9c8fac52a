// `npm run network` as a user runs it: a real npm process bringing up two csd nodes, cs-pool,
// cs-bridge and two cs-miners on free loopback ports with a temporary data directory. A question
// goes through the bridge API and is answered by a miner's embedded engine and paid on chain by
// the blocks the miners find; SIGINT stops everything; a second run resumes the same chain,
// request and credentials without funding or staking again; `down -purge` deletes the network;
// no process of either run is left behind.
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { readEnvFile } from '@cs/bridge/src/config/env.ts';
import { RpcClient } from '@cs/rpc-client';
import { eventually } from '../packages/cs-pool/test/pool-harness.ts';
import { PORT_OFFSETS } from '../packages/cs-network/src/network/network.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NETWORK_BIN = join(ROOT, 'packages/cs-network/bin/cs-network.js');
/** Coming up compiles five programs through tsx on 2 shared cores and mines 101 blocks. */
const UP_MS = 600_000;
/** Commit window, reveal window and payout: a few dozen blocks found by CPU miners. */
const PAID_MS = 900_000;

const dir = mkdtempSync(join(tmpdir(), 'cs-network-test-'));
const datadir = join(dir, 'net');
const seen = new Set<number>();
let running: ChildProcess | null = null;

after(() => {
  running?.kill('SIGKILL');
  for (const pid of seen) if (alive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** A base port whose every port of the network's layout is free now. */
async function freeBasePort(): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    const free = await Promise.all(Object.values(PORT_OFFSETS).map((o) => portFree(base + o)));
    if (free.every(Boolean)) return base;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every process whose parent chain leads to `root` (read from /proc), root included. */
function processTree(root: number): number[] {
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

interface Run {
  readonly proc: ChildProcess;
  output: string;
}

/** `npm run network -- <args>` in the repository, until it prints that the network is up. */
async function networkUp(args: readonly string[]): Promise<Run> {
  const proc = spawn('npm', ['run', 'network', '--', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  running = proc;
  const run: Run = { proc, output: '' };
  proc.stdout!.on('data', (d: Buffer) => (run.output += d.toString()));
  proc.stderr!.on('data', (d: Buffer) => (run.output += d.toString()));
  await eventually(
    async () => {
      if (proc.exitCode !== null) throw new Error(`npm run network exited (${proc.exitCode}):\n${run.output}`);
      return run.output.includes('the network is up') ? true : undefined;
    },
    'the network to come up',
    UP_MS,
  );
  for (const pid of processTree(proc.pid!)) seen.add(pid);
  return run;
}

function exited(proc: ChildProcess): Promise<number | string> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode ?? proc.signalCode!);
  return new Promise((resolve) => proc.once('exit', (code, signal) => resolve(code ?? signal ?? 0)));
}

async function noneLeft(): Promise<void> {
  await eventually(async () => ([...seen].some(alive) ? undefined : true), 'every process of the network to exit', 60_000);
}

function node1(): RpcClient {
  const base = (JSON.parse(readFileSync(join(datadir, 'network.json'), 'utf8')) as { basePort: number }).basePort;
  return new RpcClient({ url: `http://127.0.0.1:${base}`, auth: { cookieFile: join(datadir, 'node1/regtest/.cookie') } });
}

function bridgeEnv(): Record<string, string> {
  return readEnvFile(join(datadir, 'bridge/.env'));
}

async function bridgeApi<T>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const res = await fetch(`http://${bridgeEnv().API_LISTEN_ADDR}${path}`, init);
  return { status: res.status, body: (await res.json()) as T };
}

interface ChainRequest {
  status: string;
  winner: string | null;
  payout_status: string;
  payout_txid: string | null;
}

const prompt = 'What is two plus two?';
const requestId = randomUUID();
let firstTip = 0;
let firstEnv: Record<string, string> = {};

test('npm run network comes up; a question asked through the bridge API is answered and paid on chain', async () => {
  const run = await networkUp([`-datadir=${datadir}`, `-baseport=${await freeBasePort()}`]);
  firstEnv = bridgeEnv();
  assert.equal(statSync(join(datadir, 'bridge/.env')).mode & 0o077, 0, 'the bridge env file is owner-only');
  assert.ok(run.output.includes(firstEnv.OPOI_REQUESTER_API_KEY), 'the API key is printed for requesters');
  assert.ok(!run.output.includes(firstEnv.CSD_RPC_PASS), 'the node cookie is never printed');

  const rpc = node1();
  try {
    // A REQUEST spends the requester's own coin: fund a fresh address, wait for the miners to confirm it.
    const requester = await rpc.call<string>('getnewaddress', ['requester']);
    await rpc.call('sendtoaddress', [requester, 1]);
    await eventually(
      async () => ((await rpc.call<unknown[]>('listunspent', [1, 9_999_999, [requester]])).length > 0 ? true : undefined),
      'the funding',
      300_000,
    );
    const hash = createHash('sha256').update(prompt).digest('hex');
    await rpc.call('submitopoirequest', [requestId, 'tiny', hash, 8, 0.05, requester]);

    // The bridge answers 404 until the REQUEST is mined (and 429 past 60 calls a minute): retry both.
    await eventually(
      async () => {
        const r = await bridgeApi<{ stage?: string; error?: string }>('/svc/opoi/prompt', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-opoi-api-key': firstEnv.OPOI_REQUESTER_API_KEY },
          body: JSON.stringify({ request_id: requestId, prompt }),
        });
        if (r.status === 404 || r.status === 429) return new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 2_000));
        assert.equal(r.status, 200, `prompt accepted: ${JSON.stringify(r.body)}`);
        return true;
      },
      'the bridge to take the prompt',
      300_000,
    );
    await eventually(
      async () => ((await bridgeApi<{ stage: string }>(`/svc/opoi/submissions/${requestId}`)).body.stage === 'paid' ? true : undefined),
      'the request paid',
      PAID_MS,
    );
    const sub = (await bridgeApi<{ miner: string; token_count: number; response_hex: string }>(`/svc/opoi/submissions/${requestId}`)).body;
    assert.match(sub.miner, /\.miner[12]$/, 'answered by one of the network miners');
    assert.ok(sub.token_count >= 1 && sub.token_count <= 8, `token_count ${sub.token_count} within max_tokens`);
    const onChain = await rpc.call<ChainRequest>('getopoirequest', [requestId]);
    assert.deepEqual([onChain.status, onChain.winner, onChain.payout_status], ['FULFILLED', firstEnv.OPOI_ADDRESSES, 'confirmed']);
    const content = await rpc.call<{ content_hex: string }>('getopoicontent', [requestId, 'RESPONSE']);
    assert.equal(content.content_hex, sub.response_hex, "the published answer is the miner's");
    firstTip = await rpc.call<number>('getblockcount');
  } finally {
    rpc.close();
  }

  const pids = JSON.parse(readFileSync(join(datadir, 'run/pids.json'), 'utf8')) as { programs: { pid: number }[] };
  assert.equal(pids.programs.length, 6, 'two nodes, the pool, the bridge and two miners recorded');
  for (const p of pids.programs) seen.add(p.pid);
  run.proc.kill('SIGINT');
  assert.equal(await exited(run.proc), 0, `npm run network stops cleanly on SIGINT:\n${run.output.slice(-2000)}`);
  await noneLeft();
  assert.ok(!existsSync(join(datadir, 'run/pids.json')), 'the pid file is removed on a clean stop');
});

test('running it again resumes the same chain, request and credentials; down -purge deletes it', async () => {
  const run = await networkUp([`-datadir=${datadir}`]);
  assert.match(run.output, /resuming the network/);
  assert.doesNotMatch(run.output, /mining to maturity|funding the bridge/, 'no new maturity mining or funding');
  assert.match(run.output, /is staked \(ACTIVE\)/, 'the stake is found, not made again');
  const env = bridgeEnv();
  for (const key of ['OPOI_REQUESTER_API_KEY', 'OPOI_ADDRESSES', 'DATA_DIR', 'API_LISTEN_ADDR'])
    assert.equal(env[key], firstEnv[key], `${key} is the same`);

  const rpc = node1();
  try {
    assert.ok((await rpc.call<number>('getblockcount')) >= firstTip, 'the chain tip is the same or higher');
    const onChain = await rpc.call<ChainRequest>('getopoirequest', [requestId]);
    assert.deepEqual([onChain.status, onChain.payout_status], ['FULFILLED', 'confirmed']);
  } finally {
    rpc.close();
  }
  assert.equal((await bridgeApi<{ stage: string }>(`/svc/opoi/submissions/${requestId}`)).body.stage, 'paid', 'the bridge still knows it paid');
  const pids = JSON.parse(readFileSync(join(datadir, 'run/pids.json'), 'utf8')) as { programs: { pid: number }[] };
  for (const p of pids.programs) seen.add(p.pid);

  const downRun = spawnSync(process.execPath, [NETWORK_BIN, 'down', '-purge', `-datadir=${datadir}`], { encoding: 'utf8', timeout: 300_000 });
  assert.equal(downRun.status, 0, `down -purge succeeds: ${downRun.stdout}${downRun.stderr}`);
  assert.equal(await exited(run.proc), 0, 'the foreground run exits cleanly when stopped by down');
  await noneLeft();
  assert.ok(!existsSync(datadir), 'the data directory is deleted');
});
