// How fast the programs start, as ratios in one run:
//  - `cs-cli getblockcount` against a running csd ÷ a bare `node -e 0` start (goal ≤ 2.0), medians
//    of interleaved runs so that both see the same machine;
//  - `csd -version` and `cs-miner -help` ÷ the same bare start (no goal: what a user waits for);
//  - csd from spawn to its first RPC answer on an empty regtest data directory (goal ≤ 1 s on
//    these machines, as an indication), polled every 10 ms.
// The programs run from dist/ as their bins do (npm run build first).
// Run: node --conditions=@cs/source --import tsx bench/startup.ts [runs]
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeArgv } from '@cs/runtime/launch';
import { CLI_BIN, CSD_BIN, Daemon, freePort } from '../packages/csd/test/daemon.ts';
import { median } from './lib/stats.ts';

const RUNS = Number(process.argv[2] ?? 21);
const MINER_BIN = fileURLToPath(new URL('../packages/cs-miner/bin/cs-miner.js', import.meta.url));

function timed(args: readonly string[]): number {
  const t0 = performance.now();
  const run = spawnSync(process.execPath, args, { encoding: 'utf8' });
  const ms = performance.now() - t0;
  if (run.status !== 0) throw new Error(`${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return ms;
}

async function firstAnswer(): Promise<number> {
  const datadir = mkdtempSync(join(tmpdir(), 'startup-bench-'));
  const rpcPort = await freePort();
  const auth = `Basic ${Buffer.from('bench:bench').toString('base64')}`;
  const t0 = performance.now();
  const proc = spawn(
    process.execPath,
    [
      ...nodeArgv(CSD_BIN),
      '-regtest',
      `-datadir=${datadir}`,
      `-rpcport=${rpcPort}`,
      `-port=${await freePort()}`,
      '-bind=127.0.0.1',
      '-rpcuser=bench',
      '-rpcpassword=bench',
    ],
    { stdio: 'ignore' },
  );
  try {
    for (;;) {
      if (proc.exitCode !== null) throw new Error(`csd exited ${proc.exitCode}`);
      if (performance.now() - t0 > 60_000) throw new Error('csd did not answer within 60 s');
      const answer = await fetch(`http://127.0.0.1:${rpcPort}/`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: '{"method":"getblockcount","params":[]}',
      }).catch(() => null);
      if (answer?.status === 200) return performance.now() - t0;
      await new Promise((r) => setTimeout(r, 10));
    }
  } finally {
    proc.kill('SIGTERM');
    await new Promise((r) => proc.once('exit', r));
    rmSync(datadir, { recursive: true, force: true });
  }
}

const node = new Daemon();
await node.start();
try {
  const cli = [
    CLI_BIN,
    '-regtest',
    `-datadir=${node.datadir}`,
    `-rpcport=${node.rpcPort}`,
    `-rpcuser=${node.user}`,
    `-rpcpassword=${node.password}`,
    'getblockcount',
  ];
  const samples = { bare: [] as number[], cli: [] as number[], csdVersion: [] as number[], minerHelp: [] as number[] };
  timed(cli); // the first run reads every file from disk; the others find them cached, as a user's would
  for (let i = 0; i < RUNS; i++) {
    samples.bare.push(timed(['-e', '0']));
    samples.cli.push(timed(cli));
    samples.csdVersion.push(timed([...nodeArgv(CSD_BIN), '-version']));
    samples.minerHelp.push(timed([MINER_BIN, '-help']));
  }
  const bare = median(samples.bare);
  const row = (what: string, ms: number, goal = '') =>
    console.log(`${what.padEnd(40)} ${ms.toFixed(0).padStart(6)} ms  ${(ms / bare).toFixed(2).padStart(6)}x node -e 0${goal}`);
  console.log(`startup: medians of ${RUNS} interleaved runs`);
  row('node -e 0', bare);
  row('cs-cli getblockcount (running csd)', median(samples.cli), '   (goal <= 2.0)');
  row('csd -version', median(samples.csdVersion));
  row('cs-miner -help', median(samples.minerHelp));
} finally {
  await node.stop();
  await node.cleanup();
}
const firsts: number[] = [];
for (let i = 0; i < 5; i++) firsts.push(await firstAnswer());
console.log(
  `csd spawn to first RPC answer, empty regtest data directory: median ${median(firsts).toFixed(0)} ms of 5 (${firsts.map((ms) => ms.toFixed(0)).join(', ')}; goal <= 1000 ms)`,
);
