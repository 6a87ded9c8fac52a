// WebSocket fan-out, from one run: 1,000 connections subscribed to new-blocks on a real chain;
// each round connects one block and measures from the chain's connect event to the moment the
// last client has received the push. The clients read on a worker thread (the other core), as
// they would in other processes. The floor, in the same run and interleaved with it (ABBA blocks): a
// bare node:net server writing the very frame that was pushed to 1,000 TCP connections read by
// the same code on the same kind of thread, from the start of its write loop to the last
// connection's frame: the cost of 1,000 socket writes here, which no WebSocket server can go under.
// Every wait has a deadline and fails saying what it waited for (docs/notifications.md, "Fan-out").
//   node --conditions=@cs/source --import tsx bench/ws.ts [blocks]
import net from 'node:net';
import pino from 'pino';
import { Mempool } from '../packages/csd/src/mempool/mempool.ts';
import { AllowList } from '../packages/csd/src/rpc/allowip.ts';
import { textFrame } from '../packages/csd/src/ws/frame.ts';
import { WsNotifier } from '../packages/csd/src/ws/notifier.ts';
import { WsServer } from '../packages/csd/src/ws/server.ts';
import { nextBlock, openHarness } from '../packages/csd/test/chain-harness.ts';
import { median } from './lib/stats.ts';
import { Subscribers } from './lib/ws-subscribers.ts';

const SUBSCRIBERS = 1000;
/**
 * Measured blocks of four rounds: push, floor, floor, push. Whichever side runs first in a pair
 * comes out slower on this machine, by up to 20 %, so each block has both orders and its ratio
 * is (push + push) / (floor + floor); the ratio printed is the median of the blocks'.
 */
const BLOCKS = Number(process.argv[2] ?? 20);
/** The first blocks warm up the JIT and the sockets; they are not counted. */
const WARMUP = 2;
/** Pushes in one burst, and burst rounds (after the single-push rounds). */
const BURST = 200;
const BURST_ROUNDS = 5;
/** A round takes milliseconds; on a loaded machine well under a second. Past this something is lost. */
const ROUND_TIMEOUT_MS = 30_000;
/** Opening 1,000 connections (and their handshakes) takes about a second. */
const SETUP_TIMEOUT_MS = 120_000;

const now = () => performance.timeOrigin + performance.now();

/** `promise`, or a failure naming `what` once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what()}: not done after ${ms} ms`)), ms)));
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
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
const { port } = await server.listen(0, '127.0.0.1');
const wsState = () => `server: ${server.connectionCount} connections, ${server.subscriptions.newBlocks.size} new-blocks subscribers`;
const ws = await Subscribers.open({ kind: 'websocket', port, count: SUBSCRIBERS }, wsState, SETUP_TIMEOUT_MS);
if (server.subscriptions.newBlocks.size !== SUBSCRIBERS) throw new Error(`only ${server.subscriptions.newBlocks.size} subscribers`);

const bare = net.createServer();
const bareSockets: net.Socket[] = [];
let allAccepted: () => void = () => {};
const accepted = new Promise<void>((resolve) => (allAccepted = resolve));
bare.on('connection', (socket) => {
  socket.setNoDelay(true);
  if (bareSockets.push(socket) === SUBSCRIBERS) allAccepted();
});
await new Promise<void>((resolve) => bare.listen(0, '127.0.0.1', resolve));
const bareState = () => `floor server: ${bareSockets.length} connections accepted`;
const tcp = await Subscribers.open({ kind: 'tcp', port: (bare.address() as net.AddressInfo).port, count: SUBSCRIBERS }, bareState, SETUP_TIMEOUT_MS);
// A client's connect completes in the kernel before this thread accepts: writing before the last
// accept would leave a connection without its frame and the round waiting for it.
await within(accepted, SETUP_TIMEOUT_MS, bareState);

let wsRound = 0;
let pushed: Buffer = Buffer.alloc(0);
/** One block connected: chain event to the last subscriber's push. */
async function pushRound(): Promise<{ ms: number; loopMs: number }> {
  const round = ++wsRound;
  const arrival = ws.arrival(round, ROUND_TIMEOUT_MS);
  const block = nextBlock(h.chain);
  const height = h.chain.tip.height + 1;
  const result = await within(h.chain.processBlock(block), ROUND_TIMEOUT_MS, () => `connecting block ${height}`);
  if (result.status !== 'accepted') throw new Error(`block ${height} not accepted: ${result.status}`);
  const { lastAt, text } = await arrival;
  const push = JSON.parse(text) as { type?: string; height?: number };
  if (push.type !== 'new-blocks' || push.height !== height) throw new Error(`round ${round}: expected the push of block ${height}, read ${text}`);
  pushed = textFrame(Buffer.from(text));
  return { ms: lastAt - eventAt, loopMs: sentAt - eventAt };
}

let tcpRound = 0;
/** The same frame written to 1,000 bare sockets: loop start to the last one's arrival. */
async function floorRound(): Promise<{ ms: number; loopMs: number }> {
  const round = ++tcpRound;
  const frame = pushed;
  const arrival = tcp.arrival(round, ROUND_TIMEOUT_MS);
  const start = now();
  for (const socket of bareSockets) socket.write(frame);
  const loopMs = now() - start;
  const { lastAt, text } = await arrival;
  if (!textFrame(Buffer.from(text)).equals(frame)) throw new Error(`floor round ${round}: read a different frame than was written`);
  return { ms: lastAt - start, loopMs };
}

/**
 * A burst as a block makes for mempool subscribers (one removal push per transaction), pushed in
 * one tick: from the first push to the last client's last message. The floor writes the same
 * frames to each bare socket as one buffer, the fewest system calls there can be.
 */
async function burstRound(): Promise<{ ms: number; floorMs: number }> {
  const payloads = Array.from({ length: BURST }, (_, sequence) => ({
    type: 'mempool',
    event: 'removed',
    txid: sequence.toString(16).padStart(64, '0'),
    wtxid: sequence.toString(16).padStart(64, 'f'),
    reason: 'block',
    fee: 0.0000141,
    vsize: 141,
    weight: 561,
    sequence,
  }));
  wsRound += BURST;
  const arrival = ws.arrival(wsRound, ROUND_TIMEOUT_MS);
  const start = now();
  for (const payload of payloads) server.push(server.subscriptions.newBlocks, payload);
  const { lastAt, text } = await arrival;
  if (text !== JSON.stringify(payloads[BURST - 1])) throw new Error(`burst: the last message read is not the last pushed: ${text}`);
  const frames = Buffer.concat(payloads.map((p) => textFrame(Buffer.from(JSON.stringify(p)))));
  tcpRound += BURST;
  const floorArrival = tcp.arrival(tcpRound, ROUND_TIMEOUT_MS);
  const floorStart = now();
  for (const socket of bareSockets) socket.write(frames);
  return { ms: lastAt - start, floorMs: (await floorArrival).lastAt - floorStart };
}

const fanOut: number[] = [];
const sendLoop: number[] = [];
const floor: number[] = [];
const floorLoop: number[] = [];
const ratios: number[] = [];
for (let block = 0; block < WARMUP + BLOCKS; block++) {
  const a = await pushRound();
  const b = await floorRound();
  const c = await floorRound();
  const d = await pushRound();
  if (block < WARMUP) continue;
  fanOut.push(a.ms, d.ms);
  sendLoop.push(a.loopMs, d.loopMs);
  floor.push(b.ms, c.ms);
  floorLoop.push(b.loopMs, c.loopMs);
  ratios.push((a.ms + d.ms) / (b.ms + c.ms));
}

const bursts: number[] = [];
const burstFloors: number[] = [];
for (let round = 0; round < BURST_ROUNDS; round++) {
  const { ms, floorMs } = await burstRound();
  bursts.push(ms);
  burstFloors.push(floorMs);
}

const subscribers = SUBSCRIBERS.toLocaleString('en-US');
console.log(
  `WebSocket fan-out of one new-blocks push (${pushed.length} bytes framed) to ${subscribers} subscribers: ` +
    `${median(fanOut).toFixed(2)} ms from the chain event to the last client (median of ${fanOut.length} rounds; ` +
    `server send loop ${median(sendLoop).toFixed(2)} ms; goal <= 5 ms)`,
);
console.log(
  `bare node:net write of the same frame to ${subscribers} sockets, loop start to last client: ${median(floor).toFixed(2)} ms ` +
    `(write loop ${median(floorLoop).toFixed(2)} ms); ` +
    `WebSocket fan-out / bare: ${median(ratios).toFixed(2)} (median of ${BLOCKS} ABBA blocks; goal <= 1.10; ratio of the two medians ${(median(fanOut) / median(floor)).toFixed(2)})`,
);

console.log(
  `burst of ${BURST} pushes in one tick to ${subscribers} subscribers: ${median(bursts).toFixed(1)} ms to the last client's last message; ` +
    `the same frames as one write per bare socket: ${median(burstFloors).toFixed(1)} ms; burst / bare: ${(median(bursts) / median(burstFloors)).toFixed(2)} ` +
    `(medians of ${BURST_ROUNDS})`,
);

await ws.close();
await tcp.close();
for (const socket of bareSockets) socket.destroy();
bare.close();
notifier.close();
mempool.close();
await server.close(100);
await h.close();
