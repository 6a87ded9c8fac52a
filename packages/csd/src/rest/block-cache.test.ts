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

test('a block the cache does not keep is leased in a pooled buffer, reused once released', async () => {
  await withMempool(async ({ chain }) => {
    await mine(chain);
    const [first, second] = [1, 2].map((h) => chain.atHeight(h)!);
    const cache = new RawBlockCache(chain, 0);
    const lease = cache.lease(first)!;
    assert.deepEqual(lease.bytes, chain.readRawBlock(first), 'the leased bytes are the stored block');
    // While the first is held, a second lease gets other memory...
    const other = cache.lease(second)!;
    assert.notEqual(other.bytes.buffer, lease.bytes.buffer, 'a held buffer is not handed out twice');
    other.release();
    lease.release();
    lease.release();
    // ...and after the release, the next read fills a returned buffer with the right block.
    const again = cache.lease(second)!;
    assert.ok([lease.bytes.buffer, other.bytes.buffer].includes(again.bytes.buffer), 'a released buffer is reused');
    assert.deepEqual(again.bytes, chain.readRawBlock(second), 'the reused buffer holds the block asked for');
    // A block the cache keeps is lent as the cached copy itself.
    const keeping = new RawBlockCache(chain);
    assert.equal(keeping.lease(first)!.bytes, keeping.get(first), 'a cached block is lent without a copy');
  });
});
