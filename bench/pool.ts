// cs-pool, from one run against real csds (regtest) and a real cs-pool process, each figure a
// ratio to its floor measured in the same run, in rounds that alternate with the pool's (which
// goes first alternates too), so that both see the same load on a shared machine:
//   (a) share validation: shares per second through the pool's share path (real TCP miners on
//       loopback pipelining valid solutions: JSON, job lookup, Equihash on -verifythreads threads,
//       the LMDB write, the reply; the miners in a session of their own, bench/pool-share-miners.ts,
//       as they are not on the pool's host) ÷ bare Equihash checks of the same shares on as many
//       threads of this process (checkHeaderSolution and nothing else); the median over pairs of
//       adjacent rounds of the pool's rate ÷ the floor's (goal >= 0.80);
//   (b) job fan-out to 1,000 miners: per round, the p99 over the miners of the time from the
//       pool's first news of a new block (its cs_pool_new_block_seen_timestamp_seconds: csd's
//       ZeroMQ hashblock or the long poll's answer, whichever came first) to each miner receiving
//       its new job ÷ per round, the p99 over 1,000 other receivers of the time from a bare
//       node:net writer's first news of a block of a second csd (the same two sources, the same
//       stamp) to each receiving the same notify bytes, written in one loop once the long poll
//       has answered (in a process of its own, as the pool is); the median over pairs of
//       adjacent rounds, after a few pairs unmeasured (goal <= 1.05). The pool's time adds
//       building the job and all else the pool does. Both sides stamp their own news, as csd's
//       hashblock reaches this process 1-8 ms after csd's new tip, often after the pool has begun
//       writing. Either csd does its block work (the solve, the commits, the template, the
//       replies) while the loop and the receivers run. Every round starts after a pause, so that
//       each side's receivers have been quiet for longer than Linux's least retransmission
//       timeout, as a pool's miners are between jobs: how long a socket was quiet decides whether
//       its peer ACKs each segment at once, in the writer's own loop, or later (quick-ACK mode),
//       and writing to sockets written to a round before once made the floor's loop 21% cheaper
//       in CPU than the same loop in the pool (docs/pool-performance.md);
//   (c) the pool process's memory per connected idle miner (RSS growth / miners).
// The pool runs with -stratumprocesses (POOL_BENCH_STRATUM_PROCESSES, default 2): its sockets are
// held by socket processes, whose memory and CPU count as the pool's in (a) and (c).
// Regtest shares are (48,5). POOL_BENCH_VERIFY_THREADS (default 1) sets -verifythreads and the
// floor's thread count; POOL_BENCH_PROFILE=<dir> writes CPU profiles of the pool and the miners.
//   node --conditions=@cs/source --import tsx bench/pool.ts
import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '@cs/runtime/worker';
import type { Daemon } from '../packages/csd/test/daemon.ts';
import { PoolProcess, socketProcesses, startNode } from '../packages/cs-pool/test/pool-harness.ts';
import { median, percentile } from './lib/stats.ts';

const VERIFY_THREADS = Number(process.env.POOL_BENCH_VERIFY_THREADS ?? 1);
/** -stratumprocesses: one socket process per core of these machines. */
const SOCKET_PROCESSES = Number(process.env.POOL_BENCH_STRATUM_PROCESSES ?? 2);
const CONNECTIONS = 4;
/** Per connection and round: 1,200 shares a round, a few hundred milliseconds of checks. */
const SHARES_PER_ROUND = 300;
const SHARE_ROUNDS = 9;
/** Sent and answered before the measured rounds, so that the pool's path is warm (JIT, LMDB's maps). */
const WARMUP_PER_CONNECTION = 500;
const MINERS = 1000;
/**
 * Per-round ratios spread from 0.5 to 2 on a shared machine, so the median of 45 pairs still moved
 * by ±0.05 from run to run; 150 pairs halve that.
 */
const FANOUT_ROUNDS = 150;
/** Rounds of each kind before the measured ones: the first few broadcasts of either side run up to twice as long. */
const FANOUT_WARMUP_ROUNDS = 3;
/** Before every (b) round: longer than Linux's least retransmission timeout (TCP_RTO_MIN, 200 ms). */
const QUIET_MS = 300;
const SHARE_GOAL = 0.8;
const FANOUT_GOAL = 1.05;

const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');

/** CPU ms a process (or one of its threads: the main thread's id is the process's) has used, from /proc (10 ms ticks). */
const cpuMs = (pid: number, tid?: number) => {
  const stat = readFileSync(tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime, fields 14 and 15 of proc(5), counted from the state field (3).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
};
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
/** The pool's process and its socket processes, whose memory and CPU are the pool's too. */
const poolPids = (pid: number) => [pid, ...socketProcesses(pid)];
const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
const poolCpuMs = (pid: number) => sum(poolPids(pid).map((p) => cpuMs(p)));

const profileDir = process.env.POOL_BENCH_PROFILE ?? null;
const execArgv = ['--conditions=@cs/source', '--import', 'tsx', ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [])];

/** The next message of `child` that `want` accepts. */
function nextMessage<T>(child: ChildProcess, want: (m: unknown) => boolean): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (m: unknown) => {
      if (!want(m)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(m as T);
    };
    const onExit = (code: number) => reject(new Error(`a bench process exited with ${code}`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** bench/pool-miners.ts in a child process: connect, then rounds of arm -> each receiver's first notify time (ns). */
function startReceivers(port: number, login: string) {
  const child = fork(fileURLToPath(new URL('pool-miners.ts', import.meta.url)), { execArgv });
  const ready = nextMessage(child, (m) => m === 'ready');
  child.send({ connect: port, login, count: MINERS });
  return {
    ready,
    /** Resolves once armed, with the promise of the receipt times (wrapped: an async function would wait for it). */
    async arm(): Promise<{ received: Promise<number[]> }> {
      const armed = nextMessage(child, (m) => m === 'armed');
      child.send('arm');
      await armed;
      return { received: nextMessage<{ times: number[] }>(child, (m) => typeof m === 'object' && m !== null && 'times' in m).then((m) => m.times) };
    },
    close: () => child.send('close'),
  };
}

/** The pool's notify line as a miner receives it, bytes and all: what the floor writes. */
function notifyLine(port: number, login: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('error', reject);
    socket.on('data', (chunk: string) => {
      text += chunk;
      const line = text.split('\n').find((l, i, all) => i < all.length - 1 && l.includes('"mining.notify"'));
      if (line === undefined) return;
      socket.destroy();
      resolve(`${line}\n`);
    });
    socket.write(
      `{"id":1,"method":"mining.subscribe","params":["bench/1.0",null]}\n{"id":2,"method":"mining.authorize","params":["${login}","x"]}\n`,
    );
  });
}

/**
 * (b)'s floor: bench/pool-floor-writer.ts writing `line` to its own 1,000 receivers on a new block
 * of `node` (a csd of its own, doing the block work the pool's csd does in a pool round).
 */
async function startFloorWriter(line: string, node: Daemon, zmq: string, address: string) {
  const writer = fork(fileURLToPath(new URL('pool-floor-writer.ts', import.meta.url)), { execArgv });
  const listening = nextMessage<{ port: number }>(writer, (m) => typeof m === 'object' && m !== null && 'port' in m);
  writer.send({ line, rpc: { url: `http://127.0.0.1:${node.rpcPort}/`, cookieFile: node.cookiePath }, zmq });
  const receivers = startReceivers((await listening).port, 'floor.r');
  await receivers.ready;
  return {
    /** One round on a new block: each receiver's latency (ms) from the writer's news of it, and the loop's wall and CPU time (ms). */
    async block(): Promise<{ latencies: number[]; beforeMs: number; loopMs: number; cpuMs: number }> {
      await sleep(QUIET_MS);
      const { received } = await receivers.arm();
      const started = nextMessage<{ started: number; beforeMs: number; loopMs: number; cpuMs: number }>(
        writer,
        (m) => typeof m === 'object' && m !== null && 'started' in m,
      );
      await node.call('generatetoaddress', 1, address);
      const { started: t0, beforeMs, loopMs, cpuMs } = await started;
      return { latencies: (await received).map((t) => (t - t0) / 1e6), beforeMs, loopMs, cpuMs };
    },
    close(): void {
      receivers.close();
      writer.send('close');
    },
  };
}

/** (a)'s floor: `threads` bench/pool-floor-verify.ts threads, each checking its part of a round's shares. */
function startFloorVerifiers(threads: number) {
  const workers: Worker[] = Array.from({ length: threads }, () => startWorker(import.meta.url, 'pool-floor-verify'));
  const reply = <T>(w: Worker) => new Promise<T>((resolve) => w.once('message', resolve));
  return {
    /** Checks `shares` (each a header ‖ solution record of `record` bytes, concatenated); the wall time in ms. */
    async round(records: Uint8Array, record: number): Promise<number> {
      const count = records.length / record;
      const loaded = workers.map((w, i) => {
        const part = records.slice(Math.floor((count * i) / threads) * record, Math.floor((count * (i + 1)) / threads) * record);
        const r = reply(w);
        w.postMessage({ records: part, record });
        return r;
      });
      await Promise.all(loaded);
      const done = workers.map((w) => reply<{ valid: number }>(w));
      const t0 = performance.now();
      for (const w of workers) w.postMessage('go');
      const valid = (await Promise.all(done)).reduce((sum, d) => sum + d.valid, 0);
      const ms = performance.now() - t0;
      if (valid !== count) throw new Error(`the floor found ${count - valid} invalid shares`);
      return ms;
    },
    close: () => Promise.all(workers.map((w) => w.terminate())),
  };
}

const { node, zmq } = await startNode();
/** Every csd started here, cleaned up at the end: the pool's and the floor's. */
const nodes: Daemon[] = [node];
const address = await node.call<string>('getnewaddress');
await node.call('generatetoaddress', 1, address);
const pool = new PoolProcess(node, zmq, [
  '-maxperip=5000',
  '-maxconnections=5000',
  '-loglevel=info',
  '-txrefresh=3600',
  '-processinterval=30',
  `-verifythreads=${VERIFY_THREADS}`,
  `-stratumprocesses=${SOCKET_PROCESSES}`,
]);
if (profileDir) pool.nodeArgs = ['--cpu-prof', `--cpu-prof-dir=${profileDir}`];
await pool.start();
const pid = pool.proc!.pid!;

try {
  // Memory first, on a fresh process; then job fan-out to the same miners; then shares.
  const lines: string[] = [];
  // (c) Memory per idle miner: RSS before and after 1,000 subscribed, authorized miners.
  await sleep(500);
  const rssBefore = sum(poolPids(pid).map(rssKb));
  const miners = startReceivers(pool.ports!.plain, `${address}.m`);
  await miners.ready;
  await sleep(1000);
  const rssAfter = sum(poolPids(pid).map(rssKb));
  const rssLine = `(c) memory per idle miner: ${((rssAfter - rssBefore) / MINERS).toFixed(1)} KiB (RSS ${rssBefore} -> ${rssAfter} KiB for ${MINERS} miners)`;

  // (b) Rounds of a new block to the pool's miners, alternating with rounds of the bare loop.
  const line = await notifyLine(pool.ports!.plain, `${address}.probe`);
  const { node: floorNode, zmq: floorZmq } = await startNode();
  nodes.push(floorNode);
  const floorAddress = await floorNode.call<string>('getnewaddress');
  await floorNode.call('generatetoaddress', 1, floorAddress);
  const floor = await startFloorWriter(line, floorNode, floorZmq, floorAddress);
  // The pool's Unix time stamp, on this process's monotonic clock (process.hrtime, the receivers' clock).
  const unixMinusMonotonicMs = performance.timeOrigin + performance.now() - Number(process.hrtime.bigint()) / 1e6;
  /** One round: each miner's latency (ms) from the pool's first news of the block; its write loop's wall and CPU time. */
  const poolRound = async () => {
    await sleep(QUIET_MS);
    const { received } = await miners.arm();
    const asked = Number(process.hrtime.bigint()) / 1e6;
    await node.call('generatetoaddress', 1, address);
    const times = await received;
    const metrics = await pool.api<string>('/metrics');
    const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(metrics)![1]);
    const seen = gauge('cs_pool_new_block_seen_timestamp_seconds') * 1000 - unixMinusMonotonicMs;
    if (seen < asked) throw new Error(`the pool's news of the block (${seen}) is older than the round (${asked})`);
    return {
      latencies: times.map((t) => t / 1e6 - seen),
      beforeMs: (gauge('cs_pool_hashblock_to_jobs_seconds') - gauge('cs_pool_job_fanout_seconds')) * 1000,
      loopMs: gauge('cs_pool_job_fanout_seconds') * 1000,
      cpuMs: gauge('cs_pool_job_fanout_cpu_seconds') * 1000,
    };
  };
  for (let round = 0; round < FANOUT_WARMUP_ROUNDS; round++) {
    await poolRound();
    await floor.block();
  }
  const pools: Awaited<ReturnType<typeof poolRound>>[] = [];
  const floors: Awaited<ReturnType<typeof floor.block>>[] = [];
  for (let round = 0; round < FANOUT_ROUNDS; round++) {
    if (round % 2 === 0) {
      pools.push(await poolRound());
      floors.push(await floor.block());
    } else {
      floors.push(await floor.block());
      pools.push(await poolRound());
    }
  }
  miners.close();
  floor.close();
  // A receipt before its round's news would be a job from something else than the block.
  for (const [side, rounds] of [
    ['pool', pools],
    ['floor', floors],
  ] as const) {
    const early = rounds.findIndex((r) => r.latencies.some((l) => l < 0));
    if (early >= 0) throw new Error(`${side} round ${early}: a receipt ${Math.min(...rounds[early].latencies)} ms before the news`);
  }
  // Each pool round against the floor round beside it (the same load), the median over the pairs.
  const p99 = (r: { latencies: number[] }) => percentile(r.latencies, 99);
  const p50 = (r: { latencies: number[] }) => percentile(r.latencies, 50);
  const ms = (values: number[]) => median(values).toFixed(2);
  const [poolP99, floorP99] = [pools.map(p99), floors.map(p99)];
  const perPair = poolP99.map((p, i) => p / floorP99[i]);
  const fanout = median(perPair);
  lines.push(
    `(b) job fan-out to ${MINERS} miners, p99 / bare write p99: ${fanout.toFixed(3)} (goal <= ${FANOUT_GOAL}) ${verdict(fanout <= FANOUT_GOAL)}`,
    `    median of ${FANOUT_ROUNDS} pairs of rounds on a new block (pool's p99 / the floor's beside it); ratio of the median p99s ${(median(poolP99) / median(floorP99)).toFixed(3)}: pool ${ms(poolP99)} ms, bare ${ms(floorP99)} ms, each from its first news of the block (${line.length} bytes to each socket); p50 ${ms(pools.map(p50))} / ${ms(floors.map(p50))} ms; from the news to the first write ${ms(pools.map((r) => r.beforeMs))} / ${ms(floors.map((r) => r.beforeMs))} ms; the write loops ${ms(pools.map((r) => r.loopMs))} / ${ms(floors.map((r) => r.loopMs))} ms (CPU ${ms(pools.map((r) => r.cpuMs))} / ${ms(floors.map((r) => r.cpuMs))} ms); pool/bare p99 per round ${perPair.map((r) => r.toFixed(2)).join(' ')}`,
  );

  // (a) The share miners log in, solve every round ahead and send the warm-up shares.
  const shareMiners = fork(fileURLToPath(new URL('pool-share-miners.ts', import.meta.url)), { execArgv, detached: true, serialization: 'advanced' });
  const solved = nextMessage<{ record: number; records: Uint8Array[] }>(shareMiners, (m) => typeof m === 'object' && m !== null && 'records' in m);
  shareMiners.send({
    port: pool.ports!.plain,
    address,
    connections: CONNECTIONS,
    perConnection: SHARES_PER_ROUND,
    rounds: SHARE_ROUNDS,
    warmup: WARMUP_PER_CONNECTION,
  });
  const { record, records } = await solved;
  const perRound = CONNECTIONS * SHARES_PER_ROUND;
  const send = async (round: number) => {
    const answered = nextMessage<{ ms: number }>(shareMiners, (m) => typeof m === 'object' && m !== null && 'ms' in m);
    shareMiners.send({ round });
    return (await answered).ms;
  };
  const verifiers = startFloorVerifiers(VERIFY_THREADS);
  // Its threads warm too: one pass over the first round's shares.
  await verifiers.round(records[0], record);
  const poolRates: number[] = [];
  const floorRates: number[] = [];
  let poolCpu = 0;
  let poolMainCpu = 0;
  let floorCpu = 0;
  const poolShares = async (r: number) => {
    const [cpu0, main0] = [poolCpuMs(pid), cpuMs(pid, pid)];
    poolRates.push((perRound / (await send(r))) * 1000);
    poolCpu += poolCpuMs(pid) - cpu0;
    poolMainCpu += cpuMs(pid, pid) - main0;
  };
  const floorShares = async (r: number) => {
    const cpu0 = process.cpuUsage();
    floorRates.push((perRound / (await verifiers.round(records[r], record))) * 1000);
    const cpu = process.cpuUsage(cpu0);
    floorCpu += (cpu.user + cpu.system) / 1000;
  };
  for (let r = 0; r < SHARE_ROUNDS; r++) {
    if (r % 2 === 0) {
      await poolShares(r);
      await floorShares(r);
    } else {
      await floorShares(r);
      await poolShares(r);
    }
  }
  await verifiers.close();
  shareMiners.send('close');
  const shares = median(poolRates.map((p, i) => p / floorRates[i]));
  const total = perRound * SHARE_ROUNDS;
  lines.unshift(
    `(a) share validation, pool / bare Equihash on ${VERIFY_THREADS} thread(s): ${shares.toFixed(3)} (goal >= ${SHARE_GOAL}) ${verdict(shares >= SHARE_GOAL)}`,
    `    median of ${SHARE_ROUNDS} pairs of rounds of ${perRound} shares on ${CONNECTIONS} connections; ratio of the median rates ${(median(poolRates) / median(floorRates)).toFixed(3)}: pool ${median(poolRates).toFixed(0)}/s, bare ${median(floorRates).toFixed(0)}/s; pool/bare per round ${poolRates.map((p, i) => (p / floorRates[i]).toFixed(2)).join(' ')}; CPU per share: pool process ${((poolCpu * 1000) / total).toFixed(0)} us (main thread ${((poolMainCpu * 1000) / total).toFixed(0)} us), bare ${((floorCpu * 1000) / total).toFixed(0)} us`,
  );
  console.log([...lines, rssLine].join('\n'));
} finally {
  // A profile is written when the process exits by itself.
  if (profileDir) await pool.stop();
  await pool.cleanup();
  for (const n of nodes) await n.cleanup();
}
