import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { hashToHex, scriptToDestination } from '@cs/consensus';
import type { Chain } from '../chain/chainstate.ts';
import { ADDRESS_INDEX_MARKER } from '../storage/database.ts';
import { waitSynced } from '../../test/index-harness.ts';
import { ANYONE_SCRIPT, COIN_VALUE, KEY_SCRIPT, accepted, mine, spend, utxo, withMempool } from '../../test/mempool-harness.ts';
import { openHarness } from '../../test/chain-harness.ts';
import { addressKey, blockAddressDeltas, decodeDeltas, encodeDeltas } from './address-deltas.ts';
import { AddressIndex } from './address-index.ts';
import { ADDRESS_INDEX_VERSION, AddressStore } from './address-store.ts';

const log = pino({ level: 'silent' });
/** A page holding every transaction. */
const ALL = { from: 0, to: 2 ** 31 };

interface Expected {
  received: bigint;
  sent: bigint;
  txids: string[];
}

/** What the index must say about every address, recomputed from the whole active chain. */
function scanChain(chain: Chain): Map<string, Expected> {
  const out = new Map<string, Expected>();
  const touch = (script: Uint8Array, txid: string): Expected | undefined => {
    if (scriptToDestination(script) === null) return undefined;
    const id = addressKey(script).toString('hex');
    let e = out.get(id);
    if (!e) out.set(id, (e = { received: 0n, sent: 0n, txids: [] }));
    if (e.txids[0] !== txid) e.txids.unshift(txid);
    return e;
  };
  for (let height = 1; height <= chain.height; height++) {
    const entry = chain.atHeight(height)!;
    const block = chain.readBlock(entry)!;
    const undo = chain.readUndo(entry)!;
    block.txs.forEach((tx, i) => {
      if (i > 0) for (const coin of undo[i - 1]) touch(coin.scriptPubKey, tx.txidHex)!.sent += coin.value;
      for (const out of tx.outputs) {
        const e = touch(out.scriptPubKey, tx.txidHex);
        if (e) e.received += out.value;
      }
    });
  }
  return out;
}

/** For each of `scripts`, the index's confirmed side agrees with a full scan of the active chain. */
function assertMatchesChain(index: AddressIndex, chain: Chain, scripts: readonly Uint8Array[]): void {
  const expected = scanChain(chain);
  for (const script of scripts) {
    const e = expected.get(addressKey(script).toString('hex')) ?? { received: 0n, sent: 0n, txids: [] };
    const a = index.activity(script, ALL);
    assert.deepEqual(
      {
        received: a.confirmed.received,
        sent: a.confirmed.sent,
        txCount: a.confirmed.txCount,
        txids: a.transactions.slice(a.unconfirmed.txids.length),
      },
      { received: e.received, sent: e.sent, txCount: e.txids.length, txids: e.txids },
    );
    assertPages(index, script);
  }
}

/**
 * Every page of `script`'s transactions, at several sizes, is the matching slice of the whole
 * list (unconfirmed first, then confirmed), with the same totals; past the end a page is empty.
 */
function assertPages(index: AddressIndex, script: Uint8Array): void {
  const whole = index.activity(script, ALL);
  assert.equal(whole.totalItems, whole.unconfirmed.txids.length + whole.confirmed.txCount, 'totalItems counts both sides');
  assert.equal(whole.transactions.length, whole.totalItems, 'one entry per transaction');
  for (const size of [1, 2, 7, 50]) {
    const walked: string[] = [];
    for (let from = 0; from < whole.totalItems; from += size) {
      const page = index.activity(script, { from, to: from + size });
      assert.deepEqual(page.transactions, whole.transactions.slice(from, from + size), `page ${from}..${from + size}`);
      assert.deepEqual(
        [page.confirmed, page.unconfirmed, page.totalItems],
        [whole.confirmed, whole.unconfirmed, whole.totalItems],
        'totals do not depend on the page',
      );
      walked.push(...page.transactions);
    }
    assert.deepEqual(walked, whole.transactions, `pages of ${size} walk the whole list once`);
  }
  assert.deepEqual(index.activity(script, { from: whole.totalItems, to: whole.totalItems + 10 }).transactions, [], 'past the end: empty');
}

test('address deltas: per address what a block paid and spent, each transaction once; the record round-trips', async () => {
  await withMempool(async ({ chain, coin }) => {
    // Spends a KEY coin into ANYONE and back to KEY: KEY both sends and receives in one transaction.
    const tx = spend(coin(1), [1000n, COIN_VALUE - 50_000n], {}, ANYONE_SCRIPT);
    const back = spend(utxo(tx, 1), [COIN_VALUE - 60_000n], {}, KEY_SCRIPT);
    await mine(chain, [tx, back]);
    const block = chain.readBlock(chain.tip)!;
    const deltas = blockAddressDeltas(block, chain.readUndo(chain.tip)!);
    const byScript = (script: Uint8Array) => deltas.find((d) => d.key.equals(addressKey(script)))!;
    const key = byScript(KEY_SCRIPT);
    assert.deepEqual(key.positions, [0, 1, 2]);
    assert.equal(key.sent, COIN_VALUE);
    assert.equal(key.received, block.txs[0].outputs[0].value + COIN_VALUE - 60_000n);
    const anyone = byScript(ANYONE_SCRIPT);
    assert.deepEqual([anyone.positions, anyone.received, anyone.sent], [[1, 2], 1000n + COIN_VALUE - 50_000n, COIN_VALUE - 50_000n]);
    // The coinbase's witness commitment (OP_RETURN) has no address: not counted.
    assert.equal(deltas.length, 2);
    assert.deepEqual(decodeDeltas(encodeDeltas(deltas)), deltas);
  });
});

test('the address index counts confirmed and unconfirmed activity exactly, through mining, spending, the mempool and reorgs', async () => {
  await withMempool(async ({ h, chain, mempool, coin }) => {
    const index = new AddressIndex({ db: h.db, chain, mempool, log });
    index.start();
    assert.equal(index.progress().synced, false);
    await waitSynced(() => index.progress());
    assertMatchesChain(index, chain, [KEY_SCRIPT, ANYONE_SCRIPT]);
    const mined = index.activity(KEY_SCRIPT, ALL);
    assert.equal(mined.confirmed.txCount, 110);
    assert.equal(mined.confirmed.sent, 0n);

    // Unconfirmed: KEY spends a coinbase into ANYONE and change; a child spends the change.
    const pay = spend(coin(1), [300_000_000n, COIN_VALUE - 300_010_000n], {}, ANYONE_SCRIPT);
    accepted(mempool.accept(pay));
    const child = spend(utxo(pay, 0), [299_990_000n], {}, KEY_SCRIPT);
    accepted(mempool.accept(child));
    // KEY: `pay` spends one of its coins, `child` pays it; newest first.
    const key = index.activity(KEY_SCRIPT, ALL);
    assert.deepEqual(key.unconfirmed, { balance: -COIN_VALUE + 299_990_000n, txids: [child.txidHex, pay.txidHex] });
    assert.deepEqual(key.transactions.length, 2 + 110);
    const anyone = index.activity(ANYONE_SCRIPT, ALL);
    assert.deepEqual(anyone.unconfirmed, { balance: COIN_VALUE - 10_000n - 300_000_000n, txids: [child.txidHex, pay.txidHex] });
    assert.deepEqual(anyone.transactions, [child.txidHex, pay.txidHex]);
    // Pages run through the mempool's transactions into the confirmed ones.
    assertPages(index, KEY_SCRIPT);
    assert.deepEqual(index.activity(KEY_SCRIPT, { from: 1, to: 3 }).transactions, [pay.txidHex, mined.transactions[0]]);

    // Mining them moves them to the confirmed side.
    await mine(chain, [pay, child]);
    assert.equal(index.progress().synced, true);
    assert.deepEqual(index.activity(ANYONE_SCRIPT, ALL).unconfirmed, { balance: 0n, txids: [] });
    assertMatchesChain(index, chain, [KEY_SCRIPT, ANYONE_SCRIPT]);
    assert.deepEqual(index.activity(ANYONE_SCRIPT, ALL).transactions.slice(0, 2), [child.txidHex, pay.txidHex]);

    // A reorg takes them out of the confirmed side, and the mempool gives them back as unconfirmed.
    const block = chain.tip;
    await chain.invalidateBlock(block.hashHex);
    assertMatchesChain(index, chain, [KEY_SCRIPT, ANYONE_SCRIPT]);
    assert.equal(index.activity(ANYONE_SCRIPT, ALL).confirmed.txCount, 0);
    assert.deepEqual(index.activity(ANYONE_SCRIPT, ALL).unconfirmed.txids, [child.txidHex, pay.txidHex]);
    // Another branch confirms only `pay`: `child` stays unconfirmed.
    await mine(chain, [pay]);
    await mine(chain);
    assertMatchesChain(index, chain, [KEY_SCRIPT, ANYONE_SCRIPT]);
    assert.equal(index.activity(ANYONE_SCRIPT, ALL).confirmed.txCount, 1);
    assert.deepEqual(index.activity(ANYONE_SCRIPT, ALL).unconfirmed.txids, [child.txidHex]);
    assert.deepEqual(index.activity(ANYONE_SCRIPT, ALL).transactions, [child.txidHex, pay.txidHex]);
    await index.close();
  });
});

test('an address index stopped across a reorg backs out of the old branch from its own records at the next start', async () => {
  await withMempool(async ({ h, chain, mempool, coin }) => {
    let index = new AddressIndex({ db: h.db, chain, mempool, log });
    index.start();
    await waitSynced(() => index.progress());
    await mine(chain, [spend(coin(1), [COIN_VALUE - 10_000n], {}, ANYONE_SCRIPT)]);
    await mine(chain);
    const fork = chain.atHeight(111)!;
    await index.close();

    // The chain's undo data of the blocks it leaves is deleted as it leaves them; the index
    // must not need it.
    await chain.invalidateBlock(fork.hashHex);
    assert.equal(chain.readUndo(fork), undefined);
    await mine(chain, [spend(coin(2), [COIN_VALUE - 10_000n], {}, ANYONE_SCRIPT)]);

    index = new AddressIndex({ db: h.db, chain, mempool, log });
    index.start();
    await waitSynced(() => index.progress());
    assertMatchesChain(index, chain, [KEY_SCRIPT, ANYONE_SCRIPT]);
    assert.equal(h.db.tables.addrundo.get(Buffer.from(fork.hash)), undefined);
    assert.equal(Buffer.compare(h.db.getMeta(ADDRESS_INDEX_MARKER)!, Buffer.from(chain.tip.hash)), 0);
    await index.close();
  });
});

/** `n` distinct made-up txids. */
function fakeTxids(n: number, seed: number): Uint8Array[] {
  return Array.from({ length: n }, (_, i) => {
    const txid = new Uint8Array(32);
    new DataView(txid.buffer).setUint32(0, seed);
    new DataView(txid.buffer).setUint32(4, i);
    return txid;
  });
}

test('address store: any page of a long history is read directly; totals and entries change in one transaction and survive a reopen', async () => {
  const h = await openHarness();
  try {
    const key = addressKey(KEY_SCRIPT);
    const txids = fakeTxids(2_500, 7);
    const newestFirst = txids.map((t) => hashToHex(t)).reverse();
    let store = new AddressStore(h.db.tables);
    for (const [start, end] of [
      [0, 1_000],
      [1_000, 2_000],
      [2_000, 2_500],
    ]) {
      h.db.write(() => store.append({ key, received: 3n * BigInt(end - start), sent: 1n }, txids.slice(start, end)));
    }
    const expected = { received: 7_500n, sent: 3n, txCount: 2_500 };
    assert.deepEqual(store.summary(key), expected);
    const pages = (s: AddressStore) =>
      [
        [0, 50],
        [1_234, 10],
        [2_499, 50],
        [2_500, 50],
        [0, 2_500],
      ].map(([skip, count]) => s.page(key, 2_500, skip, count));
    const read = pages(store);
    assert.deepEqual(read, [newestFirst.slice(0, 50), newestFirst.slice(1_234, 1_244), newestFirst.slice(2_499), [], newestFirst]);
    // Another address's entries sort next to these and never leak into their pages.
    h.db.write(() => store.append({ key: addressKey(ANYONE_SCRIPT), received: 1n, sent: 0n }, fakeTxids(5, 8)));
    assert.deepEqual(pages(store), read);

    // A transaction that fails part way (a kill before the commit does the same) leaves neither
    // entries nor totals.
    assert.throws(
      () =>
        h.db.write(() => {
          store.append({ key, received: 100n, sent: 0n }, fakeTxids(10, 9));
          throw new Error('interrupted');
        }),
      /interrupted/,
    );
    assert.deepEqual(store.summary(key), expected);
    const entries = () => [...h.db.tables.addrindex.getKeys({ start: key })].filter((k) => k.subarray(0, 32).equals(key)).length;
    assert.equal(entries(), 2_500, 'no entry of the failed transaction');

    await h.reopen();
    store = new AddressStore(h.db.tables);
    assert.deepEqual(store.summary(key), expected);
    assert.deepEqual(pages(store), read);
  } finally {
    await h.close();
  }
});

test('an address index of an older record format is dropped and rebuilt from genesis at start', async () => {
  await withMempool(async ({ h, chain, mempool, coin }) => {
    await mine(chain, [spend(coin(1), [COIN_VALUE - 10_000n], {}, ANYONE_SCRIPT)]);
    let index = new AddressIndex({ db: h.db, chain, mempool, log });
    index.start();
    await waitSynced(() => index.progress());
    await index.close();
    assert.equal(h.db.getMeta(`${ADDRESS_INDEX_MARKER}.version`)?.toString(), String(ADDRESS_INDEX_VERSION));

    // What version 1 left: no version key, and entries keyed address ‖ be32(height) ‖ be32(position).
    const stale = Buffer.concat([addressKey(ANYONE_SCRIPT), Buffer.from([0, 0, 0, 111, 0, 0, 0, 1])]);
    h.db.write(() => {
      h.db.tables.meta.remove(Buffer.from(`${ADDRESS_INDEX_MARKER}.version`));
      h.db.tables.addrindex.put(stale, Buffer.alloc(32));
    });

    index = new AddressIndex({ db: h.db, chain, mempool, log });
    index.start();
    assert.equal(index.progress().height, 0, 'the rebuild starts at genesis');
    await waitSynced(() => index.progress());
    assert.equal(h.db.tables.addrindex.get(stale), undefined);
    assert.equal(h.db.getMeta(`${ADDRESS_INDEX_MARKER}.version`)?.toString(), String(ADDRESS_INDEX_VERSION));
    assertMatchesChain(index, chain, [KEY_SCRIPT, ANYONE_SCRIPT]);
    await index.close();
  });
});
