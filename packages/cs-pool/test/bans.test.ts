// Bans that hurt no bystander, against real csd and cs-pool over loopback sockets (each test
// connects from its own address in 127.0.0.0/8, so its IP's record is its own): a malformed line
// closes only its connection, with an error saying why; an IP is banned only at -banmalformed
// cut connections or -banlogins refused logins, and then only new connections are refused, not
// the miners it already has; -whitelist exempts an address from bans and from -maxperip.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, externalAddress, startNode } from './pool-harness.ts';
import { StratumClient } from './stratum-client.ts';

let node: Daemon;
let pool: PoolProcess;
const clients: StratumClient[] = [];
const PROXY = '127.0.0.9';

before(async () => {
  const started = await startNode();
  node = started.node;
  pool = new PoolProcess(node, started.zmq, ['-banmalformed=3', '-banlogins=3', '-banwindow=600', `-whitelist=${PROXY}`, '-maxperip=3']);
  await pool.start();
});

after(async () => {
  for (const c of clients) c.close();
  await pool?.cleanup();
  await node?.cleanup();
});

/** Connects from `from`, writes `text`, and returns all the pool sent until it closed the connection. */
function exchange(from: string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let got = '';
    const s = connect({ host: '127.0.0.1', port: pool.ports!.plain, localAddress: from }, () => s.write(text));
    s.setEncoding('utf8');
    s.on('data', (d: string) => (got += d));
    s.on('error', reject);
    s.on('close', () => resolve(got));
  });
}

async function miner(from: string, worker: string): Promise<{ c: StratumClient; login: string }> {
  const c = await StratumClient.connect(pool.ports!.plain, false, from);
  clients.push(c);
  assert.equal((await c.subscribe()).error, null);
  const login = `${externalAddress()}.${worker}`;
  assert.equal((await c.authorize(login)).result, true);
  return { c, login };
}

/** Whether a new connection from `from` gets an answer to subscribe (a banned IP's is closed at once). */
async function admitted(from: string): Promise<boolean> {
  const c = await StratumClient.connect(pool.ports!.plain, false, from);
  const answered = await c.subscribe().then(
    (r) => r.error === null,
    () => false,
  );
  c.close();
  return answered;
}

const errorLine = (text: string) => JSON.parse(text.trim().split('\n').at(-1)!) as { id: unknown; result: unknown; error: [number, string, null] };

test('a malformed line closes only its connection; the IP is banned at the third, and its miners already connected keep mining', async () => {
  const ip = '127.0.0.3';
  const rig = await miner(ip, 'neighbour');
  const lines = [
    '{"id":5,"method":"mining.submit","params":{"worker":"x"}}\n',
    'GET / HTTP/1.1\n',
    // Over the 10 KB limit without a newline.
    'x'.repeat(11 * 1024),
  ];
  for (const [i, line] of lines.entries()) {
    const answer = errorLine(await exchange(ip, line));
    assert.deepEqual([answer.id, answer.result, answer.error[0]], [null, null, 20], `line ${i}: error 20, then the close`);
    assert.match(answer.error[1], i === 2 ? /line longer than/ : /^malformed line: /);
    if (i < 2) assert.ok(await admitted(ip), `after ${i + 1} malformed lines the IP is not banned`);
  }
  assert.ok(!(await admitted(ip)), 'after the third within the window, new connections from it are refused');
  assert.ok(await admitted('127.0.0.4'), 'another address is not affected');
  const s = rig.c.solve(REGTEST.equihash, false, rig.login);
  assert.deepEqual(await rig.c.submit(s.params), { result: true, error: null }, 'the miner that was already connected keeps mining');
  assert.match(pool.output, /"reason":"malformed line: params must be an array"/);
});

test('refused logins: error 24 each, and the IP banned only at the third', async () => {
  const ip = '127.0.0.5';
  const c = await StratumClient.connect(pool.ports!.plain, false, ip);
  clients.push(c);
  await c.subscribe();
  for (let i = 0; i < 2; i++) {
    assert.equal((await c.authorize('csrt1notanaddress.rig')).error?.[0], 24);
    assert.ok(!c.closed, 'the connection stays: the next try may be right');
  }
  assert.equal((await c.authorize('csrt1notanaddress.rig')).error?.[0], 24);
  await c.waitFor(() => false, 'the close', 5000).catch(() => undefined);
  assert.ok(c.closed, 'the third refusal bans the IP and closes the connection');
  assert.ok(!(await admitted(ip)));
});

test('a whitelisted proxy: its connections are cut for what they send, its address never banned nor held to -maxperip', async () => {
  const behind = [await miner(PROXY, 'a'), await miner(PROXY, 'b'), await miner(PROXY, 'c')];
  for (let i = 0; i < 5; i++) {
    const answer = errorLine(await exchange(PROXY, 'not json\n'));
    assert.equal(answer.error[0], 20);
  }
  assert.ok(await admitted(PROXY), 'five malformed lines and still admitted');
  for (const { c, login } of behind) assert.equal((await c.submit(c.solve(REGTEST.equihash, false, login).params)).result, true);
  await miner(PROXY, 'd');
  // The limit holds for everyone else: a fourth connection from one address is closed at once.
  const ip = '127.0.0.6';
  for (const w of ['one', 'two', 'three']) await miner(ip, w);
  assert.ok(!(await admitted(ip)), '-maxperip=3 for an address not whitelisted');
});
