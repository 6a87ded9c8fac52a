import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BlockHeader, REGTEST } from '@cs/consensus';
import { BlockIndexEntry, BlockStatus } from '../chain/block-index.ts';
import { BLOCK_DOWNLOAD_WINDOW, BLOCK_STALLING_TIMEOUT_MS, BlockDownload, MAX_BLOCKS_IN_TRANSIT_PER_PEER } from './block-download.ts';

/** A header chain of `length` blocks on the regtest genesis (only the links matter here). */
function headerChain(length: number): BlockIndexEntry[] {
  const genesis = BlockIndexEntry.child(REGTEST.genesis.header, null, 0);
  genesis.status = BlockStatus.VALID_HEADER | BlockStatus.HAVE_DATA;
  const chain = [genesis];
  for (let h = 1; h <= length; h++) {
    const prev = chain[h - 1];
    const header = new BlockHeader({ ...REGTEST.genesis.header, version: 4, prevHash: prev.hash, time: REGTEST.genesis.header.time + h });
    const e = BlockIndexEntry.child(header, prev, h);
    e.status = BlockStatus.VALID_HEADER;
    chain.push(e);
  }
  return chain;
}

test('blocks are handed out in height order, each to one peer, at most 16 per peer', () => {
  const chain = headerChain(100);
  const d = new BlockDownload({ tip: chain[0] });
  const first = d.plan(1, chain[100], 0).blocks.map((e) => e.height);
  const second = d.plan(2, chain[100], 0).blocks.map((e) => e.height);
  assert.deepEqual(
    first,
    Array.from({ length: MAX_BLOCKS_IN_TRANSIT_PER_PEER }, (_, i) => i + 1),
  );
  assert.deepEqual(
    second,
    Array.from({ length: MAX_BLOCKS_IN_TRANSIT_PER_PEER }, (_, i) => i + 17),
  );
  assert.deepEqual(d.plan(1, chain[100], 0).blocks, []);
  assert.equal(d.received(chain[3].hashHex), 1);
  assert.equal(d.received(chain[3].hashHex), null);
  chain[3].status |= BlockStatus.HAVE_DATA;
  assert.deepEqual(
    d.plan(1, chain[100], 0).blocks.map((e) => e.height),
    [33],
  );
  // A peer whose best block has no more work than our tip gets nothing.
  assert.deepEqual(d.plan(3, chain[0], 0).blocks, []);
  // A disconnected peer's blocks go to the next one that asks.
  d.forget(1);
  assert.deepEqual(
    d
      .plan(3, chain[100], 0)
      .blocks.map((e) => e.height)
      .slice(0, 3),
    [1, 2, 4],
  );
});

test('a peer holding the window start while another has nothing left inside the window is the staller', () => {
  const chain = headerChain(BLOCK_DOWNLOAD_WINDOW + 50);
  const best = chain.at(-1)!;
  const d = new BlockDownload({ tip: chain[0] });
  assert.equal(d.plan(1, best, 0).blocks[0].height, 1);
  // Peer 2 delivers everything it gets until the window is used up.
  for (;;) {
    const plan = d.plan(2, best, 0);
    if (plan.blocks.length === 0) {
      assert.equal(plan.staller, 1);
      break;
    }
    assert.equal(plan.staller, null);
    for (const e of plan.blocks) {
      d.received(e.hashHex);
      e.status |= BlockStatus.HAVE_DATA;
    }
  }
  assert.equal(d.inFlightCount(1), MAX_BLOCKS_IN_TRANSIT_PER_PEER);
  // Past the stall timeout the full window is still the staller's case: nothing moves, the caller drops peer 1.
  const late = d.plan(2, best, 10 * BLOCK_STALLING_TIMEOUT_MS);
  assert.deepEqual([late.moved, late.staller], [[], 1]);
  assert.equal(d.oldestRequest(1), 0);
  assert.equal(d.stallTimeoutMs, BLOCK_STALLING_TIMEOUT_MS);
  d.stallerDropped();
  d.stallerDropped();
  assert.equal(d.stallTimeoutMs, 4 * BLOCK_STALLING_TIMEOUT_MS);
  d.progressed();
  assert.equal(d.stallTimeoutMs, 2 * BLOCK_STALLING_TIMEOUT_MS);
});

test('blocks a peer withholds past the stall timeout move to a peer that has nothing else to fetch, before the window is full', () => {
  const chain = headerChain(100);
  const best = chain[100];
  const d = new BlockDownload({ tip: chain[0] });
  // Peer 1 is asked for 1..16 and never sends them; peer 2 delivers the other 84.
  assert.equal(d.plan(1, best, 0).blocks.length, MAX_BLOCKS_IN_TRANSIT_PER_PEER);
  for (let t = 0; ; t++) {
    const plan = d.plan(2, best, t);
    if (plan.blocks.length === 0) break;
    for (const e of plan.blocks) {
      d.received(e.hashHex);
      e.status |= BlockStatus.HAVE_DATA;
    }
  }
  // Not yet: the timeout has not passed, and the window is not full, so there is no staller either.
  assert.deepEqual(d.plan(2, best, BLOCK_STALLING_TIMEOUT_MS), { blocks: [], moved: [], staller: null });
  const plan = d.plan(2, best, BLOCK_STALLING_TIMEOUT_MS + 1);
  assert.deepEqual(
    plan.blocks.map((e) => e.height),
    Array.from({ length: MAX_BLOCKS_IN_TRANSIT_PER_PEER }, (_, i) => i + 1),
  );
  assert.deepEqual([...new Set(plan.moved.map((m) => m.from))], [1]);
  assert.equal(d.inFlightCount(1), 0);
  assert.equal(d.requestedFrom(chain[1].hashHex), 2);
  assert.equal(d.oldestRequest(2), BLOCK_STALLING_TIMEOUT_MS + 1);
  // The next move waits twice as long; a late copy from peer 1 still counts as the one expected.
  assert.equal(d.stallTimeoutMs, 2 * BLOCK_STALLING_TIMEOUT_MS);
  assert.equal(d.received(chain[1].hashHex), 2);
  // A peer never takes its own blocks over.
  assert.deepEqual(d.plan(2, best, 10 * BLOCK_STALLING_TIMEOUT_MS).moved, []);
});
