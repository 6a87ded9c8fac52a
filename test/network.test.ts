// `npm run network` as a user runs it: a real npm process bringing up two csd nodes, cs-pool,
// cs-bridge and two cs-miners on free loopback ports with a temporary data directory. A question
// goes through the bridge API and is answered by a miner's embedded engine and paid on chain by
// the blocks the miners find; SIGINT stops everything; a second run resumes the same chain,
// request and credentials without funding or staking again; `down -purge` deletes the network;
// no process of either run is left behind. A program killed with -9 is reported with its log's
// tail and the rest of the network stops. A second question is asked in the dashboard's form in
// Debian's headless chromium (playwright-core) and its answer and payout show on screen.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { chromium } from 'playwright-core';
import { NETWORK_BIN, ROOT, freeBasePort, networkTests } from './network-harness.ts';

/** Commit window, reveal window and payout: a few dozen blocks found by CPU miners. */
const PAID_MS = 900_000;
const CHROMIUM = '/usr/bin/chromium';
if (!existsSync(CHROMIUM) && process.env.CI === 'true') throw new Error(`${CHROMIUM} is missing: CI must install Debian's chromium (.ci/run does)`);
const ARTIFACTS = join(ROOT, 'test-artifacts');

const { datadir, start, noneLeft } = networkTests('cs-network-test-');

let requestId = '';
let firstTip = 0;
let firstEnv: Record<string, string> = {};

/**
 * Asks `prompt` in the dashboard's OPoI form, as a person would, and waits until the page shows
 * the published answer and the payout step done; resolves with the request id and the answer.
 */
async function askInBrowser(dashboardUrl: string, prompt: string): Promise<{ id: string; answer: string }> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(m.text());
    });
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${dashboardUrl}#/opoi`);
    await page.fill('#ask-form textarea[name=prompt]', prompt);
    await page.fill('#ask-form input[name=max_tokens]', '8');
    await page.click('#ask-form button[type=submit]');
    const id = (await (await page.waitForSelector('#ask-result a[href^="#/opoi/"]', { timeout: 120_000 })).textContent()) ?? '';
    const answer = await page.waitForSelector('#ask-result pre#answer[data-published="yes"]', { timeout: PAID_MS });
    await page.waitForSelector('#ask-result #timeline li.done[data-step="payout"]', { timeout: PAID_MS });
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, 'network-ask-answered.png'), fullPage: true });
    assert.deepEqual(errors, [], 'no console errors on the dashboard');
    return { id, answer: (await answer.textContent()) ?? '' };
  } finally {
    await browser.close();
  }
}

test('npm run network comes up; questions asked through the bridge API and in the dashboard are answered and paid on chain', async () => {
  const basePort = await freeBasePort();
  const run = await start([`-baseport=${basePort}`]);
  firstEnv = run.bridgeEnv();
  assert.equal(statSync(join(datadir, 'bridge/.env')).mode & 0o077, 0, 'the bridge env file is owner-only');
  assert.ok(run.output.includes(firstEnv.OPOI_REQUESTER_API_KEY), 'the API key is printed for requesters');
  assert.ok(!run.output.includes(firstEnv.CSD_RPC_PASS), 'the node cookie is never printed');
  assert.equal(run.programPids().length, 8, 'two nodes, the pool, two bridges, two miners and the dashboard recorded');
  const dashboardUrl = `http://127.0.0.1:${basePort + 40}`;
  assert.ok(run.output.includes(`${dashboardUrl}/`), 'the dashboard URL is printed');

  requestId = await run.ask('What is two plus two?', 8);
  // Both questions are in flight at once: the blocks the miners find serve both.
  const inBrowser = existsSync(CHROMIUM) ? askInBrowser(dashboardUrl, 'Once upon a time') : null;
  // Awaited below; until then a failure must not count as an unhandled rejection.
  inBrowser?.catch(() => undefined);
  if (!inBrowser) console.log(`${CHROMIUM} is missing: the dashboard question is skipped (apt-get install chromium)`);
  await run.reach(requestId, 'paid', PAID_MS);
  const sub = (await run.bridgeApi<{ miner: string; token_count: number; response_hex: string }>(`/svc/opoi/submissions/${requestId}`)).body;
  assert.match(sub.miner, /\.miner1$/, 'answered by the miner behind bridge 1');
  assert.ok(sub.token_count >= 1 && sub.token_count <= 8, `token_count ${sub.token_count} within max_tokens`);
  const rpc = run.node1();
  try {
    const onChain = await rpc.call('getopoirequest', [requestId]);
    assert.deepEqual([onChain.status, onChain.winner, onChain.payout_status], ['FULFILLED', firstEnv.OPOI_ADDRESSES, 'confirmed']);
    const content = await rpc.call('getopoicontent', [requestId, 'RESPONSE']);
    assert.equal(content.content_hex, sub.response_hex, "the published answer is the miner's");
    if (inBrowser) {
      const asked = await inBrowser;
      const shown = await rpc.call('getopoirequest', [asked.id]);
      assert.deepEqual([shown.status, shown.payout_status], ['FULFILLED', 'confirmed'], 'the dashboard question is answered and paid on chain');
      const published = await rpc.call('getopoicontent', [asked.id, 'RESPONSE']);
      assert.equal(asked.answer, Buffer.from(published.content_hex, 'hex').toString('utf8'), 'the page shows the published answer');
    }
    firstTip = await rpc.call('getblockcount');
  } finally {
    rpc.close();
  }

  run.interrupt();
  // npm re-raises the SIGINT it got once its script has ended; cs-network's own lines say how it ended.
  assert.ok([0, 'SIGINT'].includes(await run.exited()), `npm run network ends on Ctrl-C:\n${run.output.slice(-2000)}`);
  assert.match(run.output, /cs-network: stopping csd node 1\ncs-network: stopped\n/, 'every program stopped, node 1 last');
  assert.doesNotMatch(run.output, /exited unexpectedly/, 'no program died');
  await noneLeft();
  assert.ok(!existsSync(join(datadir, 'run/pids.json')), 'the pid file is removed on a clean stop');
});

test('running it again resumes the same chain, request and credentials; down -purge deletes it', async () => {
  const run = await start();
  assert.match(run.output, /resuming the network/);
  assert.doesNotMatch(run.output, /mining to maturity|funding bridge|registering the manifest/, 'no new maturity mining or funding');
  assert.match(run.output, /bridge 1's address \S+ is staked \(ACTIVE\)/, "bridge 1's stake is found, not made again");
  assert.match(run.output, /bridge 2's address \S+ is staked \(ACTIVE\)/, "bridge 2's stake is found, not made again");
  const env = run.bridgeEnv();
  for (const key of ['OPOI_REQUESTER_API_KEY', 'OPOI_ADDRESSES', 'DATA_DIR', 'API_LISTEN_ADDR'])
    assert.equal(env[key], firstEnv[key], `${key} is the same`);

  const rpc = run.node1();
  try {
    assert.ok((await rpc.call('getblockcount')) >= firstTip, 'the chain tip is the same or higher');
    const onChain = await rpc.call('getopoirequest', [requestId]);
    assert.deepEqual([onChain.status, onChain.payout_status], ['FULFILLED', 'confirmed']);
  } finally {
    rpc.close();
  }
  assert.equal((await run.bridgeApi<{ stage: string }>(`/svc/opoi/submissions/${requestId}`)).body.stage, 'paid', 'the bridge still knows it paid');

  const down = spawnSync(process.execPath, [NETWORK_BIN, 'down', '-purge', `-datadir=${datadir}`], { encoding: 'utf8', timeout: 300_000 });
  assert.equal(down.status, 0, `down -purge succeeds: ${down.stdout}${down.stderr}`);
  assert.equal(await run.exited(), 0, 'the foreground run exits cleanly when stopped by down');
  await noneLeft();
  assert.ok(!existsSync(datadir), 'the data directory is deleted');
});

test('a program that dies is reported with the tail of its log, and the network stops', async () => {
  const run = await start([`-baseport=${await freeBasePort()}`]);
  const pids = JSON.parse(readFileSync(join(datadir, 'run/pids.json'), 'utf8')) as { programs: { name: string; pid: number }[] };
  process.kill(pids.programs.find((p) => p.name === 'bridge')!.pid, 'SIGKILL');
  assert.equal(await run.exited(), 1, 'npm run network exits with status 1');
  assert.match(run.output, /cs-network: cs-bridge exited unexpectedly \(signal SIGKILL\); stopping the network/);
  assert.match(run.output, /--- last lines of .*logs\/bridge\.log\n.*cs-bridge started/s, "the bridge's log tail is shown");
  assert.match(run.output, /stopping csd node 1\ncs-network: stopped/, 'the others are stopped');
  await noneLeft();
  const down = spawnSync(process.execPath, [NETWORK_BIN, 'down', '-purge', `-datadir=${datadir}`], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(down.status, 0, `down -purge deletes a stopped network: ${down.stdout}${down.stderr}`);
  assert.ok(!existsSync(datadir), 'the data directory is deleted');
});
