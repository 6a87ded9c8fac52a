// Issue #35 item 1, from one run on the large regtest chain (bench/large-chain.ts, cached): a fresh
// csd that gets the headers from a local csd peer and loads a UTXO snapshot of the chain's tip
// (dumptxoutset on the peer), the time from its start to its first answer at the tip, against the
// same node's -reindex of the whole chain once its background validation has fetched and checked
// the history (goal: usable time / reindex time <= 0.05). The background validation must finish
// and agree with the snapshot. Both nodes run without the wallet and the optional indexes.
//   node --conditions=@cs/source --import tsx bench/snapshot.ts [spendBlocks]    (default 2000 blocks of 2,000 inputs)
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Daemon, RpcCallError } from '../packages/csd/test/daemon.ts';
import { largeChain } from './large-chain.ts';

const ARGS = ['-disablewallet', '-txindex=0', '-addressindex=0', '-rpcratelimit=0'];
const GOAL = 0.05;
// The first usable moment is polled closely; the long waits (the background validation, the
// -reindex) less often, so that the polling takes no CPU from them.
const CLOSE_MS = 10;
const SAMPLE_MS = 100;

type Json = Record<string, unknown>;

/** Calls `probe` every `ms` until it answers true, through start-up and warmup; the seconds since `t0`. */
async function until(d: Daemon, t0: number, probe: () => Promise<boolean>, ms = SAMPLE_MS): Promise<number> {
  for (;;) {
    if (d.proc?.exitCode != null) throw new Error(`csd exited with ${d.proc.exitCode}: ${d.stderr}`);
    try {
      if (await probe()) return (performance.now() - t0) / 1000;
    } catch (e) {
      // Not listening yet, or warming up (-28).
      if (e instanceof RpcCallError && e.code !== -28) throw e;
    }
    await new Promise((r) => setTimeout(r, ms));
  }
}

const spendBlocks = Number(process.argv[2] ?? 2000);
const chain = await largeChain(spendBlocks);
console.log(
  `large chain: ${chain.height} blocks, ${chain.inputs.toLocaleString('en')} P2WPKH inputs, UTXO set ${chain.utxos.toLocaleString('en')} coins (cached in ${chain.datadir})`,
);

const work = mkdtempSync(join(tmpdir(), 'cs-bench-snapshot-'));
const file = join(work, 'utxo.dat');
const source = new Daemon({ datadir: chain.datadir, args: ARGS });
let node: Daemon | null = null;
try {
  await source.start();
  if ((await source.call<string>('getbestblockhash')) !== chain.tip) throw new Error('the cached chain does not end at its recorded tip');
  const dumpStarted = performance.now();
  const dump = await source.call<Json>('dumptxoutset', file, 'latest');
  const dumpSeconds = (performance.now() - dumpStarted) / 1000;
  console.log(
    `dumptxoutset: ${(dump.coins_written as number).toLocaleString('en')} coins, ${(statSync(file).size / 2 ** 20).toFixed(0)} MiB in ${dumpSeconds.toFixed(1)} s; txoutset_hash ${dump.txoutset_hash}`,
  );

  const fresh = new Daemon({ args: [...ARGS, `-assumeutxo=${dump.base_height}:${dump.base_hash}:${dump.txoutset_hash}`] });
  node = fresh;
  const t0 = performance.now();
  await fresh.launch([`-connect=127.0.0.1:${source.p2pPort}`]);
  const headers = await until(fresh, t0, async () => (await fresh.call<Json>('getblockchaininfo')).headers === chain.height, CLOSE_MS);
  const loadStarted = performance.now();
  const loaded = await fresh.call<Json>('loadtxoutset', file);
  const load = (performance.now() - loadStarted) / 1000;
  const usable = await until(fresh, t0, async () => (await fresh.call<string>('getbestblockhash')) === chain.tip, CLOSE_MS);
  if (loaded.base_height !== chain.height) throw new Error(`loaded at ${loaded.base_height}, not at the tip`);
  const validated = await until(fresh, t0, async () => {
    const states = (await fresh.call<{ chainstates: Json[] }>('getchainstates')).chainstates;
    return states.length === 1 && states[0].validated === true;
  });
  const log = readFileSync(fresh.debugLogPath, 'utf8');
  if (!log.includes('the UTXO snapshot is valid')) throw new Error('the background validation did not agree with the snapshot');
  await fresh.stop();
  await source.stop();

  const reindexStarted = performance.now();
  await fresh.launch(['-reindex', '-listen=0']);
  const reindex = await until(fresh, reindexStarted, async () => (await fresh.call<number>('getblockcount')) >= chain.height);
  if ((await fresh.call<string>('getbestblockhash')) !== chain.tip) throw new Error('the reindexed node is not at the chain tip');

  console.log(
    `fresh node from the snapshot: headers after ${headers.toFixed(1)} s, loadtxoutset ${load.toFixed(1)} s, usable at the tip after ${usable.toFixed(1)} s; background validation done and agreeing after ${validated.toFixed(1)} s`,
  );
  console.log(`the same node's -reindex: ${reindex.toFixed(1)} s`);
  const ratio = usable / reindex;
  console.log(`time to first usable tip / -reindex: ${ratio.toFixed(3)} (goal <= ${GOAL}) ${ratio <= GOAL ? 'PASS' : 'MISS'}`);
} finally {
  await node?.cleanup();
  await source.cleanup();
  rmSync(work, { recursive: true, force: true });
}
