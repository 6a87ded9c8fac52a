// bench/pool.ts's floor for (b), in a process of its own as the pool is: a bare node:net server
// that writes one given line to each of its connections, nothing else in the process. It writes
// the line once at accept (the receivers, bench/pool-miners.ts, wait for it), then on each new
// block of a csd of its own, whose block work runs beside the loop as the pool's csd's runs beside
// the pool's. It hears of a block as the pool does: from a getblocktemplate long poll it keeps
// open and from csd's ZeroMQ hashblock, and stamps the round with the first of the two (the pool's
// cs_pool_new_block_seen_timestamp_seconds); it writes once the long poll has answered.
//   parent -> { line, rpc: { url, cookieFile }, zmq } | 'close'
//   child  -> { port } | { started: ns (process.hrtime, CLOCK_MONOTONIC), beforeMs (from the news to the loop), loopMs, cpuMs }
import { createServer, type Socket } from 'node:net';
import { RpcClient, type RpcResult } from '@cs/client';
import { Subscriber } from 'zeromq';

const sockets: Socket[] = [];
let line = Buffer.alloc(0);
let stopped = false;
/** The tip the current template builds on, and when the next block was first heard of (0: not yet). */
let tip = '';
let news = 0;

const server = createServer((s) => {
  sockets.push(s);
  s.setNoDelay(true);
  s.resume();
  s.on('error', () => {});
  s.write(line);
});

function writeAll(): void {
  const cpu = process.cpuUsage();
  const now = Number(process.hrtime.bigint());
  const started = news;
  news = 0;
  for (const s of sockets) s.write(line);
  const loopMs = (Number(process.hrtime.bigint()) - now) / 1e6;
  const used = process.cpuUsage(cpu);
  process.send!({ started, beforeMs: (now - started) / 1e6, loopMs, cpuMs: (used.user + used.system) / 1000 });
}

/** A template (getblocktemplate answers a string or null only to proposals). */
function templateOf(answer: RpcResult<'getblocktemplate'>) {
  if (typeof answer !== 'object' || answer === null) throw new Error('getblocktemplate answered without a template');
  return answer;
}

/** One long poll always open, renewed on each answer; a template on a new tip is a round. */
async function followBlocks(rpc: RpcClient): Promise<void> {
  let t = templateOf(await rpc.call('getblocktemplate', [{ rules: ['segwit'] }]));
  tip = t.previousblockhash;
  while (!stopped) {
    t = templateOf(await rpc.call('getblocktemplate', [{ rules: ['segwit'], longpollid: t.longpollid }], 330_000));
    if (stopped) return;
    if (t.previousblockhash === tip) continue;
    if (news === 0) news = Number(process.hrtime.bigint());
    tip = t.previousblockhash;
    writeAll();
  }
}

/** csd's hashblock: the first news of a block when it comes before the long poll's answer. */
async function followHashBlock(address: string): Promise<void> {
  const sub = new Subscriber();
  sub.connect(address);
  sub.subscribe('hashblock');
  for await (const [, body] of sub) {
    if (news === 0 && Buffer.from(body).toString('hex') !== tip) news = Number(process.hrtime.bigint());
  }
}

process.on('message', (m: { line: string; rpc: { url: string; cookieFile: string }; zmq: string } | 'close') => {
  if (m === 'close') {
    stopped = true;
    for (const s of sockets) s.destroy();
    server.close();
    process.disconnect();
    // The long poll in flight would hold the process for minutes.
    process.exit(0);
  } else {
    line = Buffer.from(m.line);
    const rpc = new RpcClient({ url: m.rpc.url, auth: { cookieFile: m.rpc.cookieFile } });
    void followBlocks(rpc);
    void followHashBlock(m.zmq);
    server.listen(0, '127.0.0.1', () => process.send!({ port: (server.address() as { port: number }).port }));
  }
});
