// What peer-to-peer sync needs from the chain: header-only entries, locators, and blocks that
// arrive out of order being connected in order once their ancestors are all there.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockHeader, type Block } from '@cs/consensus';
import { nextBlock, openHarness } from '../../test/chain-harness.ts';

async function sourceChain(length: number): Promise<Block[]> {
  const h = await openHarness();
  try {
    const blocks: Block[] = [];
    for (let i = 0; i < length; i++) {
      const block = nextBlock(h.chain);
      assert.equal((await h.chain.processBlock(block)).status, 'accepted');
      blocks.push(block);
    }
    return blocks;
  } finally {
    await h.close();
  }
}

test('headers are stored without their blocks, survive a restart, and count as the best header', async () => {
  const blocks = await sourceChain(20);
  const h = await openHarness();
  try {
    const { last, error } = h.chain.acceptHeaders(blocks.map((b) => b.header));
    assert.equal(error, null);
    assert.equal(last?.height, 20);
    assert.equal(h.chain.height, 0);
    assert.equal(h.chain.bestHeader.height, 20);
    assert.ok(
      h.chain.chainTips().some((t) => t.status === 'headers-only' && t.entry.height === 20),
      'no headers-only tip at height 20',
    );
    // Known headers again: accepted without change.
    assert.equal(h.chain.acceptHeaders(blocks.slice(0, 5).map((b) => b.header)).last?.height, 5);
    await h.reopen();
    assert.equal(h.chain.bestHeader.height, 20);
    assert.equal(h.chain.height, 0);
  } finally {
    await h.close();
  }
});

test('blocks arriving in reverse order are kept and connected in order once the first arrives', async () => {
  const blocks = await sourceChain(12);
  const h = await openHarness();
  try {
    h.chain.acceptHeaders(blocks.map((b) => b.header));
    for (const block of blocks.slice(1).reverse()) {
      assert.equal((await h.chain.processBlock(block)).status, 'inconclusive');
      assert.equal(h.chain.height, 0);
    }
    assert.ok(!h.chain.hasChainData(h.chain.entry(blocks[11].header.hashHex)!), 'block 11 has data it was never given');
    assert.equal((await h.chain.processBlock(blocks[0])).status, 'accepted');
    assert.equal(h.chain.height, 12);
    assert.equal(h.chain.tip.hashHex, blocks[11].header.hashHex);
  } finally {
    await h.close();
  }
});

test('a restart keeps blocks stored out of order and connects them when the gap is filled', async () => {
  const blocks = await sourceChain(6);
  const h = await openHarness();
  try {
    h.chain.acceptHeaders(blocks.map((b) => b.header));
    for (const block of blocks.slice(2)) await h.chain.processBlock(block);
    await h.reopen();
    assert.equal(h.chain.height, 0);
    await h.chain.processBlock(blocks[0]);
    assert.equal(h.chain.height, 1);
    await h.chain.processBlock(blocks[1]);
    assert.equal(h.chain.height, 6);
  } finally {
    await h.close();
  }
});

test('header checks: an unknown parent or a wrong difficulty stops the batch at that header', async () => {
  const blocks = await sourceChain(3);
  const h = await openHarness();
  try {
    const orphan = h.chain.acceptHeaders([blocks[1].header]);
    assert.equal(orphan.error?.reason, 'prev-blk-not-found');
    assert.equal(orphan.last, null);
    const bad = new BlockHeader({ ...blocks[1].header, version: blocks[1].header.version, bits: 0x1d00ffff });
    const result = h.chain.acceptHeaders([blocks[0].header, bad]);
    assert.equal(result.last?.height, 1);
    assert.ok(result.error, 'a header with the wrong bits was accepted');
    assert.equal(h.chain.bestHeader.height, 1);
  } finally {
    await h.close();
  }
});

test('a locator is dense near the tip, sparse further back, ends at genesis, and finds the fork', async () => {
  const blocks = await sourceChain(40);
  const h = await openHarness();
  try {
    for (const b of blocks) await h.chain.processBlock(b);
    const locator = h.chain.locator();
    assert.equal(Buffer.from(locator[0]).toString('hex'), Buffer.from(h.chain.tip.hash).toString('hex'));
    assert.equal(Buffer.from(locator.at(-1)!).toString('hex'), Buffer.from(h.chain.atHeight(0)!.hash).toString('hex'));
    assert.ok(locator.length < 40 && locator.length > 10, `locator of ${locator.length} hashes`);
    const heights = locator.map((hash) => h.chain.entry(Buffer.from(hash).reverse().toString('hex'))!.height);
    assert.deepEqual(heights.slice(0, 11), [40, 39, 38, 37, 36, 35, 34, 33, 32, 31, 30]);
    // A locator of unknown hashes ending in one of ours finds that block; none at all finds genesis.
    assert.equal(h.chain.findLocatorFork([new Uint8Array(32).fill(7), h.chain.atHeight(17)!.hash]).height, 17);
    assert.equal(h.chain.findLocatorFork([]).height, 0);
  } finally {
    await h.close();
  }
});
