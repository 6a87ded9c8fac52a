// The receiving side of bench/ws.ts, on its own thread so that the 1,000 clients' reading runs on
// the other core instead of being counted in the server's time. Opens the connections it is
// asked for (WebSocket subscribers to new-blocks, or bare TCP), then reports the wall-clock time
// (timeOrigin + now, comparable across threads) at which the last connection got each message.
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';

// Plain JavaScript: workers do not inherit the main thread's TypeScript loader.
/** @type {{ kind: 'websocket' | 'tcp', port: number, count: number }} */
const { kind, port, count } = workerData;
const port_ = parentPort;
if (!port_) throw new Error('subscribers-worker runs as a worker thread');
const BATCH = 100;
let received = 0;
const onMessage = () => {
  if (++received < count) return;
  received = 0;
  port_.postMessage({ lastAt: performance.timeOrigin + performance.now() });
};

/** @type {{ close(): void }[]} */
const opened = [];
for (let i = 0; i < count; i += BATCH) {
  const batch = Array.from({ length: Math.min(BATCH, count - i) }, () => (kind === 'tcp' ? openTcp() : openSubscriber()));
  await Promise.all(batch);
}
port_.postMessage({ ready: true });
port_.on('message', () => {
  for (const c of opened) c.close();
  port_.close();
});

function openTcp() {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', resolve);
    socket.once('error', reject);
    socket.on('data', onMessage);
    opened.push({ close: () => socket.destroy() });
  });
}

function openSubscriber() {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}`);
    opened.push({ close: () => ws.terminate() });
    ws.once('error', reject);
    ws.once('open', () => {
      // The first message is the subscription's acknowledgement.
      ws.once('message', () => {
        ws.on('message', onMessage);
        resolve();
      });
      ws.send(JSON.stringify({ action: 'subscribe', channel: 'new-blocks' }));
    });
  });
}
