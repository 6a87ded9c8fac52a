// cs-miner against the real thing: a regtest csd and cs-pool processes on loopback. The miner must
// find shares and blocks csd accepts, come back after its pool restarts, and move to the next
// pool of its list when the first one is gone.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, eventually, externalAddress, startNode } from '../../cs-pool/test/pool-harness.ts';
import { MinerProcess } from './miner-process.ts';

let node: Daemon;
let zmq: string;
const pools: PoolProcess[] = [];
const miners: MinerProcess[] = [];

before(async () => {
  ({ node, zmq } = await startNode());
  await node.call('generatetoaddress', 1, await node.call<string>('getnewaddress'));
});

after(async () => {
  for (const m of miners) await m.stop();
  for (const p of pools) await p.cleanup();
  await node?.cleanup();
});

async function startPool(): Promise<PoolProcess> {
  // Default ban settings: the burst of stale shares a fast regtest miner sends after each block
  // (blocks every ~17 solutions) must not get it banned.
  const p = new PoolProcess(node, zmq);
  pools.push(p);
  await p.start();
  return p;
}

function startMiner(urls: readonly string[], login: string, extra: readonly string[] = []): MinerProcess {
  // Fast retries: a test should not wait out the default back-off.
  const m = new MinerProcess([
    ...urls.map((u) => `-pool=${u}`),
    `-user=${login}`,
    '-threads=1',
    '-retrypause=200',
    '-retrymax=1000',
    '-retries=2',
    ...extra,
  ]);
  miners.push(m);
  return m;
}

const plain = (p: PoolProcess) => `stratum+tcp://127.0.0.1:${p.ports!.plain}`;

interface Worker {
  readonly worker: string;
  readonly valid: number;
}

async function validShares(pool: PoolProcess, address: string, worker: string): Promise<number> {
  const workers = await pool.api<Worker[]>(`/api/user/${address}/workers`);
  return workers.find((w) => w.worker === worker)?.valid ?? 0;
}

test('finds shares and blocks on regtest: the pool counts the shares, csd takes the blocks', async () => {
  const pool = await startPool();
  const address = externalAddress();
  const height = await node.call<number>('getblockcount');
  // With a model configured: the pool knows no opoi.subscribe, and the miner mines on without OPoI.
  const m = startMiner([plain(pool)], `${address}.rig1`, ['-model=m=ollama:http://127.0.0.1:9']);
  await m.waitFor((l) => l.msg === 'connected and authorized', 'the login');
  await m.waitFor((l) => l.level === 'warn' && /opoi\.subscribe refused/.test(l.msg), 'the refused announcement');
  const status = await m.waitForStatus('blocks', 1);
  assert.ok(Number(status.accepted) >= 1, `accepted ${status.accepted}`);
  assert.equal(status.rejected, 0, 'no share rejected');
  await m.waitFor((l) => l.msg === 'status' && Number(l.hashrate) > 0, 'a status line with a hashrate');
  await eventually(async () => ((await validShares(pool, address, 'rig1')) >= 1 ? true : undefined), 'shares on the pool');
  const blocks = await eventually(async () => {
    const b = await pool.api<{ hash: string; finder: string; status: string }[]>('/api/blocks');
    // The pool also lists a block the node keeps on a side branch (two solutions of one job): not credited.
    const mine = b.filter((x) => x.finder === address && x.status !== 'side' && x.status !== 'orphaned');
    return mine.length > 0 ? mine : undefined;
  }, 'a block credited to the miner');
  assert.ok((await node.call<number>('getblockcount')) > height, 'the chain grew');
  // The block the pool credits is on csd's chain.
  const header = await node.call<{ confirmations: number }>('getblockheader', blocks[0].hash);
  assert.ok(header.confirmations >= 1, `confirmations ${header.confirmations}`);
  await m.stop();
});

test('stratum+ssl: mines over TLS on the TLS port of the pool (self-signed certificate, not verified by default)', async () => {
  const pool = await startPool();
  const address = externalAddress();
  const m = startMiner([`stratum+ssl://127.0.0.1:${pool.ports!.tls}`], `${address}.tls`);
  await eventually(async () => ((await validShares(pool, address, 'tls')) >= 2 ? true : undefined), 'shares over TLS');
  await m.stop();
  // Verification on: the pool's self-signed certificate is refused, and nothing gets through.
  const strict = startMiner([`stratum+ssl://127.0.0.1:${pool.ports!.tls}`], `${address}.strict`, ['-tlsverify']);
  const refused = await strict.waitFor((l) => l.msg === 'cannot connect to the pool', 'the refused certificate');
  assert.match(String(refused.reason), /certificate/i);
  assert.equal(await validShares(pool, address, 'strict'), 0);
  await strict.stop();
});

test('reconnects after the pool restarts and mines on', async () => {
  const pool = await startPool();
  const address = externalAddress();
  const m = startMiner([plain(pool)], `${address}.rig2`);
  await m.waitForStatus('accepted', 1);
  const mark = m.lines.length;
  assert.equal(await pool.stop('SIGTERM'), 0);
  await m.waitFor((l) => l.msg === 'disconnected from the pool', 'the disconnect', mark);
  const back = m.lines.length;
  await pool.start();
  await m.waitFor((l) => l.msg === 'connected and authorized', 'the new login', back);
  // Shares reach the restarted pool: its counters start again from its stored state.
  const before = await validShares(pool, address, 'rig2');
  await eventually(async () => ((await validShares(pool, address, 'rig2')) > before ? true : undefined), 'a share after the restart');
  await m.stop();
});

test('fails over to the second pool of the list when the first is gone', async () => {
  const first = await startPool();
  const second = await startPool();
  const address = externalAddress();
  const m = startMiner([plain(first), plain(second)], `${address}.rig3`);
  await eventually(async () => ((await validShares(first, address, 'rig3')) >= 1 ? true : undefined), 'shares on the first pool');
  assert.equal(await validShares(second, address, 'rig3'), 0);
  await first.stop('SIGKILL');
  await m.waitFor((l) => l.msg === 'failing over to the next pool', 'the failover');
  await eventually(async () => ((await validShares(second, address, 'rig3')) >= 1 ? true : undefined), 'shares on the second pool');
  const status = await m.waitFor((l) => l.msg === 'status' && l.pool === plain(second), 'a status line naming the second pool');
  assert.equal(status.rejected, 0, 'no share rejected');
  await m.stop();
});
