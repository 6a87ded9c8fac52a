// cs-dashboard against a real csd, with the pool and bridge it is told about not running: the
// read-only whitelist, REST and the node's live feed relayed, programs that are down reported as
// down while everything else keeps working, /metrics, configuration errors, and no secret in
// its output.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WebSocket } from 'ws';
import { Daemon, freePort } from '../../csd/test/daemon.ts';
import { DashboardProcess, runDashboard } from './dashboard-harness.ts';

const BRIDGE_KEY = 'dashboard-test-key-0123456789';
let node: Daemon;
let dash: DashboardProcess;

before(async () => {
  const wsPort = await freePort();
  node = new Daemon({ args: [`-wsport=${wsPort}`, '-rest', '-rpcratelimit=0'] });
  await node.start();
  dash = new DashboardProcess({
    // Two entries for the one node, as a conf file for a network names each of its nodes.
    nodes: ['alpha', 'beta'].map((name) => ({
      name,
      rpcUrl: `http://127.0.0.1:${node.rpcPort}`,
      rpcUser: node.user,
      rpcPassword: node.password,
      wsUrl: `ws://127.0.0.1:${wsPort}`,
    })),
    pool: { apiUrl: `http://127.0.0.1:${await freePort()}` },
    bridge: { apiUrl: `http://127.0.0.1:${await freePort()}`, apiKey: BRIDGE_KEY },
  });
  await dash.start();
});

after(async () => {
  await dash?.cleanup();
  await node?.cleanup();
});

test('whitelisted RPC reaches the node; anything else is refused with 403 before it does', async () => {
  const count = await dash.post<{ result: number }>('/api/node/0/rpc', { method: 'getblockcount', params: [] });
  assert.deepEqual(count, { status: 200, body: { result: 0 } });
  const refused = await dash.post<{ error: string }>('/api/node/0/rpc', { method: 'getnewaddress', params: [] });
  assert.equal(refused.status, 403);
  assert.match(refused.body.error, /not on the dashboard's read-only list/);
  assert.equal((await dash.post('/api/node/0/rpc', { method: 'stop' })).status, 403, 'stop is not relayed');
  assert.equal(await node.call('getblockcount'), 0, 'the node is still running');
  const failed = await dash.post<{ error: { code: number } }>('/api/node/0/rpc', { method: 'getblockhash', params: [5] });
  assert.equal(failed.body.error.code, -8, "the node's own error comes back with its code");
  assert.deepEqual((await dash.post('/api/node/1/rpc', { method: 'getblockcount' })).body, { result: 0 }, 'the second node');
  assert.equal((await dash.post('/api/node/9/rpc', { method: 'getblockcount' })).status, 404, 'an unknown node');
});

test("REST is relayed with the node's status; paths outside /rest/ endpoints are not", async () => {
  const info = await dash.get<{ blocks: number; chain: string }>('/api/node/0/rest/chaininfo.json');
  assert.equal(info.status, 200);
  assert.equal(info.body.chain, 'regtest');
  assert.equal((await dash.get('/api/node/0/rest/block/00.json')).status, 400, "the node's 400 passes through");
  assert.equal((await dash.get('/api/node/0/rest/..%2F..%2Fetc')).status, 404);
  assert.equal((await dash.get('/api/node/0/rest/block/..%2F..%2F')).status, 404, 'no segment climbs out of /rest/');
});

test('a pool and a bridge that are down show as down; the node and the dashboard keep answering', async () => {
  const s = await dash.get<{ nodes: { up: boolean }[]; pool: { up: boolean; detail: string }; bridge: { up: boolean } }>('/api/status');
  assert.equal(s.body.nodes[0].up, true);
  assert.equal(s.body.pool.up, false);
  assert.match(s.body.pool.detail, /ECONNREFUSED/);
  assert.equal(s.body.bridge.up, false);
  const pool = await dash.get<{ error: string; program: string }>('/api/pool/pool/stats');
  assert.deepEqual([pool.status, pool.body.program], [502, 'pool']);
  assert.equal((await dash.get('/api/bridge/pending')).status, 502);
  assert.equal((await dash.get('/api/node/0/rest/chaininfo.json')).status, 200, 'still serving the node');
});

test("the node's new-blocks pushes reach a browser's /live socket", async () => {
  const ws = new WebSocket(new URL('/live', dash.url.replace('http', 'ws')));
  const pushes: { type: string; height?: number; node?: number; up?: boolean[] }[] = [];
  ws.on('message', (d) => pushes.push(JSON.parse(d.toString())));
  await new Promise((r) => ws.once('open', r));
  for (let i = 0; i < 600 && !pushes.some((p) => p.type === 'feeds' && p.up?.[0] && p.up?.[1]); i++) await new Promise((r) => setTimeout(r, 100));
  await node.call('generatetoaddress', 1, 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x');
  for (let i = 0; i < 600 && !pushes.some((p) => p.type === 'new-blocks'); i++) await new Promise((r) => setTimeout(r, 100));
  for (let i = 0; i < 600 && pushes.filter((p) => p.type === 'new-blocks').length < 2; i++) await new Promise((r) => setTimeout(r, 100));
  const blocks = pushes.filter((p) => p.type === 'new-blocks').map((p) => `node ${p.node} height ${p.height}`);
  assert.deepEqual(blocks.sort(), ['node 0 height 1', 'node 1 height 1'], "block 1 relayed once from each node's feed, tagged with the node's index");
  ws.close();
});

test('a /live handshake from another origin is refused', async () => {
  for (const origin of ['http://evil.example', 'null']) {
    const ws = new WebSocket(new URL('/live', dash.url.replace('http', 'ws')), { origin });
    const status = await new Promise<number>((resolve) => ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
    assert.equal(status, 403, `origin ${origin}`);
  }
  assert.equal((await dash.get('/api/config')).status, 200, 'the dashboard is still running');
});

test('the ask form is refused without a JSON body, and pages are served', async () => {
  const res = await fetch(new URL('/api/ask', dash.url), {
    method: 'POST',
    body: 'prompt=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  assert.equal(res.status, 415, 'a cross-site form post cannot reach the ask flow');
  const bad = await dash.post<{ error: string }>('/api/ask', { prompt: '', model: 'tiny', max_tokens: 5, payment: '0.05' });
  assert.deepEqual([bad.status, bad.body.error], [400, 'the prompt is empty']);
  const page = await dash.get<string>('/');
  assert.match(page.body, /<script type="module" src="\/app.js">/);
  const js = await fetch(new URL('/app.js', dash.url));
  assert.equal(js.status, 200);
  assert.ok((await js.text()).length > 10_000, 'the bundle holds the pages and uPlot');
});

test('/metrics counts answers by route and shows the node feed', async () => {
  const m = await dash.get<string>('/metrics');
  assert.match(m.body, /cs_dashboard_http_responses_total\{route="\/api\/node",status="200"\} \d+/);
  assert.match(m.body, /cs_dashboard_http_responses_total\{route="\/api\/node",status="403"\} \d+/);
  assert.match(m.body, /cs_dashboard_upstream_errors_total\{program="pool"\} \d+/);
  assert.match(m.body, /cs_dashboard_node_feed_up\{node="alpha"\} 1/);
});

test('no secret is ever logged: not the RPC password, not the bridge key', () => {
  assert.ok(dash.output.includes('cs-dashboard listening'), 'the log is there');
  assert.ok(!dash.output.includes(node.password), 'the RPC password is not in the output');
  assert.ok(!dash.output.includes(BRIDGE_KEY), 'the bridge key is not in the output');
});

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

test('a node killed shows as down while the dashboard keeps serving; its live feed comes back when it restarts', async () => {
  await node.kill('SIGKILL');
  const s = await dash.get<{ nodes: { up: boolean; detail: string }[] }>('/api/status');
  assert.equal(s.body.nodes[0].up, false);
  assert.match(s.body.nodes[0].detail, /alpha did not answer JSON-RPC/);
  const rpc = await dash.post<{ program: string }>('/api/node/0/rpc', { method: 'getblockcount' });
  assert.deepEqual([rpc.status, rpc.body.program], [502, 'node']);
  await until('the feed to be reported down', async () =>
    (await dash.get<string>('/metrics')).body.includes('cs_dashboard_node_feed_up{node="alpha"} 0'),
  );
  assert.equal((await dash.get('/')).status, 200, 'the pages are still served');

  await node.start();
  await until('the feed to be back', async () => (await dash.get<string>('/metrics')).body.includes('cs_dashboard_node_feed_up{node="alpha"} 1'));
  const back = await dash.post<{ result: number }>('/api/node/0/rpc', { method: 'getblockcount' });
  assert.deepEqual(back.body, { result: 1 }, 'the block mined before the kill is there');
});

test('configuration errors say what is wrong and exit 1', async () => {
  const none = await runDashboard([]);
  assert.equal(none.code, 1);
  assert.match(none.stderr, /give -conf=<file> or at least -rpcurl=<url>/);
  const missing = await runDashboard(['-conf=/nonexistent/dashboard.json']);
  assert.match(missing.stderr, /cannot read the conf file \/nonexistent\/dashboard.json: ENOENT/);
  const noAuth = await runDashboard(['-rpcurl=http://127.0.0.1:1']);
  assert.match(noAuth.stderr, /give rpcUser and rpcPassword, or rpcCookieFile/);
  const help = await runDashboard(['-help']);
  assert.deepEqual([help.code, help.stdout.includes('-conf=<file.json>')], [0, true]);
});
