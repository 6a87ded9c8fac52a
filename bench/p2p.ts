// Issue #13 figures, from one run on the large regtest chain (bench/large-chain.ts, cached):
//  - a fresh csd syncing the chain from a local csd peer, against the same node's -reindex of it
//    (goal: reindex time / sync time >= 0.80);
//  - -reindex in P2WPKH inputs per second against raw single-core libsecp256k1 verification
//    (goal >= 1.4x on 2 cores);
//  - the syncing node's memory (resident set, and its anonymous part apart from LMDB's mapped pages).
// Both nodes run without the wallet and the optional indexes, so both runs do the chain's work only.
//   node --conditions=@cs/source --import tsx bench/p2p.ts [spendBlocks]    (default 2000 blocks of 2,000 inputs)
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Daemon, RpcCallError } from '../packages/csd/test/daemon.ts';
import { largeChain } from './large-chain.ts';
import { rawVerifyRatePerCore } from './lib/raw-verify.ts';

const ARGS = ['-disablewallet', '-txindex=0', '-addressindex=0', '-rpcratelimit=0'];
const SAMPLE_MS = 250;

const rates = (values: readonly number[]) => values.map((v) => Math.round(v).toLocaleString('en')).join(' / ');

/**
 * Where a node's block connects spent their time (its /metrics), as shares of the total, and how
 * many blocks were planned while their parent's scripts were checked (a lookahead).
 */
async function connectPhases(d: Daemon): Promise<string> {
  const text = await (await fetch(`http://127.0.0.1:${d.rpcPort}/metrics`)).text();
  const value = (series: string) => Number(new RegExp(`^${series.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? 0);
  const seconds = (phase: string) => value(`csd_block_connect_phase_seconds_sum{phase="${phase}"}`);
  const phases = { plan: seconds('plan'), scripts: seconds('scripts'), write: seconds('write') };
  const total = phases.plan + phases.scripts + phases.write;
  const split = Object.entries(phases)
    .map(([name, s]) => `${name} ${((100 * s) / total).toFixed(0)}%`)
    .join(', ');
  const ahead = value('csd_block_connect_planned_ahead_total');
  return `${split}; ${ahead} of ${value('csd_block_connect_duration_seconds_count')} blocks planned ahead`;
}

interface Memory {
  /** Resident set, MiB. */
  rss: number;
  /** Its anonymous part (heap, buffers, native allocations), MiB; the rest is mostly LMDB's mapped file pages. */
  anon: number;
}

/** Resident memory of a process, from /proc (Linux). */
function memoryOf(pid: number): Memory {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kB = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0) / 1024;
  return { rss: kB('VmRSS'), anon: kB('RssAnon') };
}

/**
 * Launches `d` and waits until its tip is at `height`, through warmup (-reindex runs there):
 * the seconds from launch and the largest resident set seen.
 */
async function runUntil(d: Daemon, height: number, args: readonly string[]): Promise<{ seconds: number; peak: Memory }> {
  const t0 = performance.now();
  const proc = await d.launch(args);
  const peak: Memory = { rss: 0, anon: 0 };
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`csd exited with ${proc.exitCode}: ${d.stderr}`);
    const now = memoryOf(proc.pid!);
    peak.rss = Math.max(peak.rss, now.rss);
    peak.anon = Math.max(peak.anon, now.anon);
    try {
      if ((await d.call<number>('getblockcount')) >= height) return { seconds: (performance.now() - t0) / 1000, peak };
    } catch (e) {
      // Not listening yet, no answer yet, or warming up (-28).
      if (e instanceof RpcCallError && e.code !== -28) throw e;
    }
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }
}

/** The last batch of coins `d` wrote on its writer thread, from its debug.log. */
function lastWriterBatch(d: Daemon): { coins: number; seconds: number } | null {
  const lines = readFileSync(join(d.datadir, 'regtest', 'debug.log'), 'utf8')
    .trim()
    .split('\n');
  for (const line of lines.reverse()) {
    const entry = JSON.parse(line) as { msg: string; thread?: string; coins: number; ms: number };
    if (entry.msg === 'coins cache written' && entry.thread === 'writer') return { coins: entry.coins, seconds: entry.ms / 1000 };
  }
  return null;
}

const spendBlocks = Number(process.argv[2] ?? 2000);
const chain = await largeChain(spendBlocks);
console.log(
  `large chain: ${chain.height} blocks, ${chain.inputs.toLocaleString('en')} P2WPKH inputs, UTXO set ${chain.utxos.toLocaleString('en')} coins (cached in ${chain.datadir}; generated in ${chain.generationSeconds.toFixed(0)} s)`,
);

const source = new Daemon({ datadir: chain.datadir, args: ARGS });
const node = new Daemon({ args: ARGS });
try {
  await source.start();
  if ((await source.call<string>('getbestblockhash')) !== chain.tip) throw new Error('the cached chain does not end at its recorded tip');
  const sync = await runUntil(node, chain.height, [`-connect=127.0.0.1:${source.p2pPort}`]);
  if ((await node.call<string>('getbestblockhash')) !== chain.tip) throw new Error('the synced node is not at the chain tip');
  const syncPhases = await connectPhases(node);
  await node.stop();
  await source.stop();
  // This machine's speed drifts over minutes (shared cores): the baseline is taken on each core,
  // right before and right after the reindex it is compared with.
  const rawBefore = rawVerifyRatePerCore();
  const reindex = await runUntil(node, chain.height, ['-reindex', '-listen=0']);
  if ((await node.call<string>('getbestblockhash')) !== chain.tip) throw new Error('the reindexed node is not at the chain tip');
  const phases = await connectPhases(node);
  await node.stop();
  const rawAfter = rawVerifyRatePerCore();
  const rawAll = [...rawBefore, ...rawAfter];
  // The mean core is what the two cores the node runs on offer each; the fastest measurement bounds the ratio from below.
  const raw = rawAll.reduce((a, b) => a + b, 0) / rawAll.length;
  const fastest = Math.max(...rawAll);
  const inputRate = chain.inputs / reindex.seconds;
  const write = lastWriterBatch(node);

  console.log(`sync from a local peer: ${sync.seconds.toFixed(1)} s; -reindex: ${reindex.seconds.toFixed(1)} s`);
  console.log(`reindex time / sync time: ${(reindex.seconds / sync.seconds).toFixed(2)} (goal >= 0.80)`);
  console.log(
    `-reindex: ${Math.round(inputRate).toLocaleString('en')} inputs/s; raw single-core libsecp256k1: ${Math.round(raw).toLocaleString('en')} verifies/s on the mean core (per core ${rates(rawBefore)} before, ${rates(rawAfter)} after); ratio ${(inputRate / raw).toFixed(2)}x on ${availableParallelism()} cores (goal >= 1.4x); against the fastest core measured ${(inputRate / fastest).toFixed(2)}x`,
  );
  if (write) {
    const durable = chain.inputs / (reindex.seconds + write.seconds);
    console.log(
      `  the node answered at its tip while the writer thread wrote its ${write.coins.toLocaleString('en')} cached coins, ${write.seconds.toFixed(1)} s more; counting that write too: ${Math.round(durable).toLocaleString('en')} inputs/s, ratio ${(durable / raw).toFixed(2)}x`,
    );
  }
  console.log(`block connect time (plan includes the UTXO lookups; scripts is the wait for signature checks):`);
  console.log(`  sync: ${syncPhases}`);
  console.log(`  -reindex: ${phases}`);
  const mem = (m: Memory) => `${m.rss.toFixed(0)} MiB (${m.anon.toFixed(0)} MiB anonymous, the rest mapped database pages)`;
  console.log(`memory, peak resident set: ${mem(sync.peak)} during sync, ${mem(reindex.peak)} during -reindex`);
} finally {
  await node.cleanup();
  await source.cleanup();
}
