// The dashboard's pool page against a real csd and cs-pool that has found more blocks than one
// page holds: the server relays page and pageSize to the pool (and nothing else of the query), and
// in a real headless browser (Debian's chromium, as browser.test.ts) the blocks table shows one
// page of PAGE_SIZE rows and "older" shows the next, instead of every block on one page.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { type Browser, chromium } from 'playwright-core';
import type { Daemon } from '../../csd/test/daemon.ts';
import { type ApiBlock, PoolProcess, eventually, externalAddress, findBlock, startNode } from '../../cs-pool/test/pool-harness.ts';
import { StratumClient } from '../../cs-pool/test/stratum-client.ts';
import { PAGE_SIZE } from '../src/web/ui/paging.ts';
import { DashboardProcess } from './dashboard-harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const BLOCKS = PAGE_SIZE + 3;

let node: Daemon;
let pool: PoolProcess;
let dash: DashboardProcess;
let browser: Browser | null = null;
let client: StratumClient | null = null;

before(async () => {
  const started = await startNode();
  node = started.node;
  pool = new PoolProcess(node, started.zmq);
  await pool.start();
  const address = externalAddress();
  const c = await StratumClient.connect(pool.ports!.plain);
  client = c;
  await c.subscribe();
  await c.authorize(`${address}.rig`);
  for (let i = 0; i < BLOCKS; i++) await findBlock(node, c, `${address}.rig`);
  await eventually(async () => ((await pool.api<ApiBlock[]>('/api/blocks')).length === BLOCKS ? true : undefined), 'every block recorded');
  dash = new DashboardProcess({
    nodes: [{ name: 'node1', rpcUrl: `http://127.0.0.1:${node.rpcPort}`, rpcCookieFile: node.cookiePath }],
    pool: { apiUrl: `http://127.0.0.1:${pool.ports!.api}` },
  });
  await dash.start();
});

after(async () => {
  await browser?.close();
  client?.close();
  await dash?.cleanup();
  await pool?.cleanup();
  await node?.cleanup();
});

test("page and pageSize reach the pool's blocks and payments; other query parameters do not", async () => {
  const all = await pool.api<ApiBlock[]>('/api/blocks');
  const relayed = await dash.get<ApiBlock[]>('/api/pool/blocks?page=1&pageSize=5&status=orphaned');
  assert.equal(relayed.status, 200);
  assert.deepEqual(
    relayed.body.map((b) => b.hash),
    all.slice(5, 10).map((b) => b.hash),
  );
  assert.equal((await dash.get<ApiBlock[]>('/api/pool/blocks')).body.length, BLOCKS, 'without paging, the whole list');
  assert.deepEqual((await dash.get('/api/pool/payments?page=0&pageSize=5')).body, []);
  assert.equal((await dash.get('/api/pool/blocks?page=x')).status, 400, 'refused before the pool');
  assert.equal((await dash.get('/api/pool/blocks?pageSize=5000')).status, 400, "the pool's own refusal passes through");
  assert.equal((await dash.get('/api/pool/workers/history')).status, 200);
});

test('the pool page shows blocks a page at a time, older pages on demand', {
  skip: existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing`,
}, async () => {
  const all = await pool.api<ApiBlock[]>('/api/blocks');
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  await page.goto(`${dash.url}#/pool`);
  await page.waitForSelector('#pool-blocks tbody tr');
  const hashesShown = () => page.$$eval('#pool-blocks tbody tr td:nth-child(2) .hash', (spans) => spans.map((s) => s.getAttribute('title')));
  assert.deepEqual(
    await hashesShown(),
    all.slice(0, PAGE_SIZE).map((b) => b.hash),
  );
  assert.match((await page.textContent('#pool-blocks-pager'))!, new RegExp(`page 1 of 2 \\(${BLOCKS}\\)`));
  await page.click('#pool-blocks-pager button.older');
  await page.waitForFunction((n) => document.querySelectorAll('#pool-blocks tbody tr').length === n, BLOCKS - PAGE_SIZE);
  assert.deepEqual(
    await hashesShown(),
    all.slice(PAGE_SIZE).map((b) => b.hash),
  );
  assert.equal(await page.getAttribute('#pool-blocks-pager button.older', 'disabled'), '', 'no page after the last');
  await page.click('#pool-blocks-pager button.newer');
  await page.waitForFunction((n) => document.querySelectorAll('#pool-blocks tbody tr').length === n, PAGE_SIZE);
  assert.deepEqual(errors, []);
});
