/**
 * JSON-RPC `getblockchaininfo` over keep-alive HTTP against a bare node:http server that answers
 * every request with a fixed JSON body, in one run.
 *
 * One client loop drives both servers: `connections` keep-alive sockets, each with one request
 * outstanding at a time (no pipelining), sending the same precomputed bytes (a JSON-RPC 1.0
 * `getblockchaininfo` call with Basic auth) until `requestsPerRound` answers are in. The bare
 * server answers with the exact body the RPC server produces, so the difference is what the RPC
 * layer adds per request: rpcallowip, routing, auth (cached), reading and parsing the body, the
 * rate-limit bookkeeping (with a limit too high to trigger), envelope checks, warmup gate,
 * argument checks, metrics, serialization.
 *
 * Rounds alternate which server goes first; each figure is the median over rounds of
 * rpc requests/s ÷ bare requests/s.
 *
 * - ratio (goal >= 0.85, issue 15): the client loop runs in this thread beside both servers, so each
 *   request/s figure prices a whole round trip, client included.
 * - serverBoundRatio (reported, no goal): the same loop in a worker thread, so that the server
 *   thread does nothing but serve. This is the stricter view of server cost alone.
 *
 * Run: node --conditions=@cs/source --import tsx bench/rpc-http.ts
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { silentLogger } from '../packages/csd/src/rpc/logger.ts';
import { RpcRegistry } from '../packages/csd/src/rpc/registry.ts';
import { RpcHttpServer } from '../packages/csd/src/rpc/server.ts';
import { driveKeepAlive } from './lib/keep-alive.ts';
import { median } from './lib/stats.ts';

export interface BenchRpcHttpOptions {
  /** Registers `getblockchaininfo` (and whatever it needs); default: a method returning a fixed regtest summary. */
  readonly setup?: (registry: RpcRegistry) => void;
  readonly connections?: number;
  readonly requestsPerRound?: number;
  readonly rounds?: number;
}

export interface BenchRpcHttpResult {
  readonly ratio: number;
  readonly rpcRps: number;
  readonly bareRps: number;
  readonly serverBoundRatio: number;
}

interface Drive {
  readonly port: number;
  readonly request: string;
  readonly total: number;
  readonly connections: number;
}

/** Runs one round against one server; resolves with the elapsed milliseconds. */
interface Client {
  drive(job: Drive): Promise<number>;
  stop(): Promise<void>;
}

const USER = 'bench';
const PASSWORD = 'bench-password';
const WORKER_ROLE = 'rpc-http-bench-client';

/** What getblockchaininfo returns on a fresh regtest node, field for field. */
const CHAIN_SUMMARY = {
  chain: 'regtest',
  blocks: 0,
  headers: 0,
  bestblockhash: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
  difficulty: 4.656542373906925e-10,
  mediantime: 1296688602,
  verificationprogress: 1,
  chainwork: '0000000000000000000000000000000000000000000000000000000000000002',
  pruned: false,
} as const;

function defaultSetup(registry: RpcRegistry): void {
  registry.register({
    name: 'getblockchaininfo',
    category: 'Blockchain',
    description: 'Returns a fixed chain summary (benchmark stand-in).',
    params: [],
    result: '{ "chain": "str", ... }    (json object) the chain summary',
    examples: [{ args: [] }],
    handler: async () => CHAIN_SUMMARY,
  });
}

export async function benchRpcHttp(options: BenchRpcHttpOptions = {}): Promise<BenchRpcHttpResult> {
  const registry = new RpcRegistry();
  (options.setup ?? defaultSetup)(registry);
  const rpc = new RpcHttpServer({
    registry,
    credentials: [{ user: USER, password: PASSWORD }],
    logger: silentLogger,
    rateLimit: 1_000_000_000,
  });
  const rpcPort = (await rpc.listen(0)).port;

  const body = JSON.stringify({ jsonrpc: '1.0', id: 'bench', method: 'getblockchaininfo', params: [] });
  const request =
    `POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  const reply = `${JSON.stringify({ result: await registry.call('getblockchaininfo', [], { uri: '/', peer: '127.0.0.1' }), error: null, id: 'bench' })}\n`;
  const bare = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(reply) });
    res.end(reply);
  });
  const barePort = await listen(bare);

  const rounds = {
    rpcPort,
    barePort,
    request,
    total: options.requestsPerRound ?? 5_000,
    connections: options.connections ?? 8,
    rounds: options.rounds ?? 25,
  };
  const worker = startWorkerClient();
  try {
    const inThread = await compare({ drive }, rounds);
    const serverBound = await compare(worker, rounds);
    return { ...inThread, serverBoundRatio: serverBound.ratio };
  } finally {
    await worker.stop();
    await rpc.close();
    bare.closeAllConnections();
    await new Promise((resolve) => bare.close(resolve));
  }
}

interface Rounds {
  readonly rpcPort: number;
  readonly barePort: number;
  readonly request: string;
  readonly total: number;
  readonly connections: number;
  readonly rounds: number;
}

async function compare(client: Pick<Client, 'drive'>, r: Rounds): Promise<Omit<BenchRpcHttpResult, 'serverBoundRatio'>> {
  const rps = async (port: number) =>
    r.total / ((await client.drive({ port, request: r.request, total: r.total, connections: r.connections })) / 1000);
  await rps(r.barePort); // warm-up: JIT, sockets, caches
  await rps(r.rpcPort);
  const ratios: number[] = [];
  const rpcRates: number[] = [];
  const bareRates: number[] = [];
  for (let round = 0; round < r.rounds; round++) {
    const first = round % 2 === 0 ? r.barePort : r.rpcPort;
    const a = await rps(first);
    const b = await rps(first === r.barePort ? r.rpcPort : r.barePort);
    const [bareRate, rpcRate] = first === r.barePort ? [a, b] : [b, a];
    ratios.push(rpcRate / bareRate);
    rpcRates.push(rpcRate);
    bareRates.push(bareRate);
  }
  return { ratio: median(ratios), rpcRps: median(rpcRates), bareRps: median(bareRates) };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The client loop in a worker thread; it loads this file through tsx, which workers do not inherit. */
function startWorkerClient(): Client {
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(boot, { eval: true, workerData: { role: WORKER_ROLE } });
  let pending: { resolve(ms: number): void; reject(e: Error): void } | undefined;
  worker.on('message', (m: { ms?: number; error?: string }) => {
    if (m.error === undefined) pending?.resolve(m.ms as number);
    else pending?.reject(new Error(m.error));
    pending = undefined;
  });
  worker.on('error', (e) => pending?.reject(e));
  return {
    drive: (job) =>
      new Promise((resolve, reject) => {
        pending = { resolve, reject };
        worker.postMessage(job);
      }),
    stop: async () => {
      await worker.terminate();
    },
  };
}

function drive(job: Drive): Promise<number> {
  return driveKeepAlive(job.port, Buffer.from(job.request), job.total, job.connections);
}

if (!isMainThread && (workerData as { role?: string } | null)?.role === WORKER_ROLE) {
  parentPort?.on('message', (job: Drive) => {
    drive(job).then(
      (ms) => parentPort?.postMessage({ ms }),
      (e: Error) => parentPort?.postMessage({ error: e.message }),
    );
  });
}

if (isMainThread && process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const result = await benchRpcHttp();
  const verdict = result.ratio >= 0.85 ? 'ok' : 'BELOW GOAL';
  console.log(`getblockchaininfo over keep-alive HTTP / bare node:http fixed JSON: ${result.ratio.toFixed(2)} (goal >= 0.85, ${verdict})`);
  console.log(`    ${Math.round(result.rpcRps)} rpc requests/s, ${Math.round(result.bareRps)} bare requests/s (medians, client in the same thread)`);
  console.log(`    server-bound (client in a worker thread): ${result.serverBoundRatio.toFixed(2)}`);
}
