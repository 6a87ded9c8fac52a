import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ANYONE_SCRIPT, accepted, buildTx, mine, spend, utxo, withMempool, type MempoolContext, type Utxo } from '../../test/mempool-harness.ts';
import { Mempool } from './mempool.ts';

const VALUE = 10_000_000n;
const UNKNOWN_TXID = 'ab'.repeat(32);

async function fund(c: MempoolContext, n: number): Promise<Utxo[]> {
  const tx = buildTx({ inputs: [c.coin(1)], outputs: Array.from({ length: n }, () => ({ value: VALUE, scriptPubKey: ANYONE_SCRIPT })) });
  await mine(c.chain, [tx]);
  return tx.outputs.map((_, i) => utxo(tx, i));
}

/** Fills the pool (a parent, its child, and a prioritised unbroadcast one) and saves it. */
async function saved(c: MempoolContext): Promise<{ path: string; txids: string[] }> {
  const [f0, f1] = await fund(c, 2);
  const a = spend(f0, [VALUE - 10_000n]);
  accepted(c.mempool.accept(a));
  c.now += 60;
  const a2 = spend(utxo(a, 0), [VALUE - 20_000n]);
  const b = spend(f1, [VALUE - 10_000n]);
  accepted(c.mempool.accept(a2));
  accepted(c.mempool.accept(b, { unbroadcast: true }));
  c.mempool.prioritise(b.txidHex, 7000n);
  c.mempool.prioritise(UNKNOWN_TXID, 300n);
  const path = join(c.h.dir, 'mempool.dat');
  await c.mempool.save(path);
  assert.equal(existsSync(`${path}.new`), false);
  return { path, txids: [a.txidHex, a2.txidHex, b.txidHex] };
}

test('mempool.dat round trip: transactions, entry times, deltas and unbroadcast set', () =>
  withMempool(async (c) => {
    const { path, txids } = await saved(c);
    const restored = new Mempool({ chain: c.chain, now: () => c.now });
    try {
      assert.equal(restored.info().loaded, false);
      const report = await restored.load(path);
      assert.deepEqual(report, { succeeded: 3, failed: 0, expired: 0, alreadyThere: 0 });
      assert.equal(restored.info().loaded, true);
      for (const txid of txids) {
        const [before, after] = [c.mempool.get(txid)!, restored.get(txid)!];
        assert.deepEqual([after.time, after.fee, after.modifiedFee], [before.time, before.fee, before.modifiedFee]);
      }
      assert.equal(restored.get(txids[2])!.modifiedFee, 10_000n + 7000n);
      assert.deepEqual(
        restored
          .prioritised()
          .map((p) => [p.txid, p.feeDelta, p.inMempool])
          .sort(),
        [
          [txids[2], 7000n, true],
          [UNKNOWN_TXID, 300n, false],
        ].sort(),
      );
      assert.deepEqual(restored.unbroadcast(), [txids[2]]);
      assert.equal(restored.info().unbroadcastcount, 1);
      // A peer asked for it: no longer waiting for its first broadcast.
      restored.markBroadcast(txids[2]);
      assert.equal(restored.info().unbroadcastcount, 0);
    } finally {
      restored.close();
    }
  }));

test('loading skips transactions past the expiry time', () =>
  withMempool(async (c) => {
    const { path } = await saved(c);
    c.now += 336 * 3600 - 30;
    const restored = new Mempool({ chain: c.chain, now: () => c.now });
    try {
      // The parent entered a minute before the others: only it has expired. Its child then
      // has no parent to spend from.
      assert.deepEqual(await restored.load(path), { succeeded: 1, failed: 1, expired: 1, alreadyThere: 0 });
    } finally {
      restored.close();
    }
  }));

test('a damaged, truncated or missing mempool.dat, or none at all, leaves an empty, loaded pool', () =>
  withMempool(async (c) => {
    const { path } = await saved(c);
    const bytes = readFileSync(path);
    const cases: [string, Uint8Array | null, string | undefined][] = [
      ['flipped byte', Uint8Array.from(bytes, (b, i) => (i === 40 ? b ^ 1 : b)), 'mempool file checksum mismatch'],
      ['truncated', bytes.subarray(0, bytes.length - 10), 'mempool file checksum mismatch'],
      ['empty', new Uint8Array(0), 'mempool file too short'],
      ['missing', null, undefined],
    ];
    const off = new Mempool({ chain: c.chain, now: () => c.now });
    assert.deepEqual(await off.load(null), { succeeded: 0, failed: 0, expired: 0, alreadyThere: 0 });
    assert.equal(off.info().loaded, true);
    off.close();
    for (const [name, content, problem] of cases) {
      const file = join(c.h.dir, `${name}.dat`);
      if (content) writeFileSync(file, content);
      const restored = new Mempool({ chain: c.chain, now: () => c.now });
      try {
        const report = await restored.load(file);
        assert.equal(report.problem, problem, name);
        assert.deepEqual([restored.size, restored.info().loaded], [0, true], name);
      } finally {
        restored.close();
      }
    }
  }));
