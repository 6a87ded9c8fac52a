import { test } from 'node:test';
import pino from 'pino';
import assert from 'node:assert/strict';
import { hashToHex, type Block, type Transaction } from '@cs/consensus';
import { OP_TRUE, nextBlock, openHarness, spendOpTrue, type Harness } from '../../test/chain-harness.ts';
import type { Chain } from './chainstate.ts';
import { CoinTable } from './coin-table.ts';
import { CoinsCache, packChanges, unpackChanges } from './coins-cache.ts';
import { CoinsWriter, type WriteOutcome } from './coins-writer.ts';
import { coinKey, encodeCoin, encodeCoinScratch, latin1, type Coin } from './coins.ts';

const coin = (value: bigint, height = 1): Coin => ({ value, scriptPubKey: OP_TRUE, height, coinbase: false });
const key = (n: number) => coinKey({ txid: new Uint8Array(32).fill(n), vout: n });
const id = (n: number) => latin1(key(n));

test('a cached coin reads back equal, whatever its script length, amount and height', async () => {
  const h = await openHarness();
  try {
    const cache = new CoinsCache(h.db.tables.coins);
    // Up to 50 value bytes sit in the table's slot; longer ones beside it.
    const scripts = [0, 1, 22, 34, 40, 41, 252, 253, 300, 10_000].map((n) => Uint8Array.from({ length: n }, (_, i) => (i * 7 + n) & 0xff));
    let n = 0;
    const added: Coin[] = [];
    for (const scriptPubKey of scripts) {
      for (const [value, height, coinbase] of [
        [0n, 0, false],
        [1n, 1, true],
        [2_100_000_000_000_000n, 0x7fffffff, true],
        [123_456_789n, 1_234_567, false],
      ] as const) {
        const c: Coin = { value, scriptPubKey, height, coinbase };
        assert.deepEqual(Buffer.from(encodeCoinScratch(c)), encodeCoin(c), `bytes of ${value}/${height}/${scriptPubKey.length}`);
        cache.add(id(++n), c);
        added.push(c);
      }
    }
    // Read back once all are in: a value kept beside the table must not share the encoder's buffer.
    added.forEach((c, i) => assert.deepEqual(cache.get(key(i + 1)), c, `read back ${c.value}/${c.height}/${c.scriptPubKey.length}`));
  } finally {
    await h.close();
  }
});

test('the cache answers for its changes and writes only what the table must learn', async () => {
  const h = await openHarness();
  try {
    const table = h.db.tables.coins;
    h.db.write(() => table.put(key(1), encodeCoin(coin(100n))));
    const cache = new CoinsCache(table);

    assert.equal(cache.get(key(1))?.value, 100n, 'a stored coin is read through');
    cache.spend(id(1));
    assert.equal(cache.get(key(1)), undefined, 'a spent stored coin is gone before the write');
    cache.add(id(2), coin(200n));
    cache.add(id(3), coin(300n));
    cache.spend(id(3));
    assert.equal(cache.get(key(2))?.value, 200n, 'a created coin is answered from the cache');
    assert.equal(cache.size, 2, 'a coin created and spent in the cache leaves nothing behind');
    assert.equal(table.get(key(1))?.length, encodeCoin(coin(100n)).length, 'nothing reaches the table before write()');

    h.db.write(() => cache.write());
    cache.clear();
    assert.equal(cache.size, 0, 'cleared');
    assert.equal(table.get(key(1)), undefined, 'the spent stored coin is removed');
    assert.deepEqual(table.get(key(2)), encodeCoin(coin(200n)), 'the created coin is stored');
    assert.equal(table.get(key(3)), undefined, 'the coin created and spent between writes never reaches the table');

    // Spent then created again under the same key: the table's old value must be overwritten.
    cache.spend(id(2));
    cache.add(id(2), coin(222n));
    h.db.write(() => cache.write());
    assert.deepEqual(table.get(key(2)), encodeCoin(coin(222n)), 'overwritten');
  } finally {
    await h.close();
  }
});

test('changes handed to the writer thread are read through until written; a failed batch comes back beneath newer changes', async () => {
  const h = await openHarness();
  const outcomes: WriteOutcome[] = [];
  const writer = new CoinsWriter(h.db.path, (o) => outcomes.push(o));
  try {
    const table = h.db.tables.coins;
    const stored = (n: number) => table.get(key(n))?.toString('hex');
    h.db.write(() => {
      table.put(key(1), encodeCoin(coin(100n)));
      table.put(key(2), encodeCoin(coin(200n)));
    });
    const cache = new CoinsCache(table);
    cache.spend(id(1));
    cache.add(id(3), coin(300n));
    cache.add(id(4), coin(400n));
    // Packing for the writer thread: every state, a value too long for a slot, every byte value.
    const sample = new CoinTable();
    const everyByte = Uint8Array.from({ length: 256 }, (_, i) => i);
    sample.set(key(1), 0x53, new Uint8Array(0));
    sample.set(key(3), 0x46, encodeCoin(coin(300n)));
    sample.set(
      Uint8Array.from({ length: 36 }, (_, i) => 255 - i),
      0x44,
      everyByte,
    );
    assert.deepEqual(
      unpackChanges(packChanges(sample)),
      new Map([
        [id(1), ''],
        [id(3), `F${latin1(encodeCoin(coin(300n)))}`],
        [latin1(Uint8Array.from({ length: 36 }, (_, i) => 255 - i)), `D${latin1(everyByte)}`],
      ]),
      'packing for the writer thread round-trips',
    );

    writer.start(cache.detach(), { key: 'coins', value: Buffer.from('at-1') }, 1);
    assert.equal(cache.size, 0, 'the detached changes are no longer the cache’s to write');
    assert.throws(() => h.db.write(() => cache.write()), /being written/, 'nothing is written over a batch in flight');
    // Newer changes, on top of the batch: spend a coin it adds, re-create the one it removes.
    assert.equal(cache.get(key(3))?.value, 300n, 'a coin of the batch in flight is read through');
    assert.equal(cache.get(key(1)), undefined, 'a removal of the batch in flight is read through');
    cache.spend(id(3));
    cache.add(id(1), coin(111n));
    writer.settle();
    assert.deepEqual(
      outcomes.map((o) => [o.coins, o.height, o.error]),
      [[3, 1, null]],
      'the batch landed',
    );
    cache.written();
    h.db.resetReadTxn();
    assert.equal(stored(1), undefined, 'removed by the writer thread');
    assert.equal(stored(3), encodeCoin(coin(300n)).toString('hex'), 'added by the writer thread');
    assert.equal(h.db.getMeta('coins')?.toString(), 'at-1', 'with its meta record, in the same transaction');
    h.db.write(() => cache.write());
    cache.clear();
    assert.deepEqual(
      [1, 2, 3, 4].map(stored),
      [coin(111n), coin(200n), undefined, coin(400n)].map((c) => c && encodeCoin(c).toString('hex')),
    );

    // A meta key LMDB refuses (lmdb-js allows 1,978 bytes) fails the whole batch: it is cached again, and
    // a coin added since as fresh over a removal in the failed batch is overwritten in the table instead.
    cache.spend(id(2));
    cache.add(id(5), coin(500n));
    writer.start(cache.detach(), { key: 'x'.repeat(4000), value: Buffer.from('at-2') }, 2);
    cache.add(id(2), coin(222n));
    cache.spend(id(5));
    writer.settle();
    assert.match(outcomes[1].error ?? '', /./, 'the writer thread reports the failure');
    cache.restore();
    h.db.resetReadTxn();
    assert.equal(h.db.getMeta('coins')?.toString(), 'at-1', 'nothing of the failed batch landed');
    assert.equal(cache.get(key(2))?.value, 222n, 'the newer change wins');
    assert.equal(cache.get(key(5)), undefined, 'a coin of the failed batch spent since stays spent');
    cache.spend(id(2));
    h.db.write(() => cache.write());
    cache.clear();
    assert.deepEqual([2, 5].map(stored), [undefined, undefined], 'a coin re-created over the failed removal and spent again is gone from the table');
  } finally {
    await writer.close();
    await h.close();
  }
});

/** Every coin of the chain's UTXO set, comparable with deepEqual. */
function utxoSet(chain: Chain): string[] {
  return [...chain.coins()].map(
    ({ key, coin }) => `${key.toString('hex')} ${coin.value} ${hashToHex(coin.scriptPubKey)} ${coin.height} ${coin.coinbase}`,
  );
}

/**
 * A chain with spends in every block after maturity: of stored coinbases, of outputs created a
 * few blocks earlier (inside a cache batch) and of outputs created in the same block.
 */
async function buildBlocks(spendBlocks: number): Promise<Block[]> {
  const h = await openHarness();
  try {
    const { chain } = h;
    const accept = async (block: Block) => assert.equal((await chain.processBlock(block)).status, 'accepted');
    for (let i = 0; i < 101; i++) await accept(nextBlock(chain));
    let previous: Transaction | null = null;
    for (let b = 0; b < spendBlocks; b++) {
      const cb = chain.readBlock(chain.atHeight(b + 1)!)!.txs[0];
      const value = cb.outputs[0].value;
      const fan = spendOpTrue(
        cb,
        0,
        [0n, 1n, 2n].map(() => ({ value: value / 4n, scriptPubKey: OP_TRUE })),
      );
      const inBlock = spendOpTrue(fan, 2, [{ value: value / 4n - 1000n, scriptPubKey: OP_TRUE }]);
      const txs = [fan, inBlock];
      if (previous) txs.push(spendOpTrue(previous, 1, [{ value: value / 4n - 1000n, scriptPubKey: OP_TRUE }]));
      const fees = value - (3n * value) / 4n + BigInt(txs.length - 1) * 1000n;
      await accept(nextBlock(chain, { txs, fees }));
      previous = fan;
    }
    return Array.from({ length: chain.height }, (_, i) => chain.readBlock(chain.atHeight(i + 1)!)!);
  } finally {
    await h.close();
  }
}

/** The UTXO set after each of `heights`, from a chain that connects `blocks` one at a time at its tip. */
async function referenceSets(blocks: Block[], heights: number[]): Promise<Map<number, string[]>> {
  const h = await openHarness();
  const sets = new Map<number, string[]>();
  try {
    for (const block of blocks) {
      assert.equal((await h.chain.processBlock(block)).status, 'accepted');
      if (heights.includes(h.chain.height)) sets.set(h.chain.height, utxoSet(h.chain));
    }
    return sets;
  } finally {
    await h.close();
  }
}

const storedCoinsAt = (h: Harness) => hashToHex(h.db.getMeta('coins')!);

const caches: [string, { coinsCacheBytes?: number; backgroundWriteCoins?: number }][] = [
  ['the default cache', {}],
  ['a cache of one byte', { coinsCacheBytes: 1 }],
  ['the default cache written on the writer thread', { backgroundWriteCoins: 1 }],
  ['a cache of one byte written on the writer thread', { coinsCacheBytes: 1, backgroundWriteCoins: 1 }],
];
for (const [label, { coinsCacheBytes, backgroundWriteCoins }] of caches) {
  test(`catching up with ${label}: coins wait in memory, a crash replays them, a reorg writes them first`, async () => {
    const blocks = await buildBlocks(12);
    const total = blocks.length;
    const ref = await referenceSets(blocks, [total - 8, total - 3, total]);
    // The chain's debug lines, to see which thread wrote each batch.
    const writes: string[] = [];
    const log = pino({ level: 'debug' }, { write: (line: string) => void writes.push(line) });
    const h = await openHarness({ coinsCacheBytes, backgroundWriteCoins, log });
    try {
      // Headers first, as a sync gets them: every block connected below is behind the best header.
      assert.equal(h.chain.acceptHeaders(blocks.map((b) => b.header)).last?.height, total);
      for (const block of blocks.slice(0, total - 3)) assert.equal((await h.chain.processBlock(block)).status, 'accepted');
      const cached = h.chain.coinsCacheUsage.coins;
      const byWriter = writes.filter((l) => l.includes('"thread":"writer"')).length;
      if (backgroundWriteCoins === 1 && coinsCacheBytes === 1)
        assert.ok(byWriter >= 3, `every other block's batch goes to the writer thread, not ${byWriter}`);
      if (backgroundWriteCoins === undefined) assert.equal(byWriter, 0, 'small batches are written on the connecting thread');
      if (coinsCacheBytes === undefined) {
        assert.ok(cached > 0, 'coins wait in the cache while catching up');
        assert.notEqual(storedCoinsAt(h), h.chain.tip.hashHex, 'the stored UTXO set is behind the tip');
      } else {
        assert.ok(cached <= 10, `a one-byte cache holds at most the last block's changes, not ${cached}`);
      }
      assert.deepEqual(
        h.chain.getCoin({ txid: blocks[total - 4].txs[1].txid, vout: 1 })?.value,
        blocks[total - 4].txs[1].outputs[1].value,
        'a coin created in the batch',
      );

      await h.crash();
      assert.equal(h.chain.height, total - 3, 'the tip survives the crash');
      assert.equal(storedCoinsAt(h), h.chain.tip.hashHex, 'the load replayed the UTXO set up to the tip');
      assert.equal(h.chain.coinsCacheUsage.coins, 0, 'and wrote it');
      assert.deepEqual(utxoSet(h.chain), ref.get(total - 3), 'the replayed UTXO set is the one connecting block by block gives');

      // The headers are stored, so the crashed node is still behind its best header: it batches again.
      await h.chain.invalidateBlock(blocks[total - 9].header.hashHex);
      assert.equal(h.chain.height, total - 9, 'invalidateblock disconnected down to the parent');
      await h.chain.reconsiderBlock(blocks[total - 9].header.hashHex);
      assert.equal(h.chain.height, total - 3, 'reconsiderblock connected back');
      for (const block of blocks.slice(total - 3)) assert.equal((await h.chain.processBlock(block)).status, 'accepted');
      assert.equal(h.chain.coinsCacheUsage.coins, 0, 'at the best header every change is written (or being written)');
      assert.deepEqual(utxoSet(h.chain), ref.get(total), 'the same UTXO set as connecting block by block');
      assert.equal(storedCoinsAt(h), h.chain.tip.hashHex, 'with the tip');

      await h.chain.reindex();
      assert.equal(h.chain.coinsCacheUsage.coins, 0, 'reindex ends with everything written');
      assert.deepEqual(utxoSet(h.chain), ref.get(total), 'reindex rebuilds the same set');
    } finally {
      await h.close();
    }
  });
}

test('a reorg with coins in the cache writes them before disconnecting', async () => {
  const blocks = await buildBlocks(6);
  const total = blocks.length;
  const ref = await referenceSets(blocks, [total - 4]);
  const h = await openHarness();
  try {
    h.chain.acceptHeaders(blocks.map((b) => b.header));
    for (const block of blocks.slice(0, total - 1)) await h.chain.processBlock(block);
    assert.ok(h.chain.coinsCacheUsage.coins > 0, 'coins are cached');
    await h.chain.invalidateBlock(blocks[total - 4].header.hashHex);
    assert.equal(h.chain.height, total - 4);
    assert.deepEqual(utxoSet(h.chain), ref.get(total - 4), 'the disconnects restored the set of the fork point');
    await h.crash();
    assert.deepEqual(utxoSet(h.chain), ref.get(total - 4), 'and it is what the database holds');
  } finally {
    await h.close();
  }
});
