import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TOKENS, withOpoiNode } from '../../../test/opoi-harness.ts';
import { startRestServer, type RestTestServer } from '../../../test/rest-harness.ts';

type Json = Record<string, unknown>;
interface Page {
  readonly total: number;
  readonly from: number;
  readonly count: number;
  readonly requests: Json[];
}

async function ok(rest: RestTestServer, path: string): Promise<unknown> {
  const res = await rest.get(path);
  assert.equal(res.status, 200, `${path}: ${res.text}`);
  assert.equal(res.headers.get('content-type'), 'application/json');
  return res.json;
}

async function fails(rest: RestTestServer, path: string, status: number, error: string): Promise<void> {
  const res = await rest.get(path);
  assert.equal(res.status, status, `${path}: ${res.text}`);
  assert.deepEqual(res.json, { error }, path);
}

test('/rest/opoi: one request with its commits, outcome and payout, and the requests of the chain a page at a time', async () => {
  await withOpoiNode(async (o) => {
    const { chain, params } = o.node.ctx;
    const rest = await startRestServer(o.node, { indexes: 'none' });
    const limited = await startRestServer(o.node, { indexes: 'none', rateLimit: 1, now: () => 0 });
    try {
      assert.deepEqual(await ok(rest, '/rest/opoi/requests.json'), { total: 0, from: 0, count: 0, requests: [] });

      // Two requests in one block (ordered by id), a third in the next; one staker answers the first.
      await o.stake();
      await o.mine();
      const r1 = o.request();
      const r2 = o.request();
      const [b12] = await o.mine();
      const r3 = o.request();
      await o.mine();
      const order = [r1, r2].sort((a, b) => (a.uuid < b.uuid ? -1 : 1)).concat(r3);

      const one = (await ok(rest, `/rest/opoi/request/${r1.uuid}.json`)) as Json;
      assert.deepEqual(
        {
          request_id: one.request_id,
          status: one.status,
          requester: one.requester,
          block_height: one.block_height,
          block_hash: one.block_hash,
          confirmations: one.confirmations,
          tx_hash: one.tx_hash,
          commits: one.commits,
          payout_status: one.payout_status,
          payout_txid: one.payout_txid,
        },
        {
          request_id: r1.uuid,
          status: 'PENDING',
          requester: o.requester.address,
          block_height: b12.height,
          block_hash: b12.hashHex,
          confirmations: 2,
          tx_hash: r1.txid,
          commits: [],
          payout_status: 'none',
          payout_txid: null,
        },
      );
      // No suffix is JSON too, and the UUID may be upper-case.
      assert.deepEqual(await ok(rest, `/rest/opoi/request/${r1.uuid.toUpperCase()}`), one);

      const all = (await ok(rest, '/rest/opoi/requests.json')) as Page;
      assert.equal(all.total, 3);
      assert.equal(all.count, 3);
      assert.deepEqual(
        all.requests.map((r) => r.request_id),
        order.map((r) => r.uuid),
      );
      assert.deepEqual(all.requests[order.indexOf(r1)], one);

      // Commit, reveal, resolution: FULFILLED with the staker as winner, the payout claimable.
      o.commit(r1.uuid, 'an answer');
      const [commitBlock] = await o.mine();
      await o.mineTo(commitBlock.height + params.opoi.commitWindow - 1);
      o.reveal(r1.uuid);
      await o.mineTo(commitBlock.height + params.opoi.commitWindow + params.opoi.revealWindow - 1);
      let fulfilled = (await ok(rest, `/rest/opoi/request/${r1.uuid}.json`)) as Json;
      assert.equal(fulfilled.status, 'FULFILLED');
      assert.equal(fulfilled.winner, o.staker.address);
      assert.equal(fulfilled.winner_token_count, TOKENS);
      assert.equal(fulfilled.payout_status, 'claimable');
      assert.equal((fulfilled.commits as Json[]).length, 1);
      assert.equal((fulfilled.commits as Json[])[0].revealed, true);

      // A payout in the mempool shows as pending, then confirmed once mined.
      const payout = o.payout(r1.uuid);
      fulfilled = (await ok(rest, `/rest/opoi/request/${r1.uuid}.json`)) as Json;
      assert.equal(fulfilled.payout_status, 'pending');
      assert.equal(fulfilled.payout_txid, payout);
      assert.equal(fulfilled.payout_height, null);
      const [payoutBlock] = await o.mine();
      fulfilled = (await ok(rest, `/rest/opoi/request/${r1.uuid}.json`)) as Json;
      assert.equal(fulfilled.payout_status, 'confirmed');
      assert.equal(fulfilled.payout_txid, payout);
      assert.equal(fulfilled.payout_height, payoutBlock.height);

      // The other two expire; filters and pages.
      await o.mineTo(b12.height + params.opoi.requestExpiry + 1);
      assert.equal(chain.opoi.request(r3.uuid.replaceAll('-', ''))!.status, 'EXPIRED');
      const expired = (await ok(rest, '/rest/opoi/requests.json?status=EXPIRED')) as Page;
      assert.deepEqual(
        expired.requests.map((r) => r.request_id),
        order.filter((r) => r !== r1).map((r) => r.uuid),
      );
      assert.deepEqual(
        ((await ok(rest, '/rest/opoi/requests.json?status=FULFILLED')) as Page).requests.map((r) => r.request_id),
        [r1.uuid],
      );
      assert.deepEqual(await ok(rest, '/rest/opoi/requests.json?status=PENDING'), { total: 0, from: 0, count: 0, requests: [] });
      const page = (await ok(rest, '/rest/opoi/requests.json?from=1&count=1')) as Page;
      assert.deepEqual(
        { total: page.total, from: page.from, count: page.count, ids: page.requests.map((r) => r.request_id) },
        { total: 3, from: 1, count: 1, ids: [order[1].uuid] },
      );
      assert.deepEqual(await ok(rest, '/rest/opoi/requests.json?from=3&count=1000'), { total: 3, from: 3, count: 0, requests: [] });
      const last = (await ok(rest, '/rest/opoi/requests?from=2&status=EXPIRED')) as Page;
      assert.deepEqual([last.total, last.count], [2, 0]);

      // Errors.
      await fails(rest, `/rest/opoi/request/${randomUUID()}.json`, 404, 'OPoI request not found');
      await fails(rest, '/rest/opoi/request/1234.json', 400, 'Invalid request_id: 1234 (a UUID, 8-4-4-4-12 hex digits)');
      await fails(
        rest,
        `/rest/opoi/request/${r1.uuid.replaceAll('-', '')}.json`,
        400,
        `Invalid request_id: ${r1.uuid.replaceAll('-', '')} (a UUID, 8-4-4-4-12 hex digits)`,
      );
      await fails(
        rest,
        '/rest/opoi/requests.json?status=DONE',
        400,
        'Invalid status: DONE (expected PENDING, PUBLISHING, AUDITING, FULFILLED, REJECTED, EXPIRED)',
      );
      await fails(
        rest,
        '/rest/opoi/requests.json?status=pending',
        400,
        'Invalid status: pending (expected PENDING, PUBLISHING, AUDITING, FULFILLED, REJECTED, EXPIRED)',
      );
      await fails(rest, '/rest/opoi/requests.json?from=-1', 400, 'Invalid from: -1 (a decimal from 0 to 2147483647)');
      await fails(rest, '/rest/opoi/requests.json?count=0', 400, 'Invalid count: 0 (a decimal from 1 to 1000)');
      await fails(rest, '/rest/opoi/requests.json?count=1001', 400, 'Invalid count: 1001 (a decimal from 1 to 1000)');
      await fails(rest, '/rest/opoi/requests.json?count=ten', 400, 'Invalid count: ten (a decimal from 1 to 1000)');
      const usage =
        'Invalid URI format. Expected /rest/opoi/request/<request_id>.json, /rest/opoi/requests.json, /rest/opoi/audit/<request_id>.json, ' +
        '/rest/opoi/manifest/<model_id>.json or /rest/opoi/manifests.json';
      for (const path of [
        '/rest/opoi.json',
        '/rest/opoi/request.json',
        '/rest/opoi/requests/1.json',
        `/rest/opoi/req/${r1.uuid}.json`,
        '/rest/opoi/audit.json',
        '/rest/opoi/manifest.json',
        '/rest/opoi/manifests/x.json',
      ]) {
        await fails(rest, path, 400, usage);
      }
      for (const suffix of ['bin', 'hex', 'xml']) {
        await fails(rest, `/rest/opoi/request/${r1.uuid}.${suffix}`, 404, 'output format not found (available: .json)');
        await fails(rest, `/rest/opoi/requests.${suffix}`, 404, 'output format not found (available: .json)');
      }

      // An OPEN request has no audit; manifests are by model id (which may hold '/', '.' and ':').
      await fails(rest, `/rest/opoi/audit/${r1.uuid}.json`, 404, 'OPoI audit not found (an OPEN request, or an answer not published yet)');
      await fails(rest, `/rest/opoi/audit/${randomUUID()}.json`, 404, 'OPoI request not found');
      await fails(rest, '/rest/opoi/audit/1234.json', 400, 'Invalid request_id: 1234 (a UUID, 8-4-4-4-12 hex digits)');
      assert.deepEqual(await ok(rest, '/rest/opoi/manifests.json'), []);
      const manifest = await o.node.call<{ txid: string }>('registermodelmanifest', 'org/qwen2.5:0.5b', 'ab'.repeat(32), 1000, 0, o.staker.address);
      await o.mine();
      const shown = await o.node.call('getmodelmanifest', 'org/qwen2.5:0.5b');
      assert.equal((shown as Json).txid, manifest.txid);
      assert.deepEqual(await ok(rest, '/rest/opoi/manifest/org/qwen2.5:0.5b.json'), shown);
      assert.deepEqual(await ok(rest, '/rest/opoi/manifest/org%2Fqwen2.5%3A0.5b.json'), shown, 'percent-encoded');
      assert.deepEqual(await ok(rest, '/rest/opoi/manifests.json'), [shown]);
      await fails(rest, '/rest/opoi/manifest/org/qwen2.5:0.5b', 404, 'output format not found (available: .json)');
      await fails(rest, '/rest/opoi/manifest/qwen9.json', 404, 'Model manifest not found');
      await fails(rest, '/rest/opoi/manifest/%E0%A4%A.json', 400, 'Invalid model_id: %E0%A4%A');
      await fails(
        rest,
        `/rest/opoi/manifest/${'x'.repeat(65)}.json`,
        400,
        `Invalid model_id: ${'x'.repeat(65)} (at most 64 characters: letters, digits and ._:/+-)`,
      );

      // The opoi group has its own budget, counted as the other endpoints' are.
      await ok(limited, '/rest/opoi/requests.json');
      const over = await limited.get(`/rest/opoi/request/${r1.uuid}.json`);
      assert.equal(over.status, 429);
      assert.deepEqual(over.json, { error: 'Rate limit exceeded' });
      assert.equal(over.headers.get('retry-after'), '60');
      await ok(limited, '/rest/chaininfo.json');
    } finally {
      await limited.close();
      await rest.close();
    }
  });
});
