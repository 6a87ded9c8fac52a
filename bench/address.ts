/**
 * The first page of /rest/address/<address> for an address with 1,000,000 confirmed
 * transactions against one with 10, over keep-alive HTTP to the node's own REST server, in one
 * run. The goal (issue 15) is the same time for both: a page is one range read of its own length
 * in the address index, and the totals are one read of the address's running summary, whatever
 * the length of the history.
 *
 * The long history is written straight through the address index's store (AddressStore.append,
 * what block connect uses), 50,000 entries per LMDB transaction, with made-up txids: the REST
 * answer lists txids only, so they need not be real transactions. Both addresses are P2WPKH.
 * The REST server is the one of bench/rest.ts (test/rest-harness.ts: rpc/server.ts with the REST
 * handler over the RPC test node's chain, indexes synced, rate limit off).
 *
 * Three comparisons, each the median over rounds (alternating which address goes first) of
 * busy requests/s ÷ small requests/s:
 * - the default first page (50 txids for the busy address, its 10 for the small one);
 * - the same page size for both (`?from=0&to=10`), so the answers have the same size and only
 *   the index's work differs;
 * - a page deep in the busy history (`?from=999000&to=999010`) against the small one's first.
 *
 * Run: node --conditions=@cs/source --import tsx bench/address.ts
 */
import { pathToFileURL } from 'node:url';
import { hash160, p2wpkhScript, scriptToAddress } from '@cs/consensus';
import { addressKey } from '../packages/csd/src/indexes/address-deltas.ts';
import { AddressStore } from '../packages/csd/src/indexes/address-store.ts';
import { registerBlockchainMethods } from '../packages/csd/src/rpc/methods/blockchain.ts';
import { startRestServer, type RestTestServer } from '../packages/csd/test/rest-harness.ts';
import { withRpcNode } from '../packages/csd/test/rpc-harness.ts';
import { driveKeepAlive } from './lib/keep-alive.ts';
import { median } from './lib/stats.ts';

export interface BenchAddressOptions {
  readonly busyEntries?: number;
  readonly requestsPerRound?: number;
  readonly connections?: number;
  readonly rounds?: number;
}

export interface PageRates {
  /** Median over rounds of busy requests/s ÷ small requests/s. */
  readonly ratio: number;
  readonly busyRps: number;
  readonly smallRps: number;
}

export interface BenchAddressResult {
  readonly busyEntries: number;
  readonly writeSeconds: number;
  readonly firstPage: PageRates;
  readonly samePageSize: PageRates;
  readonly deepPage: PageRates;
  /** Bytes of the busy address's default first page (body). */
  readonly pageBytes: number;
}

const SMALL_ENTRIES = 10;
const BATCH = 50_000;

/** `count` made-up txids, distinct for distinct (seed, i). */
function txids(seed: number, start: number, count: number): Uint8Array[] {
  return Array.from({ length: count }, (_, i) => {
    const txid = new Uint8Array(32);
    const view = new DataView(txid.buffer);
    view.setUint32(0, seed);
    view.setUint32(4, start + i);
    return txid;
  });
}

export async function benchAddress(options: BenchAddressOptions = {}): Promise<BenchAddressResult> {
  const busyEntries = options.busyEntries ?? 1_000_000;
  const rounds = { total: options.requestsPerRound ?? 2_000, connections: options.connections ?? 4, rounds: options.rounds ?? 11 };
  let result: BenchAddressResult | undefined;
  await withRpcNode(registerBlockchainMethods, async (node) => {
    const { db } = node.fixture.h;
    const store = new AddressStore(db.tables);
    const busy = p2wpkhScript(hash160(Uint8Array.of(1)));
    const small = p2wpkhScript(hash160(Uint8Array.of(2)));
    const started = performance.now();
    for (let start = 0; start < busyEntries; start += BATCH) {
      const count = Math.min(BATCH, busyEntries - start);
      db.write(() => store.append({ key: addressKey(busy), received: BigInt(count) * 1000n, sent: 0n }, txids(1, start, count)));
    }
    db.write(() => store.append({ key: addressKey(small), received: 10_000n, sent: 0n }, txids(2, 0, SMALL_ENTRIES)));
    const writeSeconds = (performance.now() - started) / 1000;

    const rest = await startRestServer(node, { rateLimit: 0 });
    try {
      const path = (script: Uint8Array, query = '') => `/rest/address/${scriptToAddress(script, node.ctx.params.address)}${query}`;
      const first = await check(rest, path(busy), busyEntries);
      await check(rest, path(small), SMALL_ENTRIES);
      const deep = `?from=${busyEntries - 1000}&to=${busyEntries - 990}`;
      await check(rest, path(busy, deep), busyEntries);
      result = {
        busyEntries,
        writeSeconds,
        firstPage: await compare(rest.port, path(busy), path(small), rounds),
        samePageSize: await compare(rest.port, path(busy, '?from=0&to=10'), path(small, '?from=0&to=10'), rounds),
        deepPage: await compare(rest.port, path(busy, deep), path(small, '?from=0&to=10'), rounds),
        pageBytes: first,
      };
    } finally {
      await rest.close();
    }
  });
  return result!;
}

/** Fails unless the answer is a page of the expected history; returns its size. */
async function check(rest: RestTestServer, path: string, entries: number): Promise<number> {
  const r = await rest.get(path);
  const json = r.json as { totalItems?: number; transactions?: string[] } | undefined;
  if (r.status !== 200 || json?.totalItems !== entries || json.transactions?.length === 0) {
    throw new Error(`${path} answered ${r.status}: ${r.text.slice(0, 200)}`);
  }
  return r.body.length;
}

interface Rounds {
  readonly total: number;
  readonly connections: number;
  readonly rounds: number;
}

async function compare(port: number, busyPath: string, smallPath: string, r: Rounds): Promise<PageRates> {
  const request = (path: string) => Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  const busy = request(busyPath);
  const small = request(smallPath);
  const rps = async (req: Buffer) => r.total / ((await driveKeepAlive(port, req, r.total, r.connections)) / 1000);
  await rps(small); // warm-up: JIT, sockets, page cache
  await rps(busy);
  const ratios: number[] = [];
  const busyRates: number[] = [];
  const smallRates: number[] = [];
  for (let round = 0; round < r.rounds; round++) {
    const busyFirst = round % 2 === 1;
    const a = await rps(busyFirst ? busy : small);
    const b = await rps(busyFirst ? small : busy);
    const [busyRate, smallRate] = busyFirst ? [a, b] : [b, a];
    ratios.push(busyRate / smallRate);
    busyRates.push(busyRate);
    smallRates.push(smallRate);
  }
  return { ratio: median(ratios), busyRps: median(busyRates), smallRps: median(smallRates) };
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const r = await benchAddress();
  const line = (what: string, p: PageRates) => `${what}: ${p.ratio.toFixed(2)} [${Math.round(p.busyRps)} vs ${Math.round(p.smallRps)} requests/s]`;
  console.log(`/rest/address first page, ${r.busyEntries.toLocaleString('en')}-transaction address / 10-transaction address (goal about 1.0):`);
  console.log(`    ${line('default page (50 vs 10 txids)', r.firstPage)}`);
  console.log(`    ${line('same page size (?from=0&to=10)', r.samePageSize)}`);
  console.log(`    ${line(`page ${(r.busyEntries - 1000).toLocaleString('en')} of the busy one vs the first of the small one`, r.deepPage)}`);
  console.log(
    `    a default page is ${r.pageBytes} bytes; ${r.busyEntries.toLocaleString('en')} index entries written in ${r.writeSeconds.toFixed(1)} s`,
  );
}
