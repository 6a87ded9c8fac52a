/**
 * What cs-dashboard's relay costs, against the node answering directly, in one run:
 *
 * - REST through the dashboard (`/api/node/0/rest/block/<hash>.json`) against the same request
 *   straight to csd's REST, in requests/s over keep-alive HTTP (the median over rounds that
 *   alternate which goes first of dashboard ÷ direct: the share of the node's rate a browser
 *   gets through the relay);
 * - the same for a whitelisted JSON-RPC call (`getblockcount`) through `/api/node/0/rpc`
 *   against a POST straight to csd's JSON-RPC;
 * - the time from the `generatetoaddress` call to a `/live` client receiving the block, against
 *   a client subscribed to csd's WebSocket directly (p50 of each, and the time the relay adds).
 *
 * Real processes on loopback: one csd (-rest, rate limits off, since a benchmark is a flood by
 * design) and one cs-dashboard. The client runs in this process (bench/lib/keep-alive.ts).
 *
 * Run: node --conditions=@cs/source --import tsx bench/dashboard.ts
 */
import { WebSocket } from 'ws';
import { Daemon, freePort } from '../packages/csd/test/daemon.ts';
import { DashboardProcess } from '../packages/cs-dashboard/test/dashboard-harness.ts';
import { driveKeepAlive } from './lib/keep-alive.ts';
import { median } from './lib/stats.ts';

const ROUNDS = 5;
const PER_ROUND = 2_000;
const CONNECTIONS = 8;
const BLOCKS = 20;
const PAY_TO = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';

function get(path: string): Uint8Array {
  return Buffer.from(`GET ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\n\r\n`);
}

function post(path: string, body: string, auth = ''): Uint8Array {
  const authorization = auth ? `authorization: Basic ${Buffer.from(auth).toString('base64')}\r\n` : '';
  return Buffer.from(
    `POST ${path} HTTP/1.1\r\nhost: 127.0.0.1\r\nconnection: keep-alive\r\ncontent-type: application/json\r\n${authorization}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Median over rounds of relayed ÷ direct requests/s, alternating which goes first. */
async function ratio(relayedPort: number, relayed: Uint8Array, directPort: number, direct: Uint8Array) {
  const ratios: number[] = [];
  const rates = { relayed: [] as number[], direct: [] as number[] };
  await driveKeepAlive(relayedPort, relayed, 200, CONNECTIONS);
  await driveKeepAlive(directPort, direct, 200, CONNECTIONS);
  for (let round = 0; round < ROUNDS; round++) {
    const runRelayed = async () => (PER_ROUND / (await driveKeepAlive(relayedPort, relayed, PER_ROUND, CONNECTIONS))) * 1000;
    const runDirect = async () => (PER_ROUND / (await driveKeepAlive(directPort, direct, PER_ROUND, CONNECTIONS))) * 1000;
    let r: number;
    let d: number;
    if (round % 2 === 0) {
      r = await runRelayed();
      d = await runDirect();
    } else {
      d = await runDirect();
      r = await runRelayed();
    }
    rates.relayed.push(r);
    rates.direct.push(d);
    ratios.push(r / d);
  }
  return { ratio: median(ratios), relayedRps: median(rates.relayed), directRps: median(rates.direct) };
}

/** Resolves with the arrival time of each new-blocks push, by height. */
function blockTimes(ws: WebSocket): Map<number, number> {
  const times = new Map<number, number>();
  ws.on('message', (d) => {
    const m = JSON.parse(d.toString()) as { type: string; height: number; disconnected?: boolean };
    if (m.type === 'new-blocks' && !m.disconnected) times.set(m.height, performance.now());
  });
  return times;
}

async function waitFor(check: () => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error('timed out');
}

async function main(): Promise<void> {
  const wsPort = await freePort();
  const node = new Daemon({ args: [`-wsport=${wsPort}`, '-rest', '-rpcratelimit=0', '-restratelimit=0'] });
  await node.start();
  const dash = new DashboardProcess({
    nodes: [
      {
        name: 'node1',
        rpcUrl: `http://127.0.0.1:${node.rpcPort}`,
        rpcUser: node.user,
        rpcPassword: node.password,
        wsUrl: `ws://127.0.0.1:${wsPort}`,
      },
    ],
  });
  try {
    await node.call('generatetoaddress', 10, PAY_TO);
    await dash.start();
    const dashPort = Number(new URL(dash.url).port);
    const tip = await node.call<string>('getbestblockhash');

    const rest = await ratio(dashPort, get(`/api/node/0/rest/block/${tip}.json`), node.rpcPort, get(`/rest/block/${tip}.json`));
    const body = JSON.stringify({ method: 'getblockcount', params: [] });
    const rpcBody = JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'getblockcount', params: [] });
    const rpc = await ratio(dashPort, post('/api/node/0/rpc', body), node.rpcPort, post('/', rpcBody, `${node.user}:${node.password}`));

    const direct = new WebSocket(`ws://127.0.0.1:${wsPort}`);
    await new Promise((r) => direct.once('open', r));
    direct.send(JSON.stringify({ action: 'subscribe', channel: 'new-blocks' }));
    const relayedWs = new WebSocket(`${dash.url.replace('http', 'ws')}live`);
    await new Promise((r) => relayedWs.once('open', r));
    const directTimes = blockTimes(direct);
    const relayedTimes = blockTimes(relayedWs);
    const directLag: number[] = [];
    const relayedLag: number[] = [];
    for (let i = 0; i < BLOCKS; i++) {
      const mined = performance.now();
      const height = (await node.call<number>('getblockcount')) + 1;
      await node.call('generatetoaddress', 1, PAY_TO);
      await waitFor(() => directTimes.has(height) && relayedTimes.has(height));
      directLag.push(directTimes.get(height)! - mined);
      relayedLag.push(relayedTimes.get(height)! - mined);
    }
    direct.close();
    relayedWs.close();

    console.log('cs-dashboard relay against csd directly (one csd, one cs-dashboard, loopback, 8 keep-alive connections)');
    console.log(
      `  REST block JSON: ${rest.relayedRps.toFixed(0)} req/s through the dashboard / ${rest.directRps.toFixed(0)} req/s direct = ${rest.ratio.toFixed(2)}`,
    );
    console.log(
      `  JSON-RPC getblockcount: ${rpc.relayedRps.toFixed(0)} req/s through the dashboard / ${rpc.directRps.toFixed(0)} req/s direct = ${rpc.ratio.toFixed(2)}`,
    );
    const p50d = median(directLag);
    const p50r = median(relayedLag);
    console.log(
      `  generatetoaddress call to the block at a WebSocket client, p50 of ${BLOCKS}: ${p50r.toFixed(2)} ms through /live, ${p50d.toFixed(2)} ms from csd directly (relay adds ${(p50r - p50d).toFixed(2)} ms)`,
    );
  } finally {
    await dash.cleanup();
    await node.cleanup();
  }
}

await main();
