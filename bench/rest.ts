/**
 * GET /rest/block/<hash>.bin of a ~1 MB block over keep-alive HTTP, against a bare node:http
 * server answering every request with the same bytes, in one run.
 *
 * The block is real: on the RPC test node's chain (test/rpc-harness.ts: a regtest chain with
 * mature coinbases paying a test key), four signed transactions spend four coinbases into
 * ~23,000 P2WSH outputs, and the block holding them is connected like any other. The REST server
 * is the node's own (rpc/server.ts with the REST handler, rate limit off as with
 * -restratelimit=0, since a benchmark is a flood by design). The difference between the two
 * servers is what REST adds per request: rpcallowip, routing, path and format parsing, the
 * warmup gate and the block lookup. Repeated requests for one block are served from REST's
 * cache of recently served blocks, as a node serving an explorer would; the run is repeated
 * with the cache off, so that every request also reads the block from LMDB, and both ratios are
 * printed.
 *
 * One client loop drives both: `connections` keep-alive sockets, one request outstanding on each,
 * counting down each response's Content-Length without copying the body. Rounds alternate which
 * server goes first; the figure is the median over rounds of REST requests/s ÷ bare requests/s.
 * The client runs in this thread beside both servers, as in bench/rpc-http.ts, so each figure
 * prices a whole round trip.
 *
 * Run: node --conditions=@cs/source --import tsx bench/rest.ts
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import type { Transaction } from '@cs/consensus';
import { registerBlockchainMethods } from '../packages/csd/src/rpc/methods/blockchain.ts';
import { ANYONE_SCRIPT, COIN_VALUE, mine, spend } from '../packages/csd/test/mempool-harness.ts';
import { startRestServer } from '../packages/csd/test/rest-harness.ts';
import { withRpcNode } from '../packages/csd/test/rpc-harness.ts';
import { driveKeepAlive } from './lib/keep-alive.ts';
import { median } from './lib/stats.ts';

export interface BenchRestOptions {
  readonly connections?: number;
  readonly requestsPerRound?: number;
  readonly rounds?: number;
}

export interface Rates {
  /** Median over rounds of REST requests/s ÷ bare requests/s. */
  readonly ratio: number;
  readonly restRps: number;
  readonly bareRps: number;
}

export interface BenchRestResult extends Rates {
  /** The same with the recently-served-blocks cache off: every request reads the block from LMDB. */
  readonly uncached: Rates;
  readonly blockBytes: number;
}

/** Coinbases spent into many outputs; each output is 43 bytes (value, length, 34-byte P2WSH script). */
const SPENDS = 4;
const OUTPUTS_PER_SPEND = 5_800;
const FEE = 100_000n;

export async function benchRest(options: BenchRestOptions = {}): Promise<BenchRestResult> {
  let result: BenchRestResult | undefined;
  await withRpcNode(registerBlockchainMethods, async (node) => {
    const { chain } = node.fixture;
    const txs: Transaction[] = [];
    for (let i = 1; i <= SPENDS; i++) {
      const each = (COIN_VALUE - FEE) / BigInt(OUTPUTS_PER_SPEND);
      txs.push(spend(node.fixture.coin(i), Array<bigint>(OUTPUTS_PER_SPEND).fill(each), {}, ANYONE_SCRIPT));
    }
    await mine(chain, txs);
    const block = chain.readRawBlock(chain.tip)!;

    const bare = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/octet-stream', 'Content-Length': block.length });
      res.end(block);
    });
    const barePort = await listen(bare);
    const path = `/rest/block/${chain.tip.hashHex}.bin`;
    const request = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
    const rounds = { total: options.requestsPerRound ?? 400, connections: options.connections ?? 4, rounds: options.rounds ?? 15 };
    const measure = async (blockCacheBytes?: number): Promise<Rates> => {
      const rest = await startRestServer(node, { indexes: 'none', rateLimit: 0, blockCacheBytes });
      try {
        const check = await rest.get(path);
        if (check.status !== 200 || !check.body.equals(block)) throw new Error(`REST answered ${check.status} with ${check.body.length} bytes`);
        return await compare(rest.port, barePort, request, rounds);
      } finally {
        await rest.close();
      }
    };
    try {
      result = { ...(await measure()), uncached: await measure(0), blockBytes: block.length };
    } finally {
      bare.closeAllConnections();
      await new Promise((resolve) => bare.close(resolve));
    }
  });
  return result!;
}

interface Rounds {
  readonly total: number;
  readonly connections: number;
  readonly rounds: number;
}

async function compare(restPort: number, barePort: number, request: Buffer, r: Rounds): Promise<Rates> {
  const rps = async (port: number) => r.total / ((await driveKeepAlive(port, request, r.total, r.connections)) / 1000);
  await rps(barePort); // warm-up: JIT, sockets, page cache
  await rps(restPort);
  const ratios: number[] = [];
  const restRates: number[] = [];
  const bareRates: number[] = [];
  for (let round = 0; round < r.rounds; round++) {
    const restFirst = round % 2 === 1;
    const a = await rps(restFirst ? restPort : barePort);
    const b = await rps(restFirst ? barePort : restPort);
    const [restRate, bareRate] = restFirst ? [a, b] : [b, a];
    ratios.push(restRate / bareRate);
    restRates.push(restRate);
    bareRates.push(bareRate);
  }
  return { ratio: median(ratios), restRps: median(restRates), bareRps: median(bareRates) };
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await benchRest();
  console.log(`/rest/block/<hash>.bin of a ${r.blockBytes}-byte block / bare node:http same bytes: ${r.ratio.toFixed(2)} (block cache on)`);
  console.log(`    ${Math.round(r.restRps)} REST requests/s, ${Math.round(r.bareRps)} bare requests/s (medians, client in the same thread)`);
  const u = r.uncached;
  console.log(
    `    without the block cache (every request reads LMDB): ${u.ratio.toFixed(2)} (goal >= 0.85, ${u.ratio >= 0.85 ? 'ok' : 'BELOW GOAL'}) [${Math.round(u.restRps)} vs ${Math.round(u.bareRps)} requests/s]`,
  );
}
