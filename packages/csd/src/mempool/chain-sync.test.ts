import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANYONE_SCRIPT,
  COIN_VALUE,
  accepted,
  buildTx,
  mine,
  spend,
  utxo,
  withMempool,
  type MempoolContext,
  type Utxo,
} from '../../test/mempool-harness.ts';
import type { RemovedEvent } from './events.ts';

const VALUE = 10_000_000n;

async function fund(c: MempoolContext, n: number): Promise<Utxo[]> {
  const tx = buildTx({ inputs: [c.coin(1)], outputs: Array.from({ length: n }, () => ({ value: VALUE, scriptPubKey: ANYONE_SCRIPT })) });
  await mine(c.chain, [tx]);
  return tx.outputs.map((_, i) => utxo(tx, i));
}

function recordRemovals(c: MempoolContext): [string, string][] {
  const out: [string, string][] = [];
  c.mempool.events.on('removed', (e: RemovedEvent) => out.push([e.entry.txid, e.reason]));
  return out;
}

test('a connected block removes its transactions, then whatever spent the same coins', () =>
  withMempool(async (c) => {
    const [f0, f1] = await fund(c, 2);
    const a = spend(f0, [VALUE - 10_000n]);
    const a2 = spend(utxo(a, 0), [VALUE - 20_000n]);
    const b = spend(f1, [VALUE - 10_000n]);
    for (const tx of [a, a2, b]) accepted(c.mempool.accept(tx));
    c.mempool.prioritise(b.txidHex, 5000n);
    const removed = recordRemovals(c);

    // The block confirms b and a double spend of f0 that the mempool never saw.
    const d = spend(f0, [VALUE - 50_000n]);
    await mine(c.chain, [b, d]);
    assert.deepEqual(removed, [
      [b.txidHex, 'block'],
      [a.txidHex, 'conflict'],
      [a2.txidHex, 'conflict'],
    ]);
    assert.equal(c.mempool.size, 0);
    // A confirmed transaction's prioritisation is spent.
    assert.deepEqual(c.mempool.prioritised(), []);
  }));

test('disconnected blocks return their transactions, under their in-pool children', () =>
  withMempool(async (c) => {
    const [f0] = await fund(c, 1);
    const t = spend(f0, [VALUE - 10_000n]);
    accepted(c.mempool.accept(t));
    await mine(
      c.chain,
      c.mempool.selectForBlock().txs.map((s) => s.entry.tx),
    );
    assert.equal(c.mempool.size, 0);
    const block = c.chain.tip;
    const u = spend(utxo(t, 0), [VALUE - 20_000n]);
    accepted(c.mempool.accept(u));
    assert.equal(c.mempool.get(u.txidHex)!.countWithAncestors, 1);

    await c.chain.invalidateBlock(block.hashHex);
    const [et, eu] = [c.mempool.get(t.txidHex)!, c.mempool.get(u.txidHex)!];
    assert.ok(et && eu);
    assert.deepEqual([et.countWithDescendants, et.sizeWithDescendants, et.modFeesWithDescendants], [2, t.vsize + u.vsize, 20_000n]);
    assert.deepEqual([eu.countWithAncestors, eu.modFeesWithAncestors], [2, 20_000n]);
    assert.deepEqual([...c.mempool.ancestors(eu)], [et]);

    // Back to the branch with t confirmed: t leaves again, u stays alone.
    await c.chain.reconsiderBlock(block.hashHex);
    assert.equal(c.mempool.has(t.txidHex), false);
    assert.equal(c.mempool.get(u.txidHex)!.countWithAncestors, 1);
  }));

test('after a reorg, what is no longer valid for the next block leaves with reason reorg', () =>
  withMempool(async (c) => {
    // Confirmed at 111 (coinbase 11 is mature there), with a child waiting in the pool.
    const s = spend(c.coin(11), [COIN_VALUE - 10_000n]);
    await mine(c.chain, [s]);
    const s2 = spend(utxo(s, 0), [COIN_VALUE - 20_000n]);
    // Valid for block 112: coinbase 12 is mature, locktime 111 is past.
    const m = spend(c.coin(12), [COIN_VALUE - 10_000n]);
    const n = spend(c.coin(2), [COIN_VALUE - 10_000n], { locktime: 111, sequence: 0xfffffffe });
    const k = spend(c.coin(3), [COIN_VALUE - 10_000n]);
    for (const tx of [s2, m, n, k]) accepted(c.mempool.accept(tx));
    const removed = recordRemovals(c);

    // Back to tip 109: the next block is 110, where none of s, m, n is valid.
    await c.chain.invalidateBlock(c.chain.atHeight(110)!.hashHex);
    assert.equal(c.chain.height, 109);
    assert.deepEqual(removed, [
      [s2.txidHex, 'reorg'],
      [m.txidHex, 'reorg'],
      [n.txidHex, 'reorg'],
    ]);
    assert.deepEqual(
      [...c.mempool.entries()].map((e) => e.txid),
      [k.txidHex],
    );
  }));

test('chains that outgrow the limits once their parent returns are trimmed', () =>
  withMempool(
    async (c) => {
      const [f0] = await fund(c, 1);
      const t = spend(f0, [VALUE - 10_000n]);
      await mine(c.chain, [t]);
      let prev = utxo(t, 0);
      const chain = [];
      for (let i = 1; i <= 5; i++) {
        const tx = spend(prev, [VALUE - 10_000n * BigInt(i + 1)]);
        accepted(c.mempool.accept(tx));
        chain.push(tx);
        prev = utxo(tx, 0);
      }
      const removed = recordRemovals(c);
      await c.chain.invalidateBlock(c.chain.tip.hashHex);
      // t is back: the fifth in the chain now has six unconfirmed ancestors (itself included).
      assert.ok(c.mempool.has(t.txidHex));
      assert.deepEqual(removed, [[chain[4].txidHex, 'sizelimit']]);
      assert.equal(c.mempool.get(chain[3].txidHex)!.countWithAncestors, 5);
    },
    { limits: { ancestorCount: 5 } },
  ));
