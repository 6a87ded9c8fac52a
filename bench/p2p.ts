// Issue #13 figures, from one run on the large regtest chain (bench/large-chain.ts, cached):
//  - a fresh csd syncing the chain from a local csd peer, against the same node's -reindex of it
//    (goal: reindex time / sync time >= 0.80);
//  - -reindex in P2WPKH inputs per second against raw single-core libsecp256k1 verification
//    (goal >= 1.4x on 2 cores);
//  - the syncing node's memory (resident set size).
// Both nodes run without the wallet and the optional indexes, so both runs do the chain's work only.
//   node --import tsx bench/p2p.ts [spendBlocks]    (default 2000 blocks of 2,000 inputs)
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { ecdsaSign, publicKeyCreate, sha256 } from '@cs/consensus';
import { Daemon, RpcCallError } from '../packages/csd/test/daemon.ts';
import { largeChain } from './large-chain.ts';

const ARGS = ['-disablewallet', '-txindex=0', '-addressindex=0', '-rpcratelimit=0'];
const SAMPLE_MS = 250;

const native = createRequire(import.meta.url)('secp256k1/bindings') as { ecdsaVerify(s: Uint8Array, m: Uint8Array, p: Uint8Array): boolean };

/** Raw single-core libsecp256k1 verifications per second over 2,000 signatures, as the chain's inputs carry. */
function rawVerifyRate(): number {
  const priv = new Uint8Array(32).fill(1);
  const pub = publicKeyCreate(priv, true);
  const triples = Array.from({ length: 2000 }, (_, i) => {
    const msg = sha256(Uint8Array.of(i & 0xff, i >> 8));
    return { sig: ecdsaSign(msg, priv).signature, msg };
  });
  const rates: number[] = [];
  for (let round = 0; round < 5; round++) {
    const t0 = performance.now();
    for (const t of triples) if (!native.ecdsaVerify(t.sig, t.msg, pub)) throw new Error('raw verify failed');
    rates.push(triples.length / ((performance.now() - t0) / 1000));
  }
  return rates.sort((a, b) => a - b)[2];
}

/** Resident set size of a process in MiB, from /proc (Linux). */
function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

/**
 * Launches `d` and waits until its tip is at `height`, through warmup (-reindex runs there):
 * the seconds from launch and the largest resident set seen.
 */
async function runUntil(d: Daemon, height: number, args: readonly string[]): Promise<{ seconds: number; peakMiB: number }> {
  const t0 = performance.now();
  const proc = await d.launch(args);
  let peakMiB = 0;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`csd exited with ${proc.exitCode}: ${d.stderr}`);
    peakMiB = Math.max(peakMiB, rssMiB(proc.pid!));
    try {
      if ((await d.call<number>('getblockcount')) >= height) return { seconds: (performance.now() - t0) / 1000, peakMiB };
    } catch (e) {
      // Not listening yet, no answer yet, or warming up (-28).
      if (e instanceof RpcCallError && e.code !== -28) throw e;
    }
    await new Promise((r) => setTimeout(r, SAMPLE_MS));
  }
}

const spendBlocks = Number(process.argv[2] ?? 2000);
const chain = await largeChain(spendBlocks);
console.log(
  `large chain: ${chain.height} blocks, ${chain.inputs.toLocaleString('en')} P2WPKH inputs, UTXO set ${chain.utxos.toLocaleString('en')} coins (cached in ${chain.datadir}; generated in ${chain.generationSeconds.toFixed(0)} s)`,
);

const rawBefore = rawVerifyRate();
const source = new Daemon({ datadir: chain.datadir, args: ARGS });
const node = new Daemon({ args: ARGS });
try {
  await source.start();
  if ((await source.call<string>('getbestblockhash')) !== chain.tip) throw new Error('the cached chain does not end at its recorded tip');
  const sync = await runUntil(node, chain.height, [`-connect=127.0.0.1:${source.p2pPort}`]);
  if ((await node.call<string>('getbestblockhash')) !== chain.tip) throw new Error('the synced node is not at the chain tip');
  await node.stop();
  await source.stop();
  const reindex = await runUntil(node, chain.height, ['-reindex', '-listen=0']);
  if ((await node.call<string>('getbestblockhash')) !== chain.tip) throw new Error('the reindexed node is not at the chain tip');
  await node.stop();
  const raw = (rawBefore + rawVerifyRate()) / 2;
  const inputRate = chain.inputs / reindex.seconds;

  console.log(`sync from a local peer: ${sync.seconds.toFixed(1)} s; -reindex: ${reindex.seconds.toFixed(1)} s`);
  console.log(`reindex time / sync time: ${(reindex.seconds / sync.seconds).toFixed(2)} (goal >= 0.80)`);
  console.log(
    `-reindex: ${Math.round(inputRate).toLocaleString('en')} inputs/s; raw single-core libsecp256k1: ${Math.round(raw).toLocaleString('en')} verifies/s; ratio ${(inputRate / raw).toFixed(2)}x on ${availableParallelism()} cores (goal >= 1.4x)`,
  );
  console.log(`memory (resident set, peak): ${sync.peakMiB.toFixed(0)} MiB during sync, ${reindex.peakMiB.toFixed(0)} MiB during -reindex`);
} finally {
  await node.cleanup();
  await source.cleanup();
}
