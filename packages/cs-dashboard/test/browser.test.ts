// The dashboard in a real headless browser (Debian's chromium driven by playwright-core; nothing
// downloads a browser) against every real program: csd, cs-pool, cs-bridge and cs-miner with its
// embedded engine on the generated tiny model. Every page loads without a console error, a block
// mined appears live on the explorer, and a question asked in the OPoI form is answered on
// screen. The form offers VERIFIABLE with the registered manifests and sends a REQUEST naming the
// bridge as executor; a VERIFIABLE request driven over RPC to a rejected answer shows its publish,
// auditor, verdict and outcome on its timeline, and its payout's outputs. Screenshots go to
// packages/cs-dashboard/test-artifacts/ (printed below).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, test } from 'node:test';
import { type Browser, type Page, chromium } from 'playwright-core';
import { API_KEY, BridgeProcess, type Chain, driveToPaid, eventually, startChain } from '../../cs-bridge/test/bridge-harness.ts';
import { tinyLlamaGguf } from '@cs/miner/gguf';
import { MinerProcess } from '../../cs-miner/test/miner-process.ts';
import { externalAddress } from '../../cs-pool/test/pool-harness.ts';
import { DashboardProcess } from './dashboard-harness.ts';
import { coinOf, sha256, stakedServer, verifiableToPayout } from './verifiable-chain.ts';

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
/** Served by the bridge (the form's VERIFIABLE requests) and by the auditor. */
const BRIDGE_MANIFEST = 'tiny-q8';
/** Served by an executor and the auditor the test drives over RPC; the bridge never sees it. */
const RPC_MANIFEST = 'tiny-rpc';
let bridgeAddress = '';
let rpcExecutor = '';
let auditor = '';
const consoleErrors: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cs-dashboard-browser-'));

/**
 * The background miner may have mined past regtest's stake renewal (100 blocks) since the test's
 * own stakes were made (the bridge renews its own): renewed, they are ACTIVE whatever the earlier
 * tests took.
 */
async function renewTestStakes(): Promise<void> {
  for (const address of [rpcExecutor, auditor]) await chain.node.call('renewopoistake', address);
  await chain.mine(1);
}

before(async () => {
  if (skip) return;
  mkdirSync(ARTIFACTS, { recursive: true });
  console.log(`screenshots: ${ARTIFACTS}`);
  chain = await startChain();
  const gguf = tinyLlamaGguf(7);
  const registrant = await coinOf(chain, 1);
  for (const id of [BRIDGE_MANIFEST, RPC_MANIFEST])
    await chain.node.call('registermodelmanifest', id, sha256(gguf), gguf.length, 4096, registrant.address);
  await chain.mine(1);
  // The bridge's address is staked here, serving the form's manifest; the bridge finds the stake.
  bridgeAddress = await stakedServer(chain, [BRIDGE_MANIFEST]);
  bridge = await BridgeProcess.create(chain, { OPOI_ADDRESSES: bridgeAddress, OPOI_SERVES: BRIDGE_MANIFEST, MIN_PAYOUT: '0.001' });
  await bridge.start();
  await eventually(async () => ((await bridge.api('/healthz')).status === 200 ? true : undefined), 'an active stake');
  rpcExecutor = await stakedServer(chain, [RPC_MANIFEST]);
  auditor = await stakedServer(chain, [RPC_MANIFEST, BRIDGE_MANIFEST]);
  const model = join(dir, 'tiny.gguf');
  writeFileSync(model, gguf);
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

test('the ask form offers VERIFIABLE: a registered manifest, a quorum and a fee, with the bridge as executor', { skip }, async () => {
  await renewTestStakes();
  await show('/opoi', '#opoi-manifests tbody tr', 'opoi-manifests');
  const manifests = await page.$$eval('#opoi-manifests tbody tr td:first-child', (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(manifests, [BRIDGE_MANIFEST, RPC_MANIFEST], 'the manifests listed, oldest first');
  assert.equal(await page.isVisible('#ask-form fieldset.verifiable'), false, 'OPEN first: no audit fields');
  await page.selectOption('#ask-form select[name=task_type]', 'VERIFIABLE');
  assert.equal(await page.isVisible('#ask-form input[name=model]'), false, 'the manifest replaces the model name');
  await page.selectOption('#ask-form select[name=manifest]', BRIDGE_MANIFEST);
  await page.fill('#ask-form textarea[name=prompt]', 'Once upon a time');
  await page.fill('#ask-form input[name=max_tokens]', '8');
  await page.fill('#ask-form input[name=audit_fee]', '0.002');
  await page.screenshot({ path: join(ARTIFACTS, 'ask-verifiable-form.png'), fullPage: true });
  await page.click('#ask-form button[type=submit]');
  const id = (await (await page.waitForSelector('#ask-result a[href^="#/opoi/"]', { timeout: 60_000 })).textContent())!;
  await chain.mine(1);
  const r = await chain.node.call<Record<string, unknown>>('getopoirequest', id);
  assert.deepEqual(
    [r.task_type, r.model, r.executor, r.audit_quorum, r.audit_fee, r.payment],
    ['VERIFIABLE', BRIDGE_MANIFEST, bridgeAddress, 1, 0.002, 0.05],
  );
  await page.waitForSelector('#ask-result #request-task-type:text("VERIFIABLE")', { timeout: 60_000 });
  const steps = await page.$$eval('#ask-result #timeline li', (lis) => lis.map((li) => li.getAttribute('data-step')));
  assert.deepEqual(steps, ['request', 'assignment', 'commit', 'reveal', 'winner', 'publish', 'auditors', 'verdicts', 'outcome', 'payout']);
  assert.deepEqual(consoleErrors, [], 'no console errors');
});

test('a VERIFIABLE answer rejected by its auditor: publish, auditor, verdict, outcome and payout on the timeline', {
  skip,
  timeout: 600_000,
}, async () => {
  // From here on only the test mines, so that each step lands in its window.
  await miner?.stop();
  await renewTestStakes();
  const { id, requester } = await verifiableToPayout(chain, {
    manifest: RPC_MANIFEST,
    executor: rpcExecutor,
    tokens: [17, 4, 99],
    text: ' Berlin.',
    verdict: 'invalid',
  });
  const r = await chain.node.call<{ payout_outputs: { address: string | null; amount: number }[] }>('getopoirequest', id);
  await show(`/opoi/${id}`, '#timeline li.done[data-step="payout"]', 'request-rejected');
  const done = await page.$$eval('#timeline li.done', (lis) => lis.map((li) => li.getAttribute('data-step')));
  // Nobody assigned it through the bridge: every chain step is done.
  assert.deepEqual(done, ['request', 'commit', 'reveal', 'winner', 'publish', 'auditors', 'verdicts', 'outcome', 'payout']);
  assert.equal(await page.textContent('#audit-outcome'), 'invalid');
  assert.equal(await page.textContent('#request-status'), 'REJECTED');
  assert.equal(await page.getAttribute('[data-step="verdicts"] .verdict', 'data-verdict'), 'invalid');
  assert.equal(await page.textContent('[data-step="auditors"] .auditor a'), auditor);
  const payout = (await page.textContent('[data-step="payout"]'))!;
  for (const o of r.payout_outputs) assert.ok(payout.includes(`${o.address ?? 'burned'} ${o.amount.toFixed(8)}`), `${o.address} in ${payout}`);
  assert.equal(r.payout_outputs[0].address, requester, 'the requester is refunded first');
  assert.ok((await page.textContent('[data-step="outcome"]'))!.includes("the winner's collateral 1.00000000 is forfeited"));
  assert.equal(await page.textContent('pre#answer'), ' Berlin.', 'the published answer');
  assert.deepEqual(consoleErrors, [], 'no console errors');
});
