// The dashboard in a real headless browser (Debian's chromium driven by playwright-core; nothing
// downloads a browser) against every real program: csd, cs-pool, cs-bridge and cs-miner with its
// embedded engine on the generated tiny model. Every page loads without a console error, a block
// mined appears live on the explorer, and a question asked in the OPoI form is answered on
// screen. Screenshots go to packages/cs-dashboard/test-artifacts/ (printed below).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { type Browser, type Page, chromium } from 'playwright-core';
import { API_KEY, BridgeProcess, type Chain, driveToPaid, eventually, fundedAddress, startChain } from '../../cs-bridge/test/bridge-harness.ts';
import { tinyLlamaGguf } from '@cs/miner/gguf';
import { MinerProcess } from '../../cs-miner/test/miner-process.ts';
import { externalAddress } from '../../cs-pool/test/pool-harness.ts';
import { DashboardProcess } from './dashboard-harness.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = fileURLToPath(new URL('../test-artifacts/', import.meta.url));
const haveBrowser = existsSync(CHROMIUM);
if (!haveBrowser && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium (.ci/run does)`);
const skip = haveBrowser ? false : `${CHROMIUM} is missing: apt-get install chromium to run the browser tests`;

let chain: Chain;
let bridge: BridgeProcess;
let miner: MinerProcess | null = null;
let dash: DashboardProcess;
let browser: Browser;
let page: Page;
const consoleErrors: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cs-dashboard-browser-'));

before(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  console.log(`screenshots: ${ARTIFACTS}`);
  chain = await startChain();
  const opoi = await fundedAddress(chain, 5);
  bridge = await BridgeProcess.create(chain, { OPOI_ADDRESSES: opoi.address, OPOI_STAKE_UTXO: opoi.utxo, MIN_PAYOUT: '0.001' });
  await bridge.start();
  await eventually(async () => (bridge.output.includes('stake sent') ? true : undefined), 'the STAKE');
  await chain.mine(1);
  await eventually(async () => ((await bridge.api('/healthz')).status === 200 ? true : undefined), 'an active stake');
  const model = join(dir, 'tiny.gguf');
  writeFileSync(model, tinyLlamaGguf(7));
  miner = new MinerProcess([
    `-pool=stratum+tcp://127.0.0.1:${bridge.stratumPort}`,
    `-user=${externalAddress()}.rig1`,
    '-threads=1',
    '-algo=48_5',
    `-model=tiny=llama:${model}`,
    '-opoi-max-tokens=8',
    '-llama-threads=1',
  ]);
  await eventually(
    async () => ((await bridge.api<{ opoi_miners: number }>('/healthz')).body.opoi_miners === 1 ? true : undefined),
    "the miner's OPoI announcement",
    120_000,
  );
  dash = new DashboardProcess({
    nodes: [
      {
        name: 'node1',
        rpcUrl: `http://127.0.0.1:${chain.node.rpcPort}`,
        rpcUser: chain.node.user,
        rpcPassword: chain.node.password,
        wsUrl: chain.wsUrl,
      },
    ],
    pool: { apiUrl: `http://127.0.0.1:${chain.pool.ports!.api}` },
    bridge: { apiUrl: `http://127.0.0.1:${bridge.apiPort}`, apiKey: API_KEY },
  });
  await dash.start();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(`${page.url()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => consoleErrors.push(`${page.url()}: ${e.message}`));
});

after(async () => {
  await browser?.close();
  await dash?.cleanup();
  await miner?.stop();
  await bridge?.cleanup();
  await chain?.pool.cleanup();
  await chain?.node.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

async function show(hash: string, ready: string, shot: string): Promise<void> {
  await page.goto(`${dash.url}#${hash}`);
  await page.waitForSelector(ready, { timeout: 60_000 });
  await page.screenshot({ path: join(ARTIFACTS, `${shot}.png`), fullPage: true });
}

test('every page loads without console errors', { skip }, async () => {
  const tip = await chain.node.call<string>('getbestblockhash');
  const block = await chain.node.call<{ tx: string[] }>('getblock', tip, 1);
  await show('/', '#recent-blocks tr', 'explorer');
  await show(`/block/${tip}`, 'ol.txs li', 'block');
  await show(`/tx/${block.tx[0]}`, 'text=Outputs', 'transaction');
  await show(`/address/${chain.payTo}`, 'text=Transactions (newest first)', 'address');
  await show('/mempool', '#mempool-count', 'mempool');
  await show('/peers', 'text=Peers', 'peers');
  await show('/pool', '#pool-blocks', 'pool');
  await show('/opoi', '#opoi-stakes tbody tr', 'opoi');
  await page.waitForSelector('.badge.up[data-program="cs-pool"]');
  await page.waitForSelector('.badge.up[data-program="cs-bridge"]');
  assert.deepEqual(consoleErrors, [], 'no console errors');
});

test('a block mined appears live on the explorer', { skip }, async () => {
  await show('/', '#recent-blocks tr', 'explorer-before');
  const [hash] = await chain.node.call<string[]>('generatetoaddress', 1, chain.payTo);
  // No reload: the row comes from the node's new-blocks push relayed over /live.
  await page.waitForSelector(`#recent-blocks a[href="#/block/${hash}"]`, { timeout: 60_000 });
  await page.screenshot({ path: join(ARTIFACTS, 'explorer-live-block.png'), fullPage: true });
  // The miner finds blocks meanwhile: none of those pushed while the page was open is missing.
  const heights = await page.$$eval('#recent-blocks tr', (trs) => trs.map((tr) => Number(tr.getAttribute('data-height'))));
  assert.deepEqual(
    heights,
    heights.map((_, i) => heights[0] - i),
    'the latest blocks are consecutive, newest first',
  );
  assert.deepEqual(consoleErrors, [], 'no console errors');
});

test('a question asked in the form is answered on screen, with its whole lifecycle', { skip, timeout: 600_000 }, async () => {
  await show('/opoi', '#ask-form', 'ask-form');
  await page.fill('#ask-form textarea[name=prompt]', 'Once upon a time');
  await page.fill('#ask-form input[name=max_tokens]', '8');
  await page.click('#ask-form button[type=submit]');
  const sent = await page.waitForSelector('#ask-result a[href^="#/opoi/"]', { timeout: 60_000 });
  const id = (await sent.textContent())!;
  await chain.mine(1);
  const resolved = await driveToPaid(chain, bridge, id);
  assert.equal(resolved.status, 'FULFILLED');
  const content = await chain.node.call<{ content_hex: string }>('getopoicontent', id, 'RESPONSE');
  const answer = await page.waitForSelector('#ask-result pre#answer[data-published="yes"]', { timeout: 60_000 });
  assert.equal(await answer.textContent(), Buffer.from(content.content_hex, 'hex').toString('utf8'), 'the published answer is on screen');
  await page.waitForFunction(() => document.querySelectorAll('#ask-result #timeline li.done').length === 7, undefined, { timeout: 60_000 });
  const steps = await page.$$eval('#ask-result #timeline li', (lis) => lis.map((li) => li.getAttribute('data-step')));
  assert.deepEqual(steps, ['request', 'assignment', 'commit', 'reveal', 'winner', 'publish', 'payout']);
  await page.screenshot({ path: join(ARTIFACTS, 'ask-answered.png'), fullPage: true });
  await show(`/opoi/${id}`, '#timeline li.done[data-step="payout"]', 'request');
  assert.deepEqual(consoleErrors, [], 'no console errors');
});
