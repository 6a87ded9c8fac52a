// docs/api's OpenAPI documents against the running programs: every documented operation answers
// as documented on a real csd (-rest), cs-pool and cs-bridge, and every route each server's route
// table serves is documented.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { BridgeApi } from '../packages/cs-bridge/src/http/api.ts';
import { API_KEY, BridgeProcess, type Chain, fundedAddress, startChain } from '../packages/cs-bridge/test/bridge-harness.ts';
import { ApiServer } from '../packages/cs-pool/src/api/http.ts';
import { REST_ENDPOINTS } from '../packages/csd/src/rest/handler.ts';
import { BRIDGE_OPENAPI_JSON, POOL_OPENAPI_JSON, REST_OPENAPI } from '../scripts/api-files.ts';
import { checkDocumented, type OpenApiDoc, operations } from './openapi-check.ts';

const read = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as OpenApiDoc;
const restDoc = read(REST_OPENAPI);
const poolDoc = read(POOL_OPENAPI_JSON);
const bridgeDoc = read(BRIDGE_OPENAPI_JSON);

let chain: Chain;
let bridge: BridgeProcess;

before(async () => {
  chain = await startChain();
  const opoi = await fundedAddress(chain, 5);
  bridge = await BridgeProcess.create(chain, { OPOI_ADDRESSES: opoi.address, OPOI_STAKE_UTXO: opoi.utxo });
  await bridge.start();
});
after(async () => {
  await bridge?.cleanup();
  await chain?.pool.cleanup();
  await chain?.node.cleanup();
});

/** Both ways: each served route is documented, each documented operation is served. */
function assertSameRoutes(doc: OpenApiDoc, served: readonly { method: string; path: string }[], what: string): void {
  const key = (r: { method: string; path: string }) => `${r.method} ${r.path}`;
  assert.deepEqual(operations(doc).map(key).sort(), served.map(key).sort(), `${what}: the documented operations are the served routes`);
}

test('csd REST: every documented path answers as documented, every endpoint is documented', async () => {
  const node = chain.node;
  const tip = await node.call<string>('getbestblockhash');
  const block1 = await node.call<{ tx: string[] }>('getblock', await node.call<string>('getblockhash', 1), 1);
  const calls = await checkDocumented(restDoc, `http://127.0.0.1:${node.rpcPort}`, {
    hash: tip,
    txid: block1.tx[0],
    height: '1',
    count: '2',
    address: chain.payTo,
    outpoint: `${block1.tx[0]}-0`,
    request_id: randomUUID(),
    model_id: 'org/no-such-manifest.Q4',
  });
  const notOk = calls.filter((c) => c.status !== 200).map((c) => `${c.method} ${c.path} ${c.status}`);
  assert.deepEqual(
    notOk,
    ['GET /rest/opoi/request/{request_id}.json 404', 'GET /rest/opoi/audit/{request_id}.json 404', 'GET /rest/opoi/manifest/{model_id}.json 404'],
    'all but the unknown OPoI request, its audit and the unknown manifest answer 200',
  );
  for (const [name] of REST_ENDPOINTS) {
    assert.ok(
      Object.keys(restDoc.paths).some((p) => p.startsWith(`/rest/${name}/`) || p.startsWith(`/rest/${name}.`)),
      `the REST endpoint ${name} is documented`,
    );
  }
});

test('cs-pool API: every documented path answers as documented, every route is documented', async () => {
  assertSameRoutes(poolDoc, ApiServer.ROUTES.routes, 'cs-pool');
  const calls = await checkDocumented(poolDoc, `http://127.0.0.1:${chain.pool.ports!.api}`, { address: chain.payTo, id: 'cs-regtest' });
  assert.deepEqual(
    calls.filter((c) => c.status !== 200),
    [],
    'every pool route answers 200 for a known address',
  );
});

test('cs-bridge API: every documented path answers as documented, every route is documented, /openapi.json is the checked-in document', async () => {
  assertSameRoutes(bridgeDoc, BridgeApi.ROUTES.routes, 'cs-bridge');
  const base = `http://127.0.0.1:${bridge.apiPort}`;
  const unknown = randomUUID();
  const calls = await checkDocumented(bridgeDoc, base, { request_id: unknown }, (method) =>
    method === 'POST'
      ? { headers: { 'content-type': 'application/json', 'x-opoi-api-key': API_KEY }, body: JSON.stringify({ request_id: unknown, prompt: 'Hi?' }) }
      : {},
  );
  const statuses = Object.fromEntries(calls.map((c) => [`${c.method} ${c.path}`, c.status]));
  assert.equal(statuses['POST /svc/opoi/prompt'], 404, 'a prompt for a request not on chain is 404');
  assert.equal(statuses['GET /svc/opoi/submissions/{request_id}'], 404, 'an unknown submission is 404');
  assert.deepEqual(await (await fetch(`${base}/openapi.json`)).json(), bridgeDoc, 'the bridge serves the checked-in document');
});

test('the check fails on an answer that does not fit its document', async () => {
  const base = `http://127.0.0.1:${chain.node.rpcPort}`;
  const json = (schema: object) => ({ content: { 'application/json': { schema } } });
  const wrongSchema: OpenApiDoc = { paths: { '/rest/chaininfo.json': { get: { responses: { 200: json({ type: 'array' }) } } } } };
  await assert.rejects(checkDocumented(wrongSchema, base, {}), /fits the documented schema/, 'a body of another shape is caught');
  const wrongStatus: OpenApiDoc = { paths: { '/rest/block/{hash}.json': { get: { responses: { 200: json({}) } } } } };
  await assert.rejects(
    checkDocumented(wrongStatus, base, { hash: '00'.repeat(32) }),
    /a status the document lists/,
    'an undocumented status is caught',
  );
});
