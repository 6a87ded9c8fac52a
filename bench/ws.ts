// WebSocket fan-out, from one run: 1,000 connections subscribed to new-blocks on a real chain;
// each round connects one block and measures from the chain's connect event to the moment the
// last client has received the push. The clients read on a worker thread (the other core), as
// they would in other processes. Baseline in the same run, alternating with it: a bare node:net
// server writing a buffer of the push's size to 1,000 TCP connections read by the same worker
// thread, from the start of its write loop to the last connection's data: the cost of 1,000
// socket writes on this machine, which no WebSocket server can go under.
//   node --conditions=@cs/source --import tsx bench/ws.ts
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import pino from 'pino';
import { Mempool } from '../packages/csd/src/mempool/mempool.ts';
import { AllowList } from '../packages/csd/src/rpc/allowip.ts';
import { WsNotifier } from '../packages/csd/src/ws/notifier.ts';
import { WsServer } from '../packages/csd/src/ws/server.ts';
import { nextBlock, openHarness } from '../packages/csd/test/chain-harness.ts';
import { median } from './lib/stats.ts';

const SUBSCRIBERS = 1000;
const ROUNDS = 25;
/** The first rounds warm up the JIT and the sockets; they are not counted. */
const WARMUP = 5;

const now = () => performance.timeOrigin + performance.now();

/** Starts the worker that opens `count` connections to `port` and reports when the last one got each message. */
async function subscribers(kind: 'websocket' | 'tcp', port: number) {
  const worker = new Worker(new URL('./lib/subscribers-worker.mjs', import.meta.url), {
    workerData: { kind, port, count: SUBSCRIBERS },
  });
  let waiting: ((at: number) => void) | null = null;
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.on('message', (m: { ready?: true; lastAt?: number }) => {
      if (m.ready) resolve();
      else if (m.lastAt !== undefined) waiting?.(m.lastAt);
    });
  });
  return {
    /** Resolves with the time the last connection received the next message. */
    next: () => new Promise<number>((resolve) => (waiting = resolve)),
    close: async () => {
      worker.postMessage('close');
      await new Promise((resolve) => worker.once('exit', resolve));
    },
  };
}

const h = await openHarness();
const log = pino({ level: 'silent' });
const mempool = new Mempool({ chain: h.chain, log });
// Registered before the notifier, so it runs just before the push goes out...
let eventAt = 0;
h.chain.events.on('connect', () => (eventAt = now()));
const server = new WsServer({
  net: h.chain.params.address,
  allowList: AllowList.forRpc([]),
  rateLimit: 0,
  logger: log,
  limits: { maxConnections: SUBSCRIBERS },
});
const notifier = new WsNotifier(server, h.chain, mempool);
// ...and this one after it: the synchronous part of the fan-out (serialize and frame once, 1,000 writes).
let sentAt = 0;
h.chain.events.on('connect', () => (sentAt = now()));
let pushBytes = 0;
const push = server.push.bind(server);
server.push = (clients, payload) => {
  pushBytes = Buffer.byteLength(JSON.stringify(payload));
  push(clients, payload);
};
const { port } = await server.listen(0, '127.0.0.1');
const wsClients = await subscribers('websocket', port);
if (server.subscriptions.newBlocks.size !== SUBSCRIBERS) throw new Error(`only ${server.subscriptions.newBlocks.size} subscribers`);

const bare = net.createServer();
const bareSockets: net.Socket[] = [];
bare.on('connection', (socket) => {
  socket.setNoDelay(true);
  bareSockets.push(socket);
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const tcpClients = await subscribers('tcp', (bare.address() as net.AddressInfo).port);

const toLast: number[] = [];
const sendLoop: number[] = [];
const bareToLast: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const pushed = wsClients.next();
  const result = await h.chain.processBlock(nextBlock(h.chain));
  if (result.status !== 'accepted') throw new Error(`block not accepted: ${result.status}`);
  const lastAt = await pushed;

  const frame = Buffer.alloc(pushBytes + 2, 0x61);
  const written = tcpClients.next();
  const bareStart = now();
  for (const socket of bareSockets) socket.write(frame);
  const bareLastAt = await written;

  if (round < WARMUP) continue;
  toLast.push(lastAt - eventAt);
  sendLoop.push(sentAt - eventAt);
  bareToLast.push(bareLastAt - bareStart);
}

const ours = median(toLast);
const floor = median(bareToLast);
console.log(
  `WebSocket fan-out of one new-blocks push (${pushBytes} bytes) to ${SUBSCRIBERS.toLocaleString('en-US')} subscribers: ` +
    `${ours.toFixed(2)} ms from the chain event to the last client (median of ${toLast.length} rounds; ` +
    `server send loop ${median(sendLoop).toFixed(2)} ms; goal <= 5 ms)`,
);
console.log(
  `bare node:net write of the same size to ${SUBSCRIBERS.toLocaleString('en-US')} sockets, loop start to last client: ` +
    `${floor.toFixed(2)} ms; WebSocket fan-out / bare: ${(ours / floor).toFixed(2)}`,
);

await wsClients.close();
await tcpClients.close();
for (const socket of bareSockets) socket.destroy();
bare.close();
notifier.close();
mempool.close();
await server.close(100);
await h.close();
