import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ANYONE_SCRIPT,
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
import { estimateEntryUsage } from './usage.ts';

const VALUE = 10_000_000n;

async function fund(c: MempoolContext, n: number): Promise<Utxo[]> {
  const tx = buildTx({ inputs: [c.coin(1)], outputs: Array.from({ length: n }, () => ({ value: VALUE, scriptPubKey: ANYONE_SCRIPT })) });
  await mine(c.chain, [tx]);
  return tx.outputs.map((_, i) => utxo(tx, i));
}

// Every test transaction spends one ANYONE output into one: the same size and memory estimate.
const SAMPLE = spend({ outpoint: { txid: new Uint8Array(32), vout: 0 }, output: { value: VALUE, scriptPubKey: ANYONE_SCRIPT } }, [VALUE - 1000n]);
const VSIZE = SAMPLE.vsize;
const UNIT = estimateEntryUsage(SAMPLE);
/** Room for 16 such transactions, not 17. */
const MAX_BYTES = 16 * UNIT + Math.floor(UNIT / 2);

/** A spend of `from` paying `rate` units per vbyte. */
const at = (from: Utxo, rate: number) => spend(from, [from.output.value - BigInt(Math.round(rate * VSIZE))]);

test('a full pool evicts the lowest descendant score, raises the minimum fee, and it decays after blocks', () =>
  withMempool(
    async (c) => {
      const coins = await fund(c, 24);
      const removed: RemovedEvent[] = [];
      c.mempool.events.on('removed', (e) => removed.push(e));

      // A cheap parent whose child pays well, a lone cheap transaction, and fillers.
      const parent = at(coins[0], 2);
      const child = at(utxo(parent, 0), 50);
      const lone = at(coins[1], 3);
      for (const tx of [parent, child, lone]) accepted(c.mempool.accept(tx));
      for (let i = 0; i < 13; i++) accepted(c.mempool.accept(at(coins[2 + i], 10 + 2 * i)));
      assert.equal(c.mempool.size, 16);
      assert.equal(c.mempool.info().mempoolminfee, 1000n);

      // The 17th: the lone 3/vB transaction goes, not the parent its child pays for.
      accepted(c.mempool.accept(at(coins[15], 40)));
      assert.deepEqual(
        removed.map((e) => [e.entry.txid, e.reason]),
        [[lone.txidHex, 'sizelimit']],
      );
      assert.ok(c.mempool.has(parent.txidHex) && c.mempool.has(child.txidHex));
      // Evicted rate (3000) plus the incremental relay fee (1000).
      assert.equal(c.mempool.info().mempoolminfee, 4000n);

      const low = c.mempool.accept(at(coins[16], 3.5));
      assert.equal(reason(low), 'mempool min fee not met');
      assert.equal(low.kind === 'rejected' && low.debug, `${Math.round(3.5 * VSIZE)} < ${Math.ceil(4 * VSIZE)}`);
      // Below the static relay minimum too: that one is named, as Core checks it first.
      const tiny = c.mempool.accept(at(coins[16], 0.5));
      assert.equal(reason(tiny), 'min relay fee not met');
      assert.equal(tiny.kind === 'rejected' && tiny.debug, `${Math.round(0.5 * VSIZE)} < ${VSIZE}`);

      // Above the minimum, yet the lowest score in the pool: in and straight out again.
      const last = at(coins[17], 4.5);
      assert.equal(reason(c.mempool.accept(last)), 'mempool full');
      assert.equal(c.mempool.has(last.txidHex), false);
      assert.equal(c.mempool.info().mempoolminfee, 5500n);

      // No decay without a block; after one, it halves every 12 hours while the pool is over half full.
      c.now += 24 * 3600;
      assert.equal(c.mempool.info().mempoolminfee, 5500n);
      await mine(c.chain);
      c.now += 12 * 3600;
      assert.equal(c.mempool.info().mempoolminfee, 2750n);
      // Below half the incremental relay fee it is gone: back to minrelaytxfee.
      c.now += 10 * 24 * 3600;
      assert.equal(c.mempool.info().mempoolminfee, 1000n);
    },
    { maxMempoolBytes: MAX_BYTES, limits: { descendantSize: Math.floor(MAX_BYTES / 40) } },
  ));

test('expiry removes old transactions with their descendants', () =>
  withMempool(
    async (c) => {
      const coins = await fund(c, 2);
      const start = c.now;
      const parent = at(coins[0], 5);
      accepted(c.mempool.accept(parent));
      c.now = start + 1800;
      const child = at(utxo(parent, 0), 5);
      const other = at(coins[1], 5);
      accepted(c.mempool.accept(child));
      accepted(c.mempool.accept(other));
      const removed: RemovedEvent[] = [];
      c.mempool.events.on('removed', (e) => removed.push(e));

      c.now = start + 3600;
      assert.deepEqual(c.mempool.limitSize(), { expired: 0, evicted: 0 });
      c.now = start + 3601;
      assert.deepEqual(c.mempool.limitSize(), { expired: 2, evicted: 0 });
      assert.deepEqual(
        removed.map((e) => [e.entry.txid, e.reason]),
        [
          [parent.txidHex, 'expiry'],
          [child.txidHex, 'expiry'],
        ],
      );
      assert.deepEqual(
        [...c.mempool.entries()].map((e) => e.txid),
        [other.txidHex],
      );
    },
    { expiryHours: 1 },
  ));

test('-maxmempool below 40 bytes per vbyte of the descendant size limit is refused', async () => {
  await assert.rejects(
    withMempool(() => undefined, { maxMempoolBytes: 4_000_000 }),
    (e: unknown) => e instanceof RangeError && e.message === '-maxmempool must be at least 5 MB',
  );
});
