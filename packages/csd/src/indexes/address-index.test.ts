import { test } from 'node:test';
import assert from 'node:assert/strict';
import pino from 'pino';
import { scriptToDestination } from '@cs/consensus';
import type { Chain } from '../chain/chainstate.ts';
import { ADDRESS_INDEX_MARKER } from '../storage/database.ts';
import { waitSynced } from '../../test/index-harness.ts';
import { ANYONE_SCRIPT, COIN_VALUE, KEY_SCRIPT, accepted, mine, spend, utxo, withMempool } from '../../test/mempool-harness.ts';
import { addressKey, blockAddressDeltas, decodeDeltas, encodeDeltas } from './address-deltas.ts';
import { AddressIndex } from './address-index.ts';

const log = pino({ level: 'silent' });

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
    const a = index.activity(script);
    assert.deepEqual(
      {
        received: a.confirmed.received,
        sent: a.confirmed.sent,
        txCount: a.confirmed.txCount,
        txids: a.transactions.slice(a.unconfirmed.txids.length),
      },
      { received: e.received, sent: e.sent, txCount: e.txids.length, txids: e.txids },
    );
  }
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
    const mined = index.activity(KEY_SCRIPT);
    assert.equal(mined.confirmed.txCount, 110);
    assert.equal(mined.confirmed.sent, 0n);

    // Unconfirmed: KEY spends a coinbase into ANYONE and change; a child spends the change.
    const pay = spend(coin(1), [300_000_000n, COIN_VALUE - 300_010_000n], {}, ANYONE_SCRIPT);
    accepted(mempool.accept(pay));
    const child = spend(utxo(pay, 0), [299_990_000n], {}, KEY_SCRIPT);
    accepted(mempool.accept(child));
    // KEY: `pay` spends one of its coins, `child` pays it; newest first.
    const key = index.activity(KEY_SCRIPT);
    assert.deepEqual(key.unconfirmed, { balance: -COIN_VALUE + 299_990_000n, txids: [child.txidHex, pay.txidHex] });
    assert.deepEqual(key.transactions.length, 2 + 110);
    const anyone = index.activity(ANYONE_SCRIPT);
    assert.deepEqual(anyone.unconfirmed, { balance: COIN_VALUE - 10_000n - 300_000_000n, txids: [child.txidHex, pay.txidHex] });
    assert.deepEqual(anyone.transactions, [child.txidHex, pay.txidHex]);

    // Mining them moves them to the confirmed side.
    await mine(chain, [pay, child]);
    assert.equal(index.progress().synced, true);
    assert.deepEqual(index.activity(ANYONE_SCRIPT).unconfirmed, { balance: 0n, txids: [] });
    assertMatchesChain(index, chain, [KEY_SCRIPT, ANYONE_SCRIPT]);
    assert.deepEqual(index.activity(ANYONE_SCRIPT).transactions.slice(0, 2), [child.txidHex, pay.txidHex]);

    // A reorg takes them out of the confirmed side, and the mempool gives them back as unconfirmed.
    const block = chain.tip;
    await chain.invalidateBlock(block.hashHex);
    assertMatchesChain(index, chain, [KEY_SCRIPT, ANYONE_SCRIPT]);
    assert.equal(index.activity(ANYONE_SCRIPT).confirmed.txCount, 0);
    assert.deepEqual(index.activity(ANYONE_SCRIPT).unconfirmed.txids, [child.txidHex, pay.txidHex]);
    // Another branch confirms only `pay`: `child` stays unconfirmed.
    await mine(chain, [pay]);
    await mine(chain);
    assertMatchesChain(index, chain, [KEY_SCRIPT, ANYONE_SCRIPT]);
    assert.equal(index.activity(ANYONE_SCRIPT).confirmed.txCount, 1);
    assert.deepEqual(index.activity(ANYONE_SCRIPT).unconfirmed.txids, [child.txidHex]);
    assert.deepEqual(index.activity(ANYONE_SCRIPT).transactions, [child.txidHex, pay.txidHex]);
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
