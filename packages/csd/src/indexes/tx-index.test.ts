import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { hashToHex, toHex } from '@cs/consensus';
import { TX_INDEX_MARKER } from '../storage/database.ts';
import { COIN_VALUE, mine, spend, withMempool } from '../../test/mempool-harness.ts';
import { TransactionIndex, txLocations } from './tx-index.ts';
import { waitSynced } from '../../test/index-harness.ts';

const log = pino({ level: 'silent' });

test('txLocations: each transaction is found at its offset in the serialized block', async () => {
  await withMempool(async ({ chain, coin }) => {
    await mine(chain, [spend(coin(1), [COIN_VALUE - 10_000n]), spend(coin(2), [1000n, COIN_VALUE - 20_000n])]);
    const block = chain.readBlock(chain.tip)!;
    const raw = chain.readRawBlock(chain.tip)!;
    const locations = txLocations(block);
    assert.equal(locations.length, 3);
    block.txs.forEach((tx, i) => {
      const { offset, length } = locations[i];
      assert.equal(toHex(raw.subarray(offset, offset + length)), toHex(tx.encode()));
    });
    const last = locations[2];
    assert.equal(last.offset + last.length, raw.length);
  });
});

test('the transaction index catches up in the background, follows connects and disconnects, and resumes after a restart', async () => {
  await withMempool(async ({ h, chain, coin }) => {
    let index = new TransactionIndex({ db: h.db, chain, log });
    index.start();
    // 110 blocks behind: start() returns at once, the catching up happens afterwards.
    assert.deepEqual(index.progress(), { height: 0, tipHeight: 110, synced: false });
    await waitSynced(() => index.progress());
    const coinbase5 = chain.readBlock(chain.atHeight(5)!)!.txs[0];
    const found = await index.find(coinbase5.txidHex);
    assert.equal(found?.blockHash, chain.atHeight(5)!.hashHex);
    assert.equal(found?.tx.txidHex, coinbase5.txidHex);
    // The genesis coinbase is not an ordinary transaction: not indexed.
    assert.equal(index.position(hashToHex(chain.params.genesis.header.merkleRoot)), undefined);

    // Connect: indexed at once, no background work.
    const tx = spend(coin(1), [COIN_VALUE - 10_000n]);
    await mine(chain, [tx]);
    assert.equal(index.synced(), true);
    assert.equal(index.position(tx.txidHex)?.entry, chain.tip);
    assert.equal(toHex((await index.find(tx.txidHex))!.tx.encode()), toHex(tx.encode()));

    // Disconnect: gone; reconnect: back.
    const block = chain.tip;
    await chain.invalidateBlock(block.hashHex);
    assert.equal(index.synced(), true);
    assert.equal(index.position(tx.txidHex), undefined);
    await chain.reconsiderBlock(block.hashHex);
    assert.equal(index.position(tx.txidHex)?.entry, block);

    // Blocks connected while the index is not running are picked up at the next start.
    await index.close();
    const later = spend(coin(2), [COIN_VALUE - 10_000n]);
    await mine(chain, [later]);
    await mine(chain);
    index = new TransactionIndex({ db: h.db, chain, log });
    index.start();
    assert.equal(index.synced(), false);
    await waitSynced(() => index.progress());
    assert.equal(index.position(later.txidHex)?.entry.height, 112);
    await index.close();
  });
});

test('an index whose marker is on a branch the chain left while it was stopped backs out of it first', async () => {
  await withMempool(async ({ h, chain, coin }) => {
    let index = new TransactionIndex({ db: h.db, chain, log });
    index.start();
    await waitSynced(() => index.progress());
    const orphaned = spend(coin(1), [COIN_VALUE - 10_000n]);
    await mine(chain, [orphaned]);
    const stale = chain.tip;
    await index.close();

    // While it is stopped, the chain moves to another branch without `orphaned`.
    await chain.invalidateBlock(stale.hashHex);
    const replacement = spend(coin(2), [COIN_VALUE - 10_000n]);
    await mine(chain, [replacement]);
    await mine(chain);

    index = new TransactionIndex({ db: h.db, chain, log });
    index.start();
    await waitSynced(() => index.progress());
    assert.equal(index.position(orphaned.txidHex), undefined);
    assert.equal(index.position(replacement.txidHex)?.entry, chain.atHeight(111));
    assert.equal(toHex(h.db.getMeta(TX_INDEX_MARKER)!), toHex(chain.tip.hash));
    await index.close();
  });
});

test('a marker naming an unknown block makes the index start over from genesis', async () => {
  await withMempool(async ({ h, chain }) => {
    h.db.write(() => {
      h.db.putMeta(TX_INDEX_MARKER, Buffer.alloc(32, 0xab));
      h.db.tables.txindex.put(Buffer.alloc(32, 0xcd), Buffer.alloc(40));
    });
    const index = new TransactionIndex({ db: h.db, chain, log });
    index.start();
    await waitSynced(() => index.progress());
    assert.equal(h.db.tables.txindex.get(Buffer.alloc(32, 0xcd)), undefined);
    assert.ok(await index.find(chain.readBlock(chain.tip)!.txs[0].txidHex));
    await index.close();
  });
});
