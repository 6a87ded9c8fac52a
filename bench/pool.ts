// cs-pool, from one run against a real csd (regtest) and a real cs-pool process:
//   (a) share validations per second through the stratum path (TCP, JSON, job lookup, Equihash,
//       the LMDB write, the reply), pipelined on a few connections, against bare Equihash
//       verification of the same shares in this process (goal >= 0.80);
//   (b) the time from csd's ZeroMQ hashblock (received here too) to each of 1,000 connected
//       miners receiving the new job (p50, p99 over every miner of every round; goal p99 <= 20 ms);
//   (c) the pool process's memory per connected idle miner (RSS growth / miners).
// Regtest shares are (48,5): their Equihash check is far cheaper than ZelHash's (125,4), so (a) is
// the pessimistic case for the stratum overhead.
//   node --conditions=@cs/source --import tsx bench/pool.ts
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { REGTEST, checkHeaderSolution, fromHex } from '@cs/consensus';
import { headerPrefix } from '@cs/stratum';
import { Subscriber } from 'zeromq';
import { PoolProcess, startNode } from '../packages/cs-pool/test/pool-harness.ts';
import { StratumClient } from '../packages/cs-pool/test/stratum-client.ts';
import { median, percentile } from './lib/stats.ts';

const SHARES_PER_CONNECTION = 1500;
/** Sent and answered before the measured ones: the bare baseline is the best of three warm passes, so the pool's path is warm too. */
const WARMUP_PER_CONNECTION = 500;
const CONNECTIONS = 4;
const MINERS = 1000;
const ROUNDS = 10;

/** CPU ms a process (or one of its threads: the main thread's id is the process's) has used, from /proc (10 ms ticks). */
const cpuMs = (pid: number, tid?: number) => {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of proc(5), counted from the state field (3).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

const { node, zmq } = await startNode();
const address = await node.call<string>('getnewaddress');
await node.call('generatetoaddress', 1, address);
const pool = new PoolProcess(node, zmq, ['-maxperip=5000', '-maxconnections=5000', '-loglevel=info', '-txrefresh=3600', '-processinterval=30']);
// POOL_BENCH_PROFILE=<dir>: CPU profiles of the pool process and of the miners' process, written there.
const profileDir = process.env.POOL_BENCH_PROFILE ?? null;
if (profileDir) pool.nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
await pool.start();

/** bench/pool-miners.ts in a child process: connect, then rounds of arm -> each miner's first notify time (ns). */
function startMiners() {
  const child = fork(fileURLToPath(new URL('pool-miners.ts', import.meta.url)), {
    execArgv: ['--conditions=@cs/source', '--import', 'tsx', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])],
  });
  const next = <T>(want: (m: unknown) => boolean) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        if (!want(m)) return;
        child.off('message', onMessage);
        child.off('exit', onExit);
        resolve(m as T);
      };
      const onExit = (code: number) => reject(new Error(`the miners' process exited with ${code}`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  return {
    connect(port: number): Promise<unknown> {
      const ready = next((m) => m === 'ready');
      child.send({ connect: port, login: `${address}.m`, count: MINERS });
      return ready;
    },
    /** Resolves once armed, with the promise of the receipt times (wrapped: an async function would wait for it). */
    async arm(): Promise<{ received: Promise<number[]> }> {
      const armed = next((m) => m === 'armed');
      child.send('arm');
      await armed;
      return { received: next<{ times: number[] }>((m) => typeof m === 'object' && m !== null && 'times' in m).then((m) => m.times) };
    },
    close: () => child.send('close'),
  };
}

/**
 * The floor under (b) on this machine: another 1,000 receivers like the miners, fed by a bare loop
 * writing a notify-sized line to each socket, no pool and no template in between. Its rounds
 * alternate with the pool's, so that both see the same load.
 */
async function bareFanout() {
  const line = Buffer.from(`{"id":null,"method":"mining.notify","params":[${'"00",'.repeat(60)}true]}\n`);
  const sockets: Socket[] = [];
  const server = createServer((s) => {
    sockets.push(s);
    s.setNoDelay(true);
    s.resume();
    s.write(line);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const receivers = startMiners();
  await receivers.connect((server.address() as { port: number }).port);
  return {
    bytes: line.length,
    /** One round: the loop's time and the last receipt, ms after the loop started. */
    async round(): Promise<{ loop: number; last: number }> {
      const { received } = await receivers.arm();
      const t0 = Number(process.hrtime.bigint());
      for (const s of sockets) s.write(line);
      const loop = (Number(process.hrtime.bigint()) - t0) / 1e6;
      return { loop, last: (Math.max(...(await received)) - t0) / 1e6 };
    },
    close(): void {
      receivers.close();
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

try {
  // Memory first, on a fresh process; then job fan-out to the same miners; then shares.
  const results = { a: '', b: '', c: '' };
  // (c) Memory per idle miner: RSS before and after 1,000 subscribed, authorized miners.
  await new Promise((r) => setTimeout(r, 500));
  const rssBefore = rssKb(pool.proc!.pid!);
  const miners = startMiners();
  await miners.connect(pool.ports!.plain);
  await new Promise((r) => setTimeout(r, 1000));
  const rssAfter = rssKb(pool.proc!.pid!);
  results.c = `(c) memory per idle miner: ${(((rssAfter - rssBefore) * 1024) / MINERS / 1024).toFixed(1)} KiB (RSS ${rssBefore} -> ${rssAfter} KiB for ${MINERS} miners)`;

  // (b) hashblock to job, every miner of every round, both read on CLOCK_MONOTONIC at receipt.
  const sub = new Subscriber();
  sub.connect(zmq);
  sub.subscribe('hashblock');
  // ZeroMQ's slow joiner: the subscription needs a moment to reach the publisher.
  await new Promise((r) => setTimeout(r, 500));
  const hashblocks = sub[Symbol.asyncIterator]();
  const latencies: number[] = [];
  const lasts: number[] = [];
  const poolSide: number[] = [];
  const fanout: number[] = [];
  const fanoutCpu: number[] = [];
  const floor = await bareFanout();
  const floorLoops: number[] = [];
  const floorLasts: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const bare = await floor.round();
    floorLoops.push(bare.loop);
    floorLasts.push(bare.last);
    const { received } = await miners.arm();
    const hb = hashblocks.next().then(() => Number(process.hrtime.bigint()));
    await node.call('generatetoaddress', 1, address);
    const hashblockAt = await hb;
    const per = (await received).map((t) => (t - hashblockAt) / 1e6);
    latencies.push(...per);
    lasts.push(Math.max(...per));
    const metrics = await pool.api<string>('/metrics');
    poolSide.push(Number(/^cs_pool_hashblock_to_jobs_seconds (\S+)$/m.exec(metrics)![1]) * 1000);
    fanout.push(Number(/^cs_pool_job_fanout_seconds (\S+)$/m.exec(metrics)![1]) * 1000);
    fanoutCpu.push(Number(/^cs_pool_job_fanout_cpu_seconds (\S+)$/m.exec(metrics)![1]) * 1000);
  }
  sub.close();
  const p99 = percentile(latencies, 99);
  results.b = `(b) hashblock -> job at ${MINERS} miners over ${ROUNDS} blocks: p50 ${percentile(latencies, 50).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms (${(p99 / 20).toFixed(2)}x the 20 ms goal), last miner median ${median(lasts).toFixed(2)} ms, worst ${Math.max(...lasts).toFixed(2)} ms; inside the pool, hashblock to the last job written: median ${median(poolSide).toFixed(2)} ms, worst ${Math.max(...poolSide).toFixed(2)} ms, of which writing to the ${MINERS} sockets: median ${median(fanout).toFixed(2)} ms (${median(fanoutCpu).toFixed(2)} ms of CPU)`;
  miners.close();
  floor.close();
  results.b += `\n    baseline, in alternate rounds: a bare loop writing ${floor.bytes} bytes to each of ${MINERS} other receivers: loop median ${median(floorLoops).toFixed(2)} ms, last receipt median ${median(floorLasts).toFixed(2)} ms; the pool's last miner / the bare loop's last receipt: ${(median(lasts) / median(floorLasts)).toFixed(2)}`;
  // (a) Pre-solved shares, none a block, so the job stays current while they are sent.
  const conns: StratumClient[] = [];
  const solved: string[][][] = [];
  const warmup: string[][][] = [];
  for (let i = 0; i < CONNECTIONS; i++) {
    const c = await StratumClient.connect(pool.ports!.plain);
    await c.subscribe();
    await c.authorize(`${address}.bench${i}`);
    conns.push(c);
    const list: string[][] = [];
    for (let n = 0; n < WARMUP_PER_CONNECTION + SHARES_PER_CONNECTION; n++)
      list.push(c.solve(REGTEST.equihash, false, `${address}.bench${i}`).params);
    warmup.push(list.slice(0, WARMUP_PER_CONNECTION));
    solved.push(list.slice(WARMUP_PER_CONNECTION));
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
  let bareCpu = Number.POSITIVE_INFINITY;
  for (let pass = 0; pass < 3; pass++) {
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    for (const s of bare) if (checkHeaderSolution(REGTEST.equihash, s.header, s.solution) !== 'ok') throw new Error('bad share');
    bareBest = Math.min(bareBest, performance.now() - t0);
    const cpu = process.cpuUsage(cpu0);
    bareCpu = Math.min(bareCpu, (cpu.user + cpu.system) / 1000);
  }
  const warm = await Promise.all(warmup.map((list, i) => Promise.all(conns[i].sendEncoded(conns[i].encodeRequests('mining.submit', list)))));
  if (!warm.flat().every((r) => r.result === true)) throw new Error('a warm-up share was refused');
  // Each connection's submits are encoded before the clock starts and written at once.
  const lines = solved.map((list, i) => conns[i].encodeRequests('mining.submit', list));
  const pid = pool.proc!.pid!;
  const [poolCpu0, mainCpu0] = [cpuMs(pid), cpuMs(pid, pid)];
  const t0 = performance.now();
  const replies = await Promise.all(lines.map((l, i) => Promise.all(conns[i].sendEncoded(l))));
  const stratumMs = performance.now() - t0;
  const [poolCpu, mainCpu] = [cpuMs(pid) - poolCpu0, cpuMs(pid, pid) - mainCpu0];
  const accepted = replies.flat().filter((r) => r.result === true).length;
  if (accepted !== total) throw new Error(`only ${accepted} of ${total} shares accepted`);
  const bareRate = (total / bareBest) * 1000;
  const stratumRate = (total / stratumMs) * 1000;
  results.a = `(a) share validation: stratum path ${stratumRate.toFixed(0)}/s, bare Equihash ${bareRate.toFixed(0)}/s, ratio ${(stratumRate / bareRate).toFixed(3)} (goal >= 0.80); CPU per share: pool ${((poolCpu * 1000) / total).toFixed(0)} us (main thread ${((mainCpu * 1000) / total).toFixed(0)} us, ${((100 * mainCpu) / stratumMs).toFixed(0)}% of the wall time), bare ${((bareCpu * 1000) / total).toFixed(0)} us, CPU ratio ${(bareCpu / poolCpu).toFixed(3)}`;
  for (const c of conns) c.close();

  console.log([results.a, results.b, results.c].join('\n'));
} finally {
  // A profile is written when the process exits by itself.
  if (profileDir) await pool.stop();
  await pool.cleanup();
  await node.cleanup();
}
