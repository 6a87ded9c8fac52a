// cs-pool, from one run against a real csd (regtest) and a real cs-pool process:
//   (a) share validations per second through the stratum path (TCP, JSON, job lookup, Equihash,
//       the LMDB write, the reply), pipelined on a few connections, against bare Equihash
//       verification of the same shares in this process (goal >= 0.80);
//   (b) the time from csd's ZeroMQ hashblock (received here too) to each of 1,000 connected
//       miners receiving the new job (p50, p99 over every miner of every round; goal p99 <= 20 ms);
//   (c) the pool process's memory per connected idle miner (RSS growth / miners).
// Regtest shares are (48,5): their Equihash check is far cheaper than ZelHash's (125,4), so (a) is
// the pessimistic case for the stratum overhead.
//   node --import tsx bench/pool.ts
import { readFileSync } from 'node:fs';
import { REGTEST, checkHeaderSolution, fromHex } from '@cs/consensus';
import { headerPrefix } from '@cs/stratum';
import { Subscriber } from 'zeromq';
import { PoolProcess, startNode } from '../packages/cs-pool/test/pool-harness.ts';
import { StratumClient } from '../packages/cs-pool/test/stratum-client.ts';
import { percentile } from './lib/stats.ts';

const SHARES_PER_CONNECTION = 1500;
const CONNECTIONS = 4;
const MINERS = 1000;
const ROUNDS = 10;

const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

const { node, zmq } = await startNode();
const address = await node.call<string>('getnewaddress');
await node.call('generatetoaddress', 1, address);
const pool = new PoolProcess(node, zmq, ['-maxperip=5000', '-maxconnections=5000', '-loglevel=info', '-txrefresh=3600', '-processinterval=30']);
await pool.start();

try {
  // Memory first, on a fresh process; then job fan-out to the same miners; then shares.
  const results = { a: '', b: '', c: '' };
  // (c) Memory per idle miner: RSS before and after 1,000 subscribed, authorized miners.
  await new Promise((r) => setTimeout(r, 500));
  const rssBefore = rssKb(pool.proc!.pid!);
  const miners: StratumClient[] = [];
  for (let i = 0; i < MINERS; i += 100) {
    const batch = await Promise.all(Array.from({ length: Math.min(100, MINERS - i) }, () => StratumClient.connect(pool.ports!.plain)));
    await Promise.all(batch.map((c) => c.subscribe()));
    await Promise.all(batch.map((c, j) => c.authorize(`${address}.m${i + j}`)));
    miners.push(...batch);
  }
  await new Promise((r) => setTimeout(r, 1000));
  const rssAfter = rssKb(pool.proc!.pid!);
  results.c = `(c) memory per idle miner: ${(((rssAfter - rssBefore) * 1024) / MINERS / 1024).toFixed(1)} KiB (RSS ${rssBefore} -> ${rssAfter} KiB for ${MINERS} miners)`;

  // (b) hashblock to job, every miner of every round.
  const sub = new Subscriber();
  sub.connect(zmq);
  sub.subscribe('hashblock');
  // ZeroMQ's slow joiner: the subscription needs a moment to reach the publisher.
  await new Promise((r) => setTimeout(r, 500));
  const hashblocks = sub[Symbol.asyncIterator]();
  const latencies: number[] = [];
  const lasts: number[] = [];
  const poolSide: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const counts = miners.map((m) => m.notifications.length);
    const got = new Array<number>(MINERS).fill(0);
    const waits = miners.map((m, i) =>
      m
        .waitFor(() => m.notifications.slice(counts[i]).some((n) => n.method === 'mining.notify' && n.params[7] === true), 'the clean job', 30_000)
        .then(() => (got[i] = performance.now())),
    );
    const hb = hashblocks.next().then(() => performance.now());
    await node.call('generatetoaddress', 1, address);
    const hashblockAt = await hb;
    await Promise.all(waits);
    const per = got.map((t) => t - hashblockAt);
    latencies.push(...per);
    lasts.push(Math.max(...per));
    const metrics = await pool.api<string>('/metrics');
    poolSide.push(Number(/^cs_pool_hashblock_to_jobs_seconds (\S+)$/m.exec(metrics)![1]) * 1000);
  }
  sub.close();
  results.b = `(b) hashblock -> job at ${MINERS} miners over ${ROUNDS} blocks: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${percentile(latencies, 99).toFixed(2)} ms, last miner median ${percentile(lasts, 50).toFixed(2)} ms, worst ${Math.max(...lasts).toFixed(2)} ms (goal p99 <= 20 ms); inside the pool, hashblock to the last job written: median ${percentile(poolSide, 50).toFixed(2)} ms, worst ${Math.max(...poolSide).toFixed(2)} ms`;
  for (const m of miners) m.close();
  // (a) Pre-solved shares, none a block, so the job stays current while they are sent.
  const conns: StratumClient[] = [];
  const solved: string[][][] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const c = await StratumClient.connect(pool.ports!.plain);
    await c.subscribe();
    await c.authorize(`${address}.bench${i}`);
    conns.push(c);
    const list: string[][] = [];
    for (let n = 0; n < SHARES_PER_CONNECTION; n++) list.push(c.solve(REGTEST.equihash, false, `${address}.bench${i}`).params);
    solved.push(list);
  }
  const bare = solved.flatMap((list, i) =>
    list.map((p) => {
      const c = conns[i];
      const header = headerPrefix(c.job!.headerInput, c.job!.time, c.nonce1, fromHex(p[3]));
      return { header, solution: fromHex(p[4]).subarray(1) };
    }),
  );
  const total = bare.length;
  // Bare verification, best of three passes.
  let bareBest = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < 3; pass++) {
    const t0 = performance.now();
    for (const s of bare) if (checkHeaderSolution(REGTEST.equihash, s.header, s.solution) !== 'ok') throw new Error('bad share');
    bareBest = Math.min(bareBest, performance.now() - t0);
  }
  const t0 = performance.now();
  const replies = await Promise.all(solved.map((list, i) => Promise.all(list.map((p) => conns[i].submit(p)))));
  const stratumMs = performance.now() - t0;
  const accepted = replies.flat().filter((r) => r.result === true).length;
  if (accepted !== total) throw new Error(`only ${accepted} of ${total} shares accepted`);
  const bareRate = (total / bareBest) * 1000;
  const stratumRate = (total / stratumMs) * 1000;
  results.a = `(a) share validation: stratum path ${stratumRate.toFixed(0)}/s, bare Equihash ${bareRate.toFixed(0)}/s, ratio ${(stratumRate / bareRate).toFixed(3)} (goal >= 0.80)`;
  for (const c of conns) c.close();

  console.log([results.a, results.b, results.c].join('\n'));
} finally {
  await pool.cleanup();
  await node.cleanup();
}
