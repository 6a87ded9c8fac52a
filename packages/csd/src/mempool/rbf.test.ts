import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANYONE_SCRIPT,
  COIN_VALUE,
  accepted,
  buildTx,
  mine,
  reason,
  spend,
  utxo,
  withMempool,
  type MempoolContext,
  type Utxo,
} from '../../test/mempool-harness.ts';
import type { RemovedEvent } from './events.ts';

const VALUE = 10_000_000n;
const FINAL = 0xffffffff;

/** Confirms `n` ANYONE outputs of VALUE each (fixed-size spends: no signatures). */
async function fund(c: MempoolContext, n: number, height = 1): Promise<Utxo[]> {
  const tx = buildTx({ inputs: [c.coin(height)], outputs: Array.from({ length: n }, () => ({ value: VALUE, scriptPubKey: ANYONE_SCRIPT })) });
  await mine(c.chain, [tx]);
  return tx.outputs.map((_, i) => utxo(tx, i));
}

test("a replacement evicts its conflict and the conflict's descendants (full RBF: no signal needed)", () =>
  withMempool(async (c) => {
    const [f] = await fund(c, 1);
    const p = spend(f, [VALUE - 10_000n], { sequence: FINAL });
    const child = spend(utxo(p, 0), [VALUE - 20_000n]);
    accepted(c.mempool.accept(p));
    accepted(c.mempool.accept(child));
    const removed: RemovedEvent[] = [];
    c.mempool.events.on('removed', (e) => removed.push(e));

    const r = spend(f, [VALUE - 40_000n]);
    const result = c.mempool.accept(r);
    accepted(result);
    assert.deepEqual(result.kind === 'accepted' && result.replaced.map((e) => e.txid).sort(), [p.txidHex, child.txidHex].sort());
    assert.deepEqual(
      removed.map((e) => [e.entry.txid, e.reason, e.replacedBy?.txidHex]),
      [
        [p.txidHex, 'replaced', r.txidHex],
        [child.txidHex, 'replaced', r.txidHex],
      ],
    );
    assert.deepEqual([c.mempool.size, c.mempool.has(r.txidHex)], [1, true]);
  }));

test('testmempoolaccept reports what a replacement would evict and evicts nothing', () =>
  withMempool(async (c) => {
    const [f] = await fund(c, 1);
    const p = spend(f, [VALUE - 10_000n]);
    accepted(c.mempool.accept(p));
    const r = c.mempool.accept(spend(f, [VALUE - 40_000n]), { testOnly: true });
    assert.equal(r.kind, 'valid');
    assert.deepEqual(r.kind === 'valid' && r.replaced.map((e) => e.txid), [p.txidHex]);
    assert.ok(c.mempool.has(p.txidHex));
  }));

test('insufficient fee: no higher fee rate, fewer fees than evicted, or too little extra for relay', () =>
  withMempool(async (c) => {
    const [f, g] = await fund(c, 2);
    const p = spend(f, [VALUE - 10_000n]);
    accepted(c.mempool.accept(p));
    // The same fee and size (another sequence number makes it another transaction).
    const same = c.mempool.accept(spend(f, [VALUE - 10_000n], { sequence: 0 }));
    assert.equal(reason(same), 'insufficient fee');
    assert.match(same.kind === 'rejected' ? same.debug : '', /new feerate \d+ <= old feerate \d+/);

    // Only 50 units more: a higher rate, but the extra does not pay for its own relay.
    const stingy = spend(f, [VALUE - 10_050n]);
    const r = c.mempool.accept(stingy);
    assert.equal(reason(r), 'insufficient fee');
    assert.equal(
      r.kind === 'rejected' && r.debug,
      `rejecting replacement ${stingy.txidHex}, not enough additional fees to relay; 50 < ${stingy.vsize}`,
    );
    assert.equal(r.kind === 'rejected' && r.category, 'reconsiderable');

    // A child paying 100,000 makes the package worth more than a replacement of a higher rate.
    const q = spend(g, [VALUE - 10_000n]);
    const child = spend(utxo(q, 0), [VALUE - 110_000n]);
    accepted(c.mempool.accept(q));
    accepted(c.mempool.accept(child));
    const cheaper = spend(g, [VALUE - 50_000n]);
    const r2 = c.mempool.accept(cheaper);
    assert.equal(reason(r2), 'insufficient fee');
    assert.equal(r2.kind === 'rejected' && r2.debug, `rejecting replacement ${cheaper.txidHex}, less fees than conflicting txs; 50000 < 110000`);
  }));

test('prioritisation counts in replacement decisions', () =>
  withMempool(async (c) => {
    const [f] = await fund(c, 1);
    const p = spend(f, [VALUE - 10_000n]);
    accepted(c.mempool.accept(p));
    c.mempool.prioritise(p.txidHex, 1_000_000n);
    assert.equal(reason(c.mempool.accept(spend(f, [VALUE - 40_000n]))), 'insufficient fee');
    c.mempool.prioritise(p.txidHex, -1_000_000n);
    accepted(c.mempool.accept(spend(f, [VALUE - 40_000n])));
  }));

test('too many potential replacements: more than 100 transactions evicted', () =>
  withMempool(async (c) => {
    const funds = await fund(c, 5);
    for (const f of funds) {
      const parent = spend(
        f,
        Array.from({ length: 21 }, () => VALUE / 25n),
      );
      accepted(c.mempool.accept(parent));
      for (let i = 0; i < 20; i++) accepted(c.mempool.accept(spend(utxo(parent, i), [VALUE / 25n - 1000n])));
    }
    assert.equal(c.mempool.size, 105);
    const r = c.mempool.accept(spend(funds, [VALUE]));
    assert.equal(reason(r), 'too many potential replacements');
    assert.match(r.kind === 'rejected' ? r.debug : '', /\(105 > 100\)$/);
  }));

test('replacement-adds-unconfirmed: only unconfirmed parents the conflicts already had', () =>
  withMempool(async (c) => {
    const [f, g] = await fund(c, 2);
    const u = spend(g, [VALUE - 10_000n]);
    accepted(c.mempool.accept(u));
    const p = spend(f, [VALUE - 10_000n]);
    accepted(c.mempool.accept(p));
    const replacement = spend([f, utxo(u, 0)], [VALUE]);
    const r = c.mempool.accept(replacement);
    assert.equal(reason(r), 'replacement-adds-unconfirmed');
    assert.equal(r.kind === 'rejected' && r.debug, `replacement ${replacement.txidHex} adds unconfirmed input, idx 1`);

    // When the conflict already spent from u, u is no new parent.
    const value = COIN_VALUE + VALUE - 10_000n;
    const q = spend([c.coin(2), utxo(u, 0)], [value - 30_000n]);
    accepted(c.mempool.accept(q));
    accepted(c.mempool.accept(spend([c.coin(2), utxo(u, 0)], [value - 1_000_000n])));
  }));

test('without full RBF a conflict must signal BIP125, itself or through an ancestor', () =>
  withMempool(
    async (c) => {
      const [f, g, h] = await fund(c, 3);
      const p = spend(f, [VALUE - 10_000n], { sequence: FINAL });
      accepted(c.mempool.accept(p));
      assert.equal(c.mempool.isReplaceable(c.mempool.get(p.txidHex)!), false);
      assert.equal(reason(c.mempool.accept(spend(f, [VALUE - 40_000n]))), 'txn-mempool-conflict');

      const signalling = spend(g, [VALUE - 10_000n], { sequence: 0xfffffffd });
      accepted(c.mempool.accept(signalling));
      accepted(c.mempool.accept(spend(g, [VALUE - 40_000n])));

      // A non-signalling child of a signalling parent inherits replaceability (BIP125).
      const parent = spend(h, [VALUE - 10_000n], { sequence: 0xfffffffd });
      const child = spend(utxo(parent, 0), [VALUE - 20_000n], { sequence: FINAL });
      accepted(c.mempool.accept(parent));
      accepted(c.mempool.accept(child));
      assert.equal(c.mempool.isReplaceable(c.mempool.get(child.txidHex)!), true);
      accepted(c.mempool.accept(spend(utxo(parent, 0), [VALUE - 60_000n])));
      assert.equal(c.mempool.info().fullrbf, false);
    },
    { fullRbf: false },
  ));

test('bad-txns-spends-conflicting-tx: spending an output of the transaction it replaces', () =>
  withMempool(async (c) => {
    const [f, g] = await fund(c, 2);
    const p = spend(f, [VALUE - 10_000n]);
    accepted(c.mempool.accept(p));
    const r = c.mempool.accept(spend([f, utxo(p, 0), g], [VALUE]));
    assert.equal(reason(r), 'bad-txns-spends-conflicting-tx');
  }));
