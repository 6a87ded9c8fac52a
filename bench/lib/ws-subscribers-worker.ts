/**
 * The receiving side of bench/ws.ts, on its own thread so that reading 1,000 connections is not
 * counted in the server's time. Opens raw TCP connections, as WebSocket subscribers to new-blocks
 * (handshake, masked subscribe, the acknowledgement) or bare for the floor, and reads both kinds
 * with the same frame parser (the floor is sent the same frame bytes), so the two differ only by
 * the server. Reports the wall-clock time (timeOrigin + now, comparable across threads) at which
 * the last connection had the n-th message, and answers where it is waiting when asked.
 */
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { FrameReader, Opcode, clientFrame } from './ws-frames.ts';
import type { SubscriberJob, ToMain, ToWorker } from './ws-subscribers.ts';

const { kind, port, count } = workerData as SubscriberJob;
const main = parentPort;
if (!main) throw new Error('ws-subscribers-worker runs as a worker thread');
const post = (m: ToMain) => main.postMessage(m);
const BATCH = 100;
/** RFC 6455 §1.3: the GUID the server appends to the key in Sec-WebSocket-Accept. */
const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

interface Connection {
  readonly socket: net.Socket;
  /** Text frames read since the subscription was acknowledged (the floor: since connecting). */
  messages: number;
  stage: 'connecting' | 'upgrading' | 'subscribing' | 'ready';
}

const connections: Connection[] = [];
/** reached[n]: connections that have had their n-th message. */
const reached: number[] = [];
/** Connection 0's copy of each message, read so that the bench knows what was pushed and can check it. */
const samples = new Map<number, string>();

function onMessages(c: Connection, index: number, texts: Buffer[]): void {
  for (const text of texts) {
    const n = ++c.messages;
    if (index === 0) samples.set(n, text.toString('utf8'));
    reached[n] = (reached[n] ?? 0) + 1;
    if (reached[n] < count) continue;
    post({ type: 'round', round: n, lastAt: performance.timeOrigin + performance.now(), text: samples.get(n) ?? '' });
    samples.delete(n);
  }
}

function fail(message: string): void {
  post({ type: 'error', message });
}

function open(index: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const c: Connection = { socket, messages: 0, stage: 'connecting' };
    connections.push(c);
    socket.setNoDelay(true);
    socket.once('error', (e) => (c.stage === 'ready' ? fail(`connection ${index}: ${e.message}`) : reject(e)));
    socket.once('close', () => c.stage === 'ready' && !closing && fail(`connection ${index} closed by the server`));
    const reader = new FrameReader((opcode) => index === 0 && opcode === Opcode.TEXT);
    const read = (chunk: Buffer) => {
      const texts: Buffer[] = [];
      for (const frame of reader.push(chunk)) {
        if (frame.opcode === Opcode.PING) socket.write(clientFrame(Opcode.PONG, frame.payload));
        else if (frame.opcode === Opcode.CLOSE) fail(`connection ${index}: server sent close ${frame.payload.subarray(0, 2).toString('hex')}`);
        else if (frame.opcode === Opcode.TEXT) texts.push(frame.payload);
      }
      if (c.stage === 'ready') return onMessages(c, index, texts);
      if (texts.length === 0) return;
      // The subscription's acknowledgement: from here on every text frame is a push.
      c.stage = 'ready';
      resolve();
      onMessages(c, index, texts.slice(1));
    };
    socket.once('connect', () => {
      if (kind === 'tcp') {
        c.stage = 'ready';
        socket.on('data', read);
        return resolve();
      }
      c.stage = 'upgrading';
      upgrade(socket, index, (rest) => {
        c.stage = 'subscribing';
        socket.on('data', read);
        socket.write(clientFrame(Opcode.TEXT, Buffer.from(JSON.stringify({ action: 'subscribe', channel: 'new-blocks' }))));
        if (rest.length > 0) read(rest);
      }).catch(reject);
    });
  });
}

/** Sends the opening handshake (§4.1) and checks the server's answer; hands over the bytes that followed it. */
function upgrade(socket: net.Socket, index: number, then: (rest: Buffer) => void): Promise<void> {
  const key = randomBytes(16).toString('base64');
  const accept = createHash('sha1')
    .update(key + GUID)
    .digest('base64');
  socket.write(
    `GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
      `Sec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
  );
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const onData = (chunk: Buffer) => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const lines = head.subarray(0, end).toString('latin1').split('\r\n');
      const headers = new Map(
        lines.slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
      );
      if (!lines[0].startsWith('HTTP/1.1 101 ')) return reject(new Error(`connection ${index}: handshake answered ${lines[0]}`));
      if (headers.get('sec-websocket-accept') !== accept) return reject(new Error(`connection ${index}: wrong Sec-WebSocket-Accept`));
      then(head.subarray(end + 4));
      resolve();
    };
    socket.on('data', onData);
  });
}

let closing = false;
main.on('message', (m: ToWorker) => {
  if (m.type === 'close') {
    closing = true;
    for (const c of connections) c.socket.destroy();
    main.close();
    return;
  }
  const stages = new Map<string, number>();
  for (const c of connections) stages.set(c.stage, (stages.get(c.stage) ?? 0) + 1);
  const behind = connections.flatMap((c, index) => (c.messages < m.round ? [{ index, messages: c.messages, stage: c.stage }] : []));
  post({
    type: 'status',
    round: m.round,
    opened: connections.length,
    stages: Object.fromEntries(stages),
    behind: behind.slice(0, 5),
    behindCount: behind.length,
  });
});

try {
  for (let i = 0; i < count; i += BATCH) {
    await Promise.all(Array.from({ length: Math.min(BATCH, count - i) }, (_, j) => open(i + j)));
  }
  post({ type: 'ready' });
} catch (e) {
  fail(`opening connections: ${(e as Error).message}`);
}
