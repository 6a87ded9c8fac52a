// From `npm run network` to a working network: the time to the first block found through the pool
// and to the first answered question (a REQUEST sent as soon as the network is up, its prompt
// through the bridge API, answered by a miner: the bridge holds the answer; then published on
// chain), each as a ratio against a baseline measured in the same run: one csd started alone,
// from spawn to its first getblockcount answer. Run: node --conditions=@cs/source --import tsx bench/network.ts
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon } from '../packages/csd/test/daemon.ts';
import { eventually } from '../packages/cs-pool/test/pool-harness.ts';
import { NetworkRun, freeBasePort } from '../test/network-harness.ts';

async function csdAlone(): Promise<number> {
  const node = new Daemon();
  const t0 = performance.now();
  await node.start();
  const ms = performance.now() - t0;
  await node.stop();
  await node.cleanup();
  return ms;
}

const dir = mkdtempSync(join(tmpdir(), 'cs-network-bench-'));
let run: NetworkRun | null = null;
try {
  const baseline = await csdAlone();
  const t0 = performance.now();
  run = new NetworkRun(join(dir, 'net'), [`-baseport=${await freeBasePort()}`]);
  const network = run;
  // Polled from the start: the first pool block comes before the network is up (it confirms the stake).
  const firstBlock = eventually(
    async () => {
      const blocks = await network.poolApi<unknown[]>('/api/blocks').catch(() => []);
      return blocks.length > 0 ? performance.now() - t0 : undefined;
    },
    'a block through the pool',
    900_000,
  );
  await network.up();
  const up = performance.now() - t0;
  const id = await network.ask('Once upon a time', 8);
  await network.reach(id, 'received', 600_000);
  const answered = performance.now() - t0;
  await network.reach(id, 'published', 600_000);
  const published = performance.now() - t0;

  const row = (what: string, ms: number) =>
    console.log(`${what.padEnd(52)} ${(ms / 1000).toFixed(1).padStart(7)} s  ${(ms / baseline).toFixed(1).padStart(6)}x csd alone`);
  console.log('network: from `npm run network` (ratios against csd alone, from spawn to its first getblockcount, this run)');
  row('csd alone: spawn to first getblockcount', baseline);
  row('network up (stake active, miners announced)', up);
  row('first block found through the pool', await firstBlock);
  row('first question answered (the bridge has the answer)', answered);
  row('first answer published on chain', published);
} finally {
  if (run && run.proc.exitCode === null && run.proc.signalCode === null) {
    run.interrupt();
    await run.exited();
  }
  rmSync(dir, { recursive: true, force: true });
}
