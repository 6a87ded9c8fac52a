// The store on a real LMDB directory: a write computed from an old revision of a request is
// refused whole (nothing of its transaction lands), requests first seen on chain never overwrite
// one already stored, and everything is there after reopening.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BridgeStore, type RequestRecord, StaleRecordError } from './store.ts';

const dir = mkdtempSync(join(tmpdir(), 'cs-bridge-store-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const fresh: RequestRecord = {
  requestId: '5b1f1d2e-0000-4000-8000-000000000001',
  model: 'tiny',
  promptHash: 'ab'.repeat(32),
  maxTokens: 10,
  payment: 0.01,
  blockHeight: 5,
  stage: 'awaiting_prompt',
  prompt: null,
  assigned: null,
  passed: [],
  submission: null,
  updatedAt: 0,
};

test('stale writes are refused whole; new requests never overwrite; all survives a reopen', async () => {
  const store = new BridgeStore(join(dir, 'db'));
  await store.apply({ requests: [fresh] });
  const v1 = store.request(fresh.requestId)!;
  assert.equal(v1.rev, 1);
  await assert.rejects(store.apply({ requests: [fresh] }), StaleRecordError, 'a second insert of the same id is stale');

  await store.apply({ requests: [{ ...v1, prompt: 'hi', stage: 'queued' }] });
  const v2 = store.request(fresh.requestId)!;
  assert.deepEqual([v2.rev, v2.stage, v2.prompt], [2, 'queued', 'hi']);
  // Computed from revision 1: refused, and the balance in the same change is not written either.
  await assert.rejects(
    store.apply({ requests: [{ ...v1, stage: 'expired' }], balances: [{ wallet: 'w', pending: 5n, paid: 0n }] }),
    StaleRecordError,
  );
  assert.equal(store.request(fresh.requestId)!.stage, 'queued');
  assert.equal(store.balance('w').pending, 0n, 'nothing of a refused change is written');

  await store.apply({ newRequests: [{ ...fresh, note: 'from the chain' }] });
  assert.equal(store.request(fresh.requestId)!.prompt, 'hi', 'a request seen on chain again keeps what the bridge stored');
  await store.close();

  const reopened = new BridgeStore(join(dir, 'db'));
  assert.deepEqual([reopened.request(fresh.requestId)!.stage, reopened.request(fresh.requestId)!.rev], ['queued', 2]);
  await reopened.close();
});
