import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mine, withMempool } from '../../test/mempool-harness.ts';
import { RawBlockCache } from './block-cache.ts';

test('the block cache answers what the chain stores, keeps the most recently used blocks within its budget', async () => {
  await withMempool(async ({ chain }) => {
    await mine(chain);
    const entries = [1, 2, 3, 4].map((h) => chain.atHeight(h)!);
    const size = chain.readRawBlock(entries[0])!.length;
    // Room for two blocks (the fixture's blocks differ by a byte at most).
    const cache = new RawBlockCache(chain, 2 * size + 2);
    for (const e of entries) assert.deepEqual(cache.get(e), chain.readRawBlock(e));
    assert.ok(cache.bytes <= 2 * size + 2);
    // The last two are held: the same Buffer comes back; touching block 3 keeps it over block 4.
    const third = cache.get(entries[2]);
    assert.equal(cache.get(entries[2]), third);
    cache.get(entries[0]);
    assert.equal(cache.get(entries[2]), third);
    // A budget smaller than a block caches nothing.
    const none = new RawBlockCache(chain, 0);
    assert.notEqual(none.get(entries[0]), none.get(entries[0]));
    assert.equal(none.bytes, 0);
  });
});
