// WebSocket fan-out, from one run: 1,000 connections subscribed to new-blocks on a real chain;
// each round connects one block and measures from the chain's connect event to the moment the
// last client has received the push (median of the rounds). The clients live in this process,
// so the figure includes their receiving work as well as the server's sending.
//   node --import tsx bench/ws.ts
import pino from 'pino';
import WebSocket from 'ws';
import { Mempool } from '../packages/csd/src/mempool/mempool.ts';
import { AllowList } from '../packages/csd/src/rpc/allowip.ts';
import { WsNotifier } from '../packages/csd/src/ws/notifier.ts';
import { WsServer } from '../packages/csd/src/ws/server.ts';
import { nextBlock, openHarness } from '../packages/csd/test/chain-harness.ts';
import { median } from './lib/stats.ts';

const SUBSCRIBERS = 1000;
const ROUNDS = 25;
/** Connections opened at once: stays under the listen backlog (511). */
const CONNECT_BATCH = 100;

const h = await openHarness();
const log = pino({ level: 'silent' });
const mempool = new Mempool({ chain: h.chain, log });
// Registered before the notifier, so it runs just before the push goes out...
let eventAt = 0;
h.chain.events.on('connect', () => (eventAt = performance.now()));
const server = new WsServer({
  net: h.chain.params.address,
  allowList: AllowList.forRpc([]),
  rateLimit: 0,
  logger: log,
  limits: { maxConnections: SUBSCRIBERS },
});
const notifier = new WsNotifier(server, h.chain, mempool);
// ...and this one after it: the synchronous part of the fan-out (serialize once, queue 1,000 frames).
let sentAt = 0;
h.chain.events.on('connect', () => (sentAt = performance.now()));
const { port } = await server.listen(0, '127.0.0.1');

let received = 0;
let lastAt = 0;
let roundDone: (() => void) | null = null;
const clients: WebSocket[] = [];
for (let i = 0; i < SUBSCRIBERS; i += CONNECT_BATCH) {
  const batch = Array.from({ length: Math.min(CONNECT_BATCH, SUBSCRIBERS - i) }, () => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    clients.push(ws);
    return new Promise<void>((resolve, reject) => {
      ws.once('error', reject);
      ws.once('open', () => {
        ws.once('message', () => {
          ws.on('message', () => {
            lastAt = performance.now();
            if (++received === SUBSCRIBERS) roundDone?.();
          });
          resolve();
        });
        ws.send(JSON.stringify({ action: 'subscribe', channel: 'new-blocks' }));
      });
    });
  });
  await Promise.all(batch);
}
if (server.subscriptions.newBlocks.size !== SUBSCRIBERS) throw new Error(`only ${server.subscriptions.newBlocks.size} subscribers`);

const toLast: number[] = [];
const sendLoop: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const block = nextBlock(h.chain);
  received = 0;
  const done = new Promise<void>((resolve) => (roundDone = resolve));
  const result = await h.chain.processBlock(block);
  if (result.status !== 'accepted') throw new Error(`block not accepted: ${result.status}`);
  await done;
  // The first rounds warm up the JIT and the sockets; they are not counted.
  if (round < 5) continue;
  toLast.push(lastAt - eventAt);
  sendLoop.push(sentAt - eventAt);
}

console.log(
  `WebSocket fan-out of one new-blocks push to ${SUBSCRIBERS.toLocaleString('en-US')} subscribers: ` +
    `${median(toLast).toFixed(2)} ms from the chain event to the last client (median of ${toLast.length} rounds; ` +
    `server send loop ${median(sendLoop).toFixed(2)} ms; clients in the same process)`,
);

for (const ws of clients) ws.terminate();
notifier.close();
mempool.close();
await server.close(100);
await h.close();
