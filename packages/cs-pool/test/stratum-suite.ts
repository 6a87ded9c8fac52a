// The stratum side against real csd: ZIP 301 flow over TCP and TLS, every rejection code, valid
// shares counted, a block found through a share accepted by csd, NiceHash's extranonce extension,
// session resume, and garbage cut off; run by stratum.test.ts on a pool holding its sockets
// itself, and by stratum-processes.test.ts on one whose socket processes hold them.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, eventually, openSockets, socketProcesses, startNode } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

/** Every test below, on a pool started with `poolArgs` besides the harness's own. */
export function stratumSuite(poolArgs: readonly string[]): void {
  let node: Daemon;
  let pool: PoolProcess;
  let address: string;
  let zmq: string;
  const clients: StratumClient[] = [];

  async function client(port: 'plain' | 'vardiff' | 'rental' | 'tls' | 'solo' = 'plain'): Promise<StratumClient> {
    const c = await StratumClient.connect(pool.ports![port], port === 'tls');
    clients.push(c);
    return c;
  }

  before(async () => {
    const started = await startNode();
    node = started.node;
    address = await node.call<string>('getnewaddress');
    await node.call('generatetoaddress', 1, address);
    zmq = started.zmq;
    pool = new PoolProcess(node, zmq, [...poolArgs]);
    await pool.start();
  });

  after(async () => {
    for (const c of clients) c.close();
    await pool?.cleanup();
    await node?.cleanup();
  });

  const processes = Number(/^-stratumprocesses=(\d+)$/.exec(poolArgs.find((a) => a.startsWith('-stratumprocesses=')) ?? '')?.[1] ?? 0);
  test(
    processes === 0
      ? "the miners' sockets are held by the pool's process"
      : `the miners' sockets are held by the ${processes} socket processes, one each`,
    async () => {
      const pid = pool.proc!.pid!;
      const holders = socketProcesses(pid);
      assert.equal(holders.length, processes);
      const before = [pid, ...holders].map(openSockets);
      for (let i = 0; i < Math.max(processes, 2); i++) await (await client()).subscribe();
      const gained = () => [pid, ...holders].map((p, i) => openSockets(p) - before[i]);
      const want = processes === 0 ? [2] : [0, ...holders.map(() => 1)];
      await eventually(async () => (gained().join() === want.join() ? true : undefined), `sockets gained ${want.join()}`, 10_000).catch(() => {
        assert.deepEqual(gained(), want);
      });
    },
  );

  test('subscribe, authorize, set_target, notify with the --pers auto fields', async () => {
    const c = await client();
    const sub = await c.subscribe();
    assert.equal(sub.error, null);
    const [session, nonce1] = sub.result as [string, string];
    assert.match(nonce1, /^[0-9a-f]{8}$/);
    assert.equal(session, nonce1);
    const auth = await c.authorize(`${address}.rig1`);
    assert.equal(auth.result, true);
    const methods = c.notifications.map((n) => n.method);
    assert.deepEqual(methods.slice(0, 2), ['mining.set_target', 'mining.notify']);
    const notify = c.notifications[1].params;
    assert.equal(notify.length, 10);
    assert.equal(notify[1], '04000000');
    assert.equal(notify[6], '0f0f0f20');
    assert.deepEqual(notify.slice(7), [true, '48_5', 'ZcashPoW']);
    const tip = await node.call<string>('getbestblockhash');
    assert.equal(
      Buffer.from(notify[2] as string, 'hex')
        .reverse()
        .toString('hex'),
      tip,
    );
  });

  test('a valid share is accepted and counted', async () => {
    const c = await client();
    await c.subscribe();
    await c.authorize(`${address}.counted`);
    const s = c.solve(REGTEST.equihash, false, `${address}.counted`);
    assert.deepEqual(await c.submit(s.params), { result: true, error: null });
    const workers = await pool.api<{ worker: string; valid: number }[]>(`/api/user/${address}/workers`);
    assert.equal(workers.find((w) => w.worker === 'counted')?.valid, 1);
    const all = await pool.api<{ address: string; worker: string; valid: number }[]>('/api/workers');
    assert.equal(all.find((w) => w.address === address && w.worker === 'counted')?.valid, 1, '/api/workers lists the worker of every address');
  });

  test('400 submits pipelined in one write are all answered, and another miner is answered meanwhile', async () => {
    const flood = await client();
    await flood.subscribe();
    await flood.authorize(`${address}.flood`);
    const other = await client();
    await other.subscribe();
    await other.authorize(`${address}.beside`);
    const params = Array.from({ length: 400 }, () => flood.solve(REGTEST.equihash, false, `${address}.flood`).params);
    // Far more than one turn of the event loop's work: the pool answers them in slices.
    const replies = flood.sendEncoded(flood.encodeRequests('mining.submit', params));
    assert.deepEqual(await other.submit(other.solve(REGTEST.equihash, false, `${address}.beside`).params), { result: true, error: null });
    const answers = await Promise.all(replies);
    assert.equal(answers.filter((r) => r.result === true).length, 400, 'every pipelined share is accepted');
    const workers = await pool.api<{ worker: string; valid: number }[]>(`/api/user/${address}/workers`);
    assert.equal(workers.find((w) => w.worker === 'flood')?.valid, 400);
  });

  test('rejections carry ZIP 301 codes: 25 not subscribed, 24 unauthorized, 21 stale, 22 duplicate, 23 low difficulty, 20 malformed', async () => {
    const c = await client();
    assert.equal((await c.request('mining.authorize', [`${address}.x`, 'x'])).error?.[0], 25);
    assert.equal((await c.request('mining.submit', ['a', 'b', 'c', 'd', 'e'])).error?.[0], 25);
    await c.subscribe();
    assert.equal((await c.request('mining.authorize', ['notanaddress.x', 'x'])).error?.[0], 24);
    await c.authorize(`${address}.codes`);
    const worker = `${address}.codes`;
    const s = c.solve(REGTEST.equihash, false, worker);
    assert.equal((await c.submit([`${address}.other`, ...s.params.slice(1)])).error?.[0], 24);
    assert.equal((await c.submit([worker, 'ffffff', ...s.params.slice(2)])).error?.[0], 21);
    assert.equal((await c.submit(s.params)).result, true);
    assert.equal((await c.submit(s.params)).error?.[0], 22);
    assert.equal((await c.submit([...s.params.slice(0, 3), s.params[3].slice(2), s.params[4]])).error?.[0], 20);
    assert.equal((await c.submit([...s.params.slice(0, 4), `24${'00'.repeat(36)}`])).error?.[0], 20);
    assert.equal((await c.request('mining.submit', [worker])).error?.[0], 20);
    assert.equal((await c.request('mining.nosuch', [])).error?.[0], 20);

    // A static difficulty from the password: d=1000 is 1000 times harder than the regtest block.
    const hard = await client();
    await hard.subscribe();
    await hard.authorize(`${address}.hard`, 'd=1000');
    const target = hard.target;
    assert.equal(target, REGTEST.powLimit / 1000n);
    const weak = hard.solve(REGTEST.equihash, false, `${address}.hard`, false);
    assert.equal((await hard.submit(weak.params)).error?.[0], 23);

    // After a new block, the old job is stale.
    const old = c.solve(REGTEST.equihash, false, worker);
    const jobsBefore = c.notifications.length;
    const asked = Date.now();
    await node.call('generatetoaddress', 1, address);
    await c.waitFor(() => c.notifications.slice(jobsBefore).some((n) => n.method === 'mining.notify' && n.params[7] === true), 'a clean job');
    // Date.now() rounds down to the millisecond; the pool's time has microseconds.
    const answered = Date.now() + 1;
    assert.equal((await c.submit(old.params)).error?.[0], 21);
    const seen = Number(/^cs_pool_new_block_seen_timestamp_seconds (\S+)$/m.exec(await pool.api<string>('/metrics'))![1]) * 1000;
    assert.ok(seen >= asked && seen <= answered, `the pool heard of the block at ${seen}, between ${asked} and ${answered}`);
  });

  test('a share that meets the network target is a block csd accepts, and the API lists it', async () => {
    const c = await client();
    await c.subscribe();
    await c.authorize(`${address}.finder`);
    const height = await node.call<number>('getblockcount');
    const s = c.solve(REGTEST.equihash, true, `${address}.finder`);
    assert.equal((await c.submit(s.params)).result, true);
    const hash = s.hash.toString(16).padStart(64, '0');
    await eventually(async () => ((await node.call<number>('getblockcount')) === height + 1 ? true : undefined), 'the block on the chain');
    assert.equal(await node.call<string>('getblockhash', height + 1), hash);
    const blocks = await eventually(async () => {
      const b = await pool.api<{ hash: string; status: string; finder: string }[]>('/api/blocks');
      return b.some((x) => x.hash === hash && x.status === 'pending') ? b : undefined;
    }, 'the block credited');
    assert.equal(blocks.find((b) => b.hash === hash)?.finder, address);
    // A new job on the new tip reached the miner.
    await c.waitFor(
      () => c.job !== null && Buffer.from(c.job.headerInput.subarray(4, 36)).reverse().toString('hex') === hash,
      'the job on the new block',
    );
  });

  test('TLS port: the same flow over TLS 1.2+ with the generated certificate', async () => {
    const c = await client('tls');
    assert.match(String((c.socket as import('node:tls').TLSSocket).getProtocol()), /TLSv1\.[23]/);
    await c.subscribe();
    await c.authorize(`${address}.tls`);
    const s = c.solve(REGTEST.equihash, false, `${address}.tls`);
    assert.equal((await c.submit(s.params)).result, true);
  });

  test("TLS sessions resume, whichever of the pool's processes holds the new connection", async () => {
    const open = (session?: Buffer) =>
      new Promise<{ socket: import('node:tls').TLSSocket; session: Promise<Buffer> }>((resolve, reject) => {
        const socket = tlsConnect({ host: '127.0.0.1', port: pool.ports!.tls, rejectUnauthorized: false, session }, () =>
          resolve({ socket, session: ticket }),
        );
        const ticket = new Promise<Buffer>((r) => socket.once('session', r));
        socket.once('error', reject);
      });
    const first = await open();
    const session = await first.session;
    // All kept open: each new connection goes to the socket process holding the fewest, so with
    // socket processes some of these land on another process than the first one's.
    const resumed = [];
    for (let i = 0; i < 6; i++) resumed.push(await open(session));
    assert.deepEqual(
      resumed.map((r) => r.socket.isSessionReused()),
      resumed.map(() => true),
    );
    for (const c of [first, ...resumed]) c.socket.destroy();
  });

  test('extranonce subscription: true, then set_extranonce with a new NONCE_1 that shares must use', async () => {
    const c = await client('rental');
    await c.subscribe();
    const first = Buffer.from(c.nonce1).toString('hex');
    await c.authorize(`${address}.nh`);
    const before = c.notifications.length;
    assert.equal((await c.request('mining.extranonce.subscribe', [])).result, true);
    await c.waitFor(() => c.notifications.slice(before).some((n) => n.method === 'mining.notify'), 'the job after set_extranonce');
    const set = c.notifications.slice(before).find((n) => n.method === 'mining.set_extranonce');
    assert.ok(set);
    assert.notEqual(set.params[0], first);
    assert.equal(set.params[1], 28);
    const s = c.solve(REGTEST.equihash, false, `${address}.nh`);
    assert.equal((await c.submit(s.params)).result, true);
  });

  test('suggest_target: a harder target is granted with set_target and the job again; one easier than the port is error 20', async () => {
    // The rental port starts at difficulty 0.5 on regtest: targets up to 2 x powLimit.
    const c = await client('rental');
    await c.subscribe();
    await c.authorize(`${address}.suggest`);
    const before = c.notifications.length;
    const harder = (REGTEST.powLimit / 2n).toString(16).padStart(64, '0');
    assert.equal((await c.request('mining.suggest_target', [harder])).result, true);
    await c.waitFor(() => c.notifications.slice(before).some((n) => n.method === 'mining.notify'), 'the job after set_target');
    assert.equal(c.target, REGTEST.powLimit / 2n);
    assert.equal((await c.request('mining.suggest_target', ['f'.repeat(64)])).error?.[0], 20);
    assert.equal((await c.request('mining.suggest_target', ['xyz'])).error?.[0], 20);
  });

  test('session resume: a reconnecting miner offering its session id gets its NONCE_1 back', async () => {
    const a = await client();
    await a.subscribe();
    const { sessionId, nonce1 } = a;
    a.close();
    await eventually(
      async () => ((await pool.api<{ connectedMiners: number }>('/api/pool/stats')).connectedMiners < clients.length ? true : undefined),
      'the disconnect',
    );
    const b = await client();
    await b.subscribe(sessionId);
    assert.equal(b.sessionId, sessionId);
    assert.deepEqual(b.nonce1, nonce1);
    const c = await client();
    await c.subscribe('0badc0de');
    assert.notEqual(c.sessionId, '0badc0de');
  });

  test('monitoring: pool stats and metrics reflect shares and blocks', async () => {
    const stats = await pool.api<{
      shares: { valid: number; stale: number; duplicate: number; low: number };
      blocks: { pending: number };
      network: { height: number };
    }>('/api/pool/stats');
    assert.ok(stats.shares.valid >= 4);
    assert.ok(stats.shares.stale >= 2);
    assert.equal(stats.shares.duplicate, 1);
    assert.ok(stats.blocks.pending >= 1);
    assert.equal(stats.network.height, await node.call<number>('getblockcount'));
    const metrics = await pool.api<string>('/metrics');
    assert.match(metrics, /cs_pool_shares_total\{outcome="valid"\} \d+/);
  });

  test('a line over 10 KB or malformed JSON: that connection cut off, the IP not banned for it; established miners keep working', async () => {
    const miner = await client('vardiff');
    await miner.subscribe();
    await miner.authorize(`${address}.steady`);
    for (const garbage of ['x'.repeat(11 * 1024), '{"id":1,"method":"mining.subscribe","params":"x"}\n']) {
      const flood = await client('vardiff');
      flood.writeRaw(garbage);
      await flood.waitFor(() => flood.closed, 'the cut-off', 5000);
      assert.equal(flood.unsolicited[0]?.error?.[0], 20, 'the error line saying why, before the cut');
    }
    // One offence is not abuse: a new connection from loopback is served (bans.test.ts has the thresholds).
    const next = await client('vardiff');
    assert.equal((await next.subscribe()).error, null);
    const s = miner.solve(REGTEST.equihash, false, `${address}.steady`);
    assert.equal((await miner.submit(s.params)).result, true);
  });

  test('a miner that sends its lines and half-closes its side still gets their answers', async () => {
    const socket = connect(pool.ports!.plain, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.end('{"id":7,"method":"mining.subscribe","params":["half/1.0",null]}\n');
    await once(socket, 'close');
    const answer = text
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as { id: unknown; result: unknown })
      .find((m) => m.id === 7);
    assert.ok(Array.isArray(answer?.result), `the subscribe answer, in ${JSON.stringify(text)}`);
  });

  test('stale shares never count toward the invalid-share cut-off; duplicates do', async () => {
    const strict = new PoolProcess(node, zmq, [...poolArgs, '-bancheckthreshold=4', '-baninvalidpercent=50']);
    await strict.start();
    try {
      const c = await StratumClient.connect(strict.ports!.plain, false);
      clients.push(c);
      await c.subscribe();
      const worker = `${address}.stale`;
      await c.authorize(worker);
      const s = c.solve(REGTEST.equihash, false, worker);
      for (let i = 0; i < 6; i++) assert.equal((await c.submit([worker, 'ffffff', ...s.params.slice(2)])).error?.[0], 21, `stale share ${i}`);
      assert.equal((await c.submit(s.params)).result, true, 'a valid share after six stale ones is accepted: not cut off');
      for (let i = 0; i < 2; i++) assert.equal((await c.submit(s.params)).error?.[0], 22, `duplicate ${i}`);
      // The third duplicate makes 3 of the last 4 shares invalid: cut off before an answer (a strike toward -banmalformed).
      await c.submit(s.params).catch(() => undefined);
      await c.waitFor(() => c.closed, 'the connection closed for its invalid shares');
    } finally {
      await strict.cleanup();
    }
  });

  test('shutdown: every miner gets client.reconnect before the pool closes', async () => {
    const alive = clients.filter((c) => !c.closed);
    assert.ok(alive.length > 0);
    assert.equal(await pool.stop('SIGTERM'), 0);
    for (const c of alive) {
      await c.waitFor(() => c.closed, 'the close');
      assert.ok(c.notifications.some((n) => n.method === 'client.reconnect'));
    }
  });
}
