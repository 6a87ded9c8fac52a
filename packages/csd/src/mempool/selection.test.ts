import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Transaction } from '@cs/consensus';
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
import { COINBASE_RESERVED_SIGOPS, COINBASE_RESERVED_WEIGHT } from './selection.ts';

const VALUE = 10_000_000n;

async function fund(c: MempoolContext, n: number, coinbaseHeight = 1): Promise<Utxo[]> {
  const tx = buildTx({ inputs: [c.coin(coinbaseHeight)], outputs: Array.from({ length: n }, () => ({ value: VALUE, scriptPubKey: ANYONE_SCRIPT })) });
  await mine(c.chain, [tx]);
  return tx.outputs.map((_, i) => utxo(tx, i));
}

/** A spend of `from` paying `rate` units per vbyte (every such spend has the same size). */
function at(from: Utxo, rate: number): Transaction {
  const size = spend(from, [from.output.value - 1000n]).vsize;
  return spend(from, [from.output.value - BigInt(rate * size)]);
}

/** A cheap parent with a well-paying child, a medium and a low transaction. */
async function scenario(c: MempoolContext): Promise<{ parent: Transaction; child: Transaction; medium: Transaction; low: Transaction }> {
  const [f0, f1, f2] = await fund(c, 3);
  const parent = at(f0, 1);
  const child = at(utxo(parent, 0), 20);
  const medium = at(f1, 5);
  const low = at(f2, 2);
  for (const tx of [parent, child, medium, low]) accepted(c.mempool.accept(tx));
  return { parent, child, medium, low };
}

const txids = (sel: { txs: readonly { entry: { txid: string } }[] }) => sel.txs.map((s) => s.entry.txid);

test('a child pays for its parent: the package outranks a better-paying single transaction', () =>
  withMempool(async (c) => {
    const { parent, child, medium, low } = await scenario(c);
    const sel = c.mempool.selectForBlock();
    assert.deepEqual(txids(sel), [parent.txidHex, child.txidHex, medium.txidHex, low.txidHex]);
    assert.deepEqual(
      sel.txs.map((s) => s.depends),
      [[], [1], [], []],
    );
    const fees = [parent, child, medium, low].map((t) => c.mempool.get(t.txidHex)!.fee);
    assert.deepEqual(
      sel.txs.map((s) => s.fee),
      fees,
    );
    assert.equal(
      sel.totalFees,
      fees.reduce((a, b) => a + b, 0n),
    );
    assert.equal(sel.weight, COINBASE_RESERVED_WEIGHT + [parent, child, medium, low].reduce((s, t) => s + t.weight, 0));
    assert.equal(sel.sigOpCost, COINBASE_RESERVED_SIGOPS);

    // The template is a valid block, and mining it empties the pool.
    await mine(
      c.chain,
      sel.txs.map((s) => s.entry.tx),
    );
    assert.equal(c.mempool.size, 0);
  }));

test('block minimum fee rate applies to packages', () =>
  withMempool(async (c) => {
    const { parent, child, medium } = await scenario(c);
    // 5 units/vbyte: the parent alone pays 1, but with its child 10.5.
    assert.deepEqual(txids(c.mempool.selectForBlock({ minFeeRate: 5000n })), [parent.txidHex, child.txidHex, medium.txidHex]);
  }));

test('prioritisetransaction reorders selection without changing the fees reported', () =>
  withMempool(async (c) => {
    const { parent, child, medium, low } = await scenario(c);
    c.mempool.prioritise(low.txidHex, 100_000n);
    c.mempool.prioritise(medium.txidHex, -1_000_000n);
    const sel = c.mempool.selectForBlock();
    assert.deepEqual(txids(sel), [low.txidHex, parent.txidHex, child.txidHex]);
    assert.equal(sel.txs[0].fee, c.mempool.get(low.txidHex)!.fee);
    // A delta for a transaction not yet seen applies when it arrives.
    const [f] = await fund(c, 1, 2);
    const late = at(f, 1);
    c.mempool.prioritise(late.txidHex, 1_000_000n);
    accepted(c.mempool.accept(late));
    assert.equal(txids(c.mempool.selectForBlock())[0], late.txidHex);
  }));

test('weight and sigop limits leave out packages that do not fit', () =>
  withMempool(async (c) => {
    const { parent, child } = await scenario(c);
    const packageWeight = parent.weight + child.weight;
    // Room for the parent and child package (4 × its vsize) and nothing more.
    const sel = c.mempool.selectForBlock({ maxWeight: COINBASE_RESERVED_WEIGHT + 4 * (parent.vsize + child.vsize) + 1 });
    assert.deepEqual(txids(sel), [parent.txidHex, child.txidHex]);
    assert.equal(sel.weight, COINBASE_RESERVED_WEIGHT + packageWeight);

    // Signed key spends cost one sigop each: with room for one, only the better one goes in.
    const a = spend(c.coin(2), [COIN_VALUE - 50_000n]);
    const b = spend(c.coin(3), [COIN_VALUE - 40_000n]);
    for (const tx of [a, b]) accepted(c.mempool.accept(tx));
    const bySigops = c.mempool.selectForBlock({ maxSigopCost: COINBASE_RESERVED_SIGOPS + 2 });
    assert.deepEqual(
      bySigops.txs.filter((s) => s.sigOpCost > 0).map((s) => s.entry.txid),
      [a.txidHex],
    );
  }));
