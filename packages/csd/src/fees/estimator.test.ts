import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANYONE_SCRIPT, accepted, buildTx, mine, spend, utxo, withMempool } from '../../test/mempool-harness.ts';
import { FeeEstimator, MAX_CONF_TARGET, NO_ESTIMATE_ERROR, parseEstimateMode, type TrackedTx } from './estimator.ts';

const NOW = 1_800_000_000;
const VSIZE = 200;
let serial = 0;

function tx(ratePerVbyte: number, height: number): TrackedTx {
  return { txid: `tx${serial++}`, fee: BigInt(ratePerVbyte * VSIZE), vsize: VSIZE, height };
}

/**
 * `blocks` blocks in which 10 transactions at 50 units/vbyte confirm in the next block and 10 at
 * 2 units/vbyte wait ten blocks.
 */
function simulate(est: FeeEstimator, blocks: number): void {
  est.processBlock(1, []);
  const waiting: TrackedTx[][] = [];
  for (let h = 1; h <= blocks; h++) {
    const fast = Array.from({ length: 10 }, () => tx(50, h));
    const slow = Array.from({ length: 10 }, () => tx(2, h));
    for (const t of [...fast, ...slow]) est.processTransaction(t, true);
    waiting.push(slow);
    const confirmed = [...fast, ...(waiting.length >= 10 ? waiting.shift()! : [])];
    est.processBlock(h + 1, confirmed);
  }
}

test('estimates separate fast-confirming high fees from slow low fees', () => {
  const est = new FeeEstimator(() => NOW);
  simulate(est, 200);
  assert.deepEqual(est.estimateSmartFee(2, 'economical', 1000n), { feeRate: 50_000n, blocks: 2 });
  assert.deepEqual(est.estimateSmartFee(20, 'economical', 1000n), { feeRate: 2000n, blocks: 20 });
  assert.deepEqual(est.estimateSmartFee(2, 'conservative', 1000n), { feeRate: 50_000n, blocks: 2 });
  // A target of 1 is answered for 2; the floor (the mempool minimum) wins over a lower estimate.
  assert.deepEqual(est.estimateSmartFee(1, 'unset', 1000n), { feeRate: 50_000n, blocks: 2 });
  assert.deepEqual(est.estimateSmartFee(20, 'economical', 3000n), { feeRate: 3000n, blocks: 20 });
  // 200 blocks of history support targets up to 99.
  assert.equal(est.estimateSmartFee(500, 'economical', 1000n).blocks, 99);
});

test('no estimate without data, or for targets out of range', () => {
  const est = new FeeEstimator(() => NOW);
  assert.deepEqual(est.estimateSmartFee(6, 'economical', 1000n), { errors: [NO_ESTIMATE_ERROR], blocks: 0 });
  simulate(est, 200);
  assert.deepEqual(est.estimateSmartFee(MAX_CONF_TARGET + 1, 'economical', 1000n), { errors: [NO_ESTIMATE_ERROR], blocks: 1009 });
  assert.deepEqual(est.estimateSmartFee(0, 'economical', 1000n), { errors: [NO_ESTIMATE_ERROR], blocks: 0 });
  assert.equal(MAX_CONF_TARGET, 1008);
});

test('transactions dropped unconfirmed count as failures for their fee rate', () => {
  const est = new FeeEstimator(() => NOW);
  est.processBlock(1, []);
  // Low fees never confirm: each leaves the mempool after 30 blocks.
  const waiting: TrackedTx[][] = [];
  for (let h = 1; h <= 200; h++) {
    const fast = Array.from({ length: 10 }, () => tx(50, h));
    const slow = Array.from({ length: 10 }, () => tx(2, h));
    for (const t of [...fast, ...slow]) est.processTransaction(t, true);
    waiting.push(slow);
    if (waiting.length > 30) for (const t of waiting.shift()!) est.removeTx(t.txid);
    est.processBlock(h + 1, fast);
  }
  assert.deepEqual(est.estimateSmartFee(20, 'economical', 1000n), { feeRate: 50_000n, blocks: 20 });
});

test("estimate modes parse as Core's, case-insensitively", () => {
  assert.equal(parseEstimateMode('ECONOMICAL'), 'economical');
  assert.equal(parseEstimateMode('Conservative'), 'conservative');
  assert.equal(parseEstimateMode('unset'), 'unset');
  assert.equal(parseEstimateMode('cheap'), null);
});

test('fee_estimates.dat survives a restart; damaged or stale files are ignored', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'cs-fees-'));
  try {
    const path = join(dir, 'fee_estimates.dat');
    const est = new FeeEstimator(() => NOW);
    simulate(est, 200);
    await est.save(path);

    const restored = new FeeEstimator(() => NOW + 3600);
    assert.deepEqual(await restored.load(path), { loaded: true });
    for (const target of [2, 20])
      assert.deepEqual(restored.estimateSmartFee(target, 'economical', 1000n), est.estimateSmartFee(target, 'economical', 1000n));

    const stale = new FeeEstimator(() => NOW + 61 * 3600);
    assert.deepEqual(await stale.load(path), { loaded: false, reason: 'estimates file too old' });
    assert.deepEqual(stale.estimateSmartFee(2, 'economical', 1000n), { errors: [NO_ESTIMATE_ERROR], blocks: 0 });

    const bytes = readFileSync(path);
    writeFileSync(
      path,
      Uint8Array.from(bytes, (b, i) => (i === 100 ? b ^ 0xff : b)),
    );
    const damaged = new FeeEstimator(() => NOW);
    assert.deepEqual(await damaged.load(path), { loaded: false, reason: 'estimates file checksum mismatch' });
    writeFileSync(path, bytes.subarray(0, 50));
    assert.equal((await damaged.load(path)).loaded, false);
    assert.deepEqual(await damaged.load(join(dir, 'missing.dat')), { loaded: false, reason: 'no estimates file' });
    assert.deepEqual(damaged.estimateSmartFee(2, 'economical', 1000n), { errors: [NO_ESTIMATE_ERROR], blocks: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the mempool feeds the estimator: confirmed transactions teach it the going rate', async () => {
  const estimator = new FeeEstimator();
  await withMempool(
    async (c) => {
      // 120 spendable outputs; the block that confirms them is the estimator's first.
      const funding = buildTx({
        inputs: [c.coin(1)],
        outputs: Array.from({ length: 120 }, () => ({ value: 10_000_000n, scriptPubKey: ANYONE_SCRIPT })),
      });
      await mine(c.chain, [funding]);
      const size = spend(utxo(funding, 0), [9_000_000n]).vsize;
      for (let round = 0; round < 10; round++) {
        for (let i = 0; i < 6; i++) {
          const fast = utxo(funding, round * 12 + i);
          const slow = utxo(funding, round * 12 + 6 + i);
          accepted(c.mempool.accept(spend(fast, [fast.output.value - BigInt(20 * size)])));
          accepted(c.mempool.accept(spend(slow, [slow.output.value - BigInt(2 * size)])));
        }
        // Miners take only what pays 10 units/vbyte or more.
        await mine(
          c.chain,
          c.mempool.selectForBlock({ minFeeRate: 10_000n }).txs.map((s) => s.entry.tx),
        );
      }
      assert.equal(c.mempool.size, 60);
      const estimate = estimator.estimateSmartFee(2, 'economical', c.mempool.minFee());
      assert.deepEqual(estimate, { feeRate: 20_000n, blocks: 2 });
    },
    { feeEstimator: estimator },
  );
});
