// The relay on real loopback sockets: a recording upstream (so the bytes the pool gets can be
// compared with the bytes the miner sent) and raw miner sockets. Pool payouts through the real
// cs-pool are in test/bridge-e2e.test.ts.
import assert from 'node:assert/strict';
import { type Server, type Socket, connect, createServer } from 'node:net';
import { after, test } from 'node:test';
import { OPOI_MAX_LINE_BYTES, StratumError, StratumErrorCode } from '@cs/stratum';
import { pino } from 'pino';
import type { MinerConnection, OpoiHandler } from './relay.ts';
import { Relay } from './relay.ts';

const log = pino({ level: 'silent' });

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The pool's side: every byte each relayed connection sent, and its socket to answer on. */
class Upstream {
  readonly conns: { socket: Socket; received: string }[] = [];
  private constructor(readonly server: Server) {}

  static async start(): Promise<Upstream> {
    const server = createServer();
    const up = new Upstream(server);
    server.on('connection', (socket) => {
      const c = { socket, received: '' };
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (c.received += d));
      socket.on('error', () => {});
      up.conns.push(c);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return up;
  }

  get port(): number {
    return (this.server.address() as { port: number }).port;
  }
}

class Miner {
  received = '';
  closed = false;
  private constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (this.received += d));
    socket.on('close', () => (this.closed = true));
    socket.on('error', () => {});
  }

  static connect(port: number): Promise<Miner> {
    return new Promise((resolve) => {
      const s = connect({ host: '127.0.0.1', port }, () => resolve(new Miner(s)));
    });
  }

  lines(): Record<string, unknown>[] {
    return this.received
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
  }
}

/** Records what the relay tells the engine; answers opoi.* requests with what the test sets. */
class RecordingHandler implements OpoiHandler {
  readonly events: { id: number; event: 'ready' | 'closed'; wallet: string | null; worker: string | null }[] = [];
  readonly handled: { method: string; params: readonly unknown[] }[] = [];
  readonly conns = new Map<number, MinerConnection>();

  async handle(_conn: MinerConnection, method: string, params: readonly unknown[]): Promise<unknown> {
    this.handled.push({ method, params });
    if (method === 'opoi.submit_result') return { accepted: true, submission_id: 1 };
    throw new StratumError(StratumErrorCode.OTHER, 'unknown request');
  }

  changed(conn: MinerConnection, event: 'ready' | 'closed'): void {
    this.conns.set(conn.id, conn);
    this.events.push({ id: conn.id, event, wallet: conn.wallet, worker: conn.worker });
  }
}

const upstream = await Upstream.start();
const handler = new RecordingHandler();
const relay = await Relay.listen({ host: '127.0.0.1', port: 0 }, { host: '127.0.0.1', port: upstream.port }, handler, log);
const miners: Miner[] = [];

async function miner(): Promise<{ m: Miner; pool: Upstream['conns'][number] }> {
  const before = upstream.conns.length;
  const m = await Miner.connect(relay.port);
  miners.push(m);
  await until(() => upstream.conns.length > before, 'the upstream connection');
  return { m, pool: upstream.conns[before] };
}

after(async () => {
  for (const m of miners) m.socket.destroy();
  await relay.close();
  await new Promise((r) => upstream.server.close(r));
});

const WALLET = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';

test('mining.* lines pass byte for byte in both directions, odd spacing, CRLF and blank lines included', async () => {
  const { m, pool } = await miner();
  const toPool = [
    '{"id":1,"method":"mining.subscribe","params":["x/1", null, "127.0.0.1", 3333]}\n',
    '{ "method" : "mining.extranonce.subscribe", "id" : 2 , "params":[] }\r\n',
    '  \n',
    // Well-formed as a line, wrong for the method: the pool answers it (error 20) and keeps the connection.
    '{"id":3,"method":"mining.submit","params":["only one"]}\n',
    `{"id":"s","method":"mining.submit","params":["${WALLET}.a","1","00","ab","cd"]}\n`,
  ];
  // Split mid-line to show lines are reassembled before anything is decided.
  const all = toPool.join('');
  m.socket.write(all.slice(0, 37));
  m.socket.write(all.slice(37));
  await until(() => pool.received.length >= all.length, 'the miner lines at the pool');
  assert.equal(pool.received, all, 'the pool receives exactly the bytes the miner sent');

  const toMiner = [
    '{"id":1,"result":["0001","0a0b0c0d"],"error":null}\n',
    '{"id":null,"method":"mining.set_target","params":["00ff"]}\n',
    '{"id":null, "method":"mining.notify","params":["j", "04000000"]}\r\n',
  ].join('');
  pool.socket.write(toMiner);
  await until(() => m.received.length >= toMiner.length, 'the pool lines at the miner');
  assert.equal(m.received, toMiner, 'the miner receives exactly the bytes the pool sent');
});

test('a malformed line is answered by the bridge with error 20 and never reaches the pool; the lines around it do', async () => {
  const { m, pool } = await miner();
  const good = (id: number) => `{"id":${id},"method":"mining.submit","params":["${WALLET}.a","1","00","ab","cd"]}\n`;
  const malformed: [string, unknown][] = [
    ['not json at all', null],
    ['[1,2,3]', null],
    ['{"id":7,"method":"mining.submit","params":{"worker":"x"}}', 7],
    ['{"id":"q","method":42}', 'q'],
    ['{"id":{"x":1},"method":"mining.submit","params":[]}', null],
    [`{"id":9,"method":"mining.submit","params":["${'a'.repeat(11 * 1024)}"]}`, 9],
  ];
  const sent = [good(1), ...malformed.flatMap(([line], i) => [`${line}\n`, good(100 + i)])].join('');
  m.socket.write(sent);
  const relayed = [good(1), ...malformed.map((_, i) => good(100 + i))].join('');
  await until(() => m.lines().length >= malformed.length, 'the bridge answering each malformed line');
  await until(() => pool.received.length >= relayed.length, 'the well-formed lines at the pool');
  assert.equal(pool.received, relayed, 'exactly the well-formed lines, byte for byte');
  const answers = m.lines();
  assert.deepEqual(
    answers.map((a) => [a.id, (a.error as unknown[])[0], a.result]),
    malformed.map(([, id]) => [id, 20, null]),
  );
  for (const a of answers) assert.match((a.error as string[])[1], /^malformed line: /);
  assert.ok(!m.closed, 'the miner stays connected');
});

test('the wallet is learned from mining.authorize only when the pool answers true to that id', async () => {
  const { m, pool } = await miner();
  m.socket.write('{"id":5,"method":"opoi.subscribe","params":[{"models":["tiny"],"concurrency":2}]}\n');
  await until(() => m.lines().length === 1, 'the opoi.subscribe answer');
  assert.deepEqual(m.lines()[0], { id: 5, result: { subscribed: true, models: ['tiny'] }, error: null });
  assert.equal(pool.received, '', 'opoi.* from the miner never reaches the pool');

  const readyBefore = handler.events.length;
  m.socket.write(`{"id":6,"method":"mining.authorize","params":["${WALLET}.first","x"]}\n`);
  await until(() => pool.received.includes('"id":6'), 'the authorize at the pool');
  pool.socket.write('{"id":6,"result":false,"error":[24,"Unauthorized worker",null]}\n');
  // opoi.* before an accepted authorize: 24 unauthorized.
  m.socket.write('{"id":7,"method":"opoi.submit_result","params":[{}]}\n');
  await until(() => m.lines().length === 3, 'the refusal and the unauthorized answer');
  assert.deepEqual(m.lines()[2], { id: 7, result: null, error: [24, 'authorize with the pool first', null] });
  assert.equal(handler.events.length, readyBefore, 'a refused authorize makes no miner ready');

  // An answer to another id does not confirm this authorize.
  m.socket.write(`{"id":8,"method":"mining.authorize","params":["${WALLET}.second","x"]}\n`);
  await until(() => pool.received.includes('"id":8'), 'the second authorize at the pool');
  pool.socket.write('{"id":99,"result":true,"error":null}\n');
  await until(() => m.lines().length === 4, 'the unrelated answer');
  assert.equal(handler.events.length, readyBefore, 'an answer to another id confirms nothing');
  pool.socket.write('{"id":8,"result":true,"error":null}\n');
  await until(() => handler.events.length === readyBefore + 1, 'the miner to become ready');
  const ready = handler.events.at(-1)!;
  assert.deepEqual({ event: ready.event, wallet: ready.wallet, worker: ready.worker }, { event: 'ready', wallet: WALLET, worker: 'second' });
  const conn = handler.conns.get(ready.id)!;
  assert.deepEqual(conn.opoi, { models: ['tiny'], maxTokens: null, maxPromptBytes: null, concurrency: 2, files: [], audits: false });

  // Now opoi.* goes to the engine and its answer comes back with the same id.
  m.socket.write('{"id":"r1","method":"opoi.submit_result","params":[{"request_id":"x"}]}\n');
  await until(() => m.lines().length === 6, 'the opoi answer');
  assert.deepEqual(m.lines()[5], { id: 'r1', result: { accepted: true, submission_id: 1 }, error: null });
  assert.equal(handler.handled.at(-1)?.method, 'opoi.submit_result');
  assert.ok(!pool.received.includes('opoi.'), 'no opoi.* line reached the pool');
});

test('a bad opoi.subscribe is answered with error 20 and the miner stays without OPoI', async () => {
  const { m } = await miner();
  m.socket.write('{"id":1,"method":"opoi.subscribe","params":[{"models":[]}]}\n');
  await until(() => m.lines().length === 1, 'the answer');
  const reply = m.lines()[0] as { error: unknown[] };
  assert.equal(reply.error[0], 20, 'malformed announcement is error 20');
});

test('two rigs on one wallet are two separate workers', async () => {
  const a = await miner();
  const b = await miner();
  const before = handler.events.length;
  for (const [x, worker] of [
    [a, 'rig1'],
    [b, 'rig2'],
  ] as const) {
    x.m.socket.write('{"id":1,"method":"opoi.subscribe","params":[{"models":["tiny"]}]}\n');
    x.m.socket.write(`{"id":2,"method":"mining.authorize","params":["${WALLET}.${worker}","x"]}\n`);
    await until(() => x.pool.received.includes('"id":2'), 'the authorize at the pool');
    x.pool.socket.write('{"id":2,"result":true,"error":null}\n');
  }
  await until(() => handler.events.length === before + 2, 'both rigs ready');
  const [r1, r2] = handler.events.slice(before);
  assert.notEqual(r1.id, r2.id, 'separate connections');
  assert.deepEqual([r1.wallet, r2.wallet], [WALLET, WALLET]);
  assert.deepEqual([r1.worker, r2.worker].sort(), ['rig1', 'rig2']);
});

test('opoi.* from upstream is dropped; the lines around it pass', async () => {
  const { m, pool } = await miner();
  const notify = '{"id":null,"method":"mining.notify","params":["j2"]}\n';
  const last = '{"id":null,"method":"mining.notify","params":["j3"]}\n';
  pool.socket.write(`{"id":null,"method":"opoi.assign","params":[{"request_id":"x"}]}\n${notify}{"id":3,"method":"opoi.anything","params":[]}\n`);
  pool.socket.write(last);
  await until(() => m.received.endsWith(last), 'the last notify');
  assert.equal(m.received, notify + last, 'only the mining.notify lines reach the miner');
});

test('a stock miner that never announced OPoI is never handed to the engine', async () => {
  const { m, pool } = await miner();
  const before = handler.events.length;
  m.socket.write(`{"id":1,"method":"mining.authorize","params":["${WALLET}.stock","x"]}\n`);
  await until(() => pool.received.includes('"id":1'), 'the authorize');
  pool.socket.write('{"id":1,"result":true,"error":null}\n');
  await until(() => m.received.includes('"id":1'), 'the answer');
  assert.equal(handler.events.length, before, 'the engine never hears of a miner without OPoI');
});

test('losing the upstream closes the miner side, and a miner leaving closes the upstream', async () => {
  const a = await miner();
  a.pool.socket.destroy();
  await until(() => a.m.closed, 'the miner side to close');
  const b = await miner();
  let upstreamClosed = false;
  b.pool.socket.on('close', () => (upstreamClosed = true));
  b.m.socket.end();
  await until(() => upstreamClosed, 'the upstream side to close');
});

test('an unreachable pool closes the miner side at once', async () => {
  const dead = createServer();
  await new Promise<void>((r) => dead.listen(0, '127.0.0.1', r));
  const port = (dead.address() as { port: number }).port;
  await new Promise((r) => dead.close(r));
  const lone = await Relay.listen({ host: '127.0.0.1', port: 0 }, { host: '127.0.0.1', port }, handler, log);
  const m = await Miner.connect(lone.port);
  m.socket.write('{"id":1,"method":"mining.subscribe","params":[]}\n');
  await until(() => m.closed, 'the miner side to close');
  await lone.close();
});

test('a line longer than the OPoI limit closes the miner connection, and nothing of it reaches the pool', async () => {
  const { m, pool } = await miner();
  m.socket.write('x'.repeat(OPOI_MAX_LINE_BYTES + 10));
  await until(() => m.closed, 'the miner side to close');
  assert.equal(pool.received, '', 'the over-long line was not relayed');
});
