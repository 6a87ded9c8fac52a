import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Block, Transaction, blockSubsidy } from '@cs/consensus';
import { OP_TRUE, nextBlock, openHarness, spendOpTrue, type Harness } from '../../test/chain-harness.ts';
import { addWitnessCommitment, assembleBlock, createCoinbase, solveBlock } from '../mining/assemble.ts';
import type { Chain } from './chainstate.ts';
import type { ConnectTiming } from './events.ts';

async function mine(chain: Chain, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await chain.processBlock(nextBlock(chain));
    assert.equal(r.status, 'accepted', r.status === 'rejected' ? r.reason : '');
  }
}

async function withHarness(fn: (h: Harness) => Promise<void>, threads = 1): Promise<void> {
  const h = await openHarness({ threads });
  try {
    await fn(h);
  } finally {
    await h.close();
  }
}

function coinbaseAt(chain: Chain, height: number): Transaction {
  return chain.readBlock(chain.atHeight(height)!)!.txs[0];
}

test('a fresh chain starts at genesis, grows, and reloads the same tip after restart', () =>
  withHarness(async (h) => {
    assert.equal(h.chain.height, 0);
    assert.equal(h.chain.tip.hashHex, h.chain.params.genesis.header.hashHex);
    await mine(h.chain, 30);
    const tip = h.chain.tip.hashHex;
    const cb = coinbaseAt(h.chain, 7);
    assert.ok(h.chain.getCoin({ txid: cb.txid, vout: 0 }));
    await h.reopen();
    assert.equal(h.chain.height, 30);
    assert.equal(h.chain.tip.hashHex, tip);
    assert.equal(h.chain.atHeight(7)!.hashHex, h.chain.atHeight(7)!.hashHex);
    assert.ok(h.chain.getCoin({ txid: cb.txid, vout: 0 }));
  }));

test('spending: maturity, fees, double spends, overpaying coinbase, failing scripts', () =>
  withHarness(async (h) => {
    const { chain } = h;
    await mine(chain, 101);
    const cb1 = coinbaseAt(chain, 1);
    const value = cb1.outputs[0].value;

    // Height 102 may spend the coinbase of height 2 but not of height 3 (100 confirmations needed).
    const premature = spendOpTrue(coinbaseAt(chain, 3), 0, [{ value: 1000n, scriptPubKey: OP_TRUE }]);
    let r = await chain.processBlock(nextBlock(chain, { txs: [premature] }));
    assert.deepEqual([r.status, r.status === 'rejected' && r.reason], ['rejected', 'bad-txns-premature-spend-of-coinbase']);

    const spend = spendOpTrue(cb1, 0, [
      { value: value - 10_000n, scriptPubKey: OP_TRUE },
      { value: 0n, scriptPubKey: Uint8Array.of(0x6a, 0x01, 0x01) },
    ]);
    const overpay = nextBlock(chain, { txs: [spend], fees: 10_001n });
    r = await chain.processBlock(overpay);
    assert.equal(r.status === 'rejected' && r.reason, 'bad-cb-amount');

    const twice = spendOpTrue(cb1, 0, [{ value: 5n, scriptPubKey: OP_TRUE }]);
    r = await chain.processBlock(nextBlock(chain, { txs: [spend, twice], fees: 10_000n }));
    assert.equal(r.status === 'rejected' && r.reason, 'bad-txns-inputs-missingorspent');

    r = await chain.processBlock(nextBlock(chain, { txs: [spend], fees: 10_000n }));
    assert.equal(r.status, 'accepted');
    assert.equal(chain.getCoin({ txid: cb1.txid, vout: 0 }), undefined);
    assert.equal(chain.getCoin({ txid: spend.txid, vout: 0 })!.value, value - 10_000n);
    // OP_RETURN outputs never enter the UTXO set.
    assert.equal(chain.getCoin({ txid: spend.txid, vout: 1 }), undefined);

    // An output locked by OP_FALSE cannot be spent: the script check fails.
    const lock = spendOpTrue(spend, 0, [{ value: value - 20_000n, scriptPubKey: Uint8Array.of(0x00) }]);
    await mine(chain, 0);
    r = await chain.processBlock(nextBlock(chain, { txs: [lock], fees: 10_000n }));
    assert.equal(r.status, 'accepted');
    const bad = spendOpTrue(lock, 0, [{ value: 1n, scriptPubKey: OP_TRUE }]);
    r = await chain.processBlock(nextBlock(chain, { txs: [bad], fees: value - 20_001n }));
    assert.equal(
      r.status === 'rejected' && r.reason,
      'mandatory-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)',
    );
    // The failed block is remembered as invalid.
    assert.equal(chain.height, 103);
  }));

test('BIP68 relative locks apply to every version from 2 up, compared unsigned (0xffffffff included)', () =>
  withHarness(async (h) => {
    const { chain } = h;
    await mine(chain, 101);
    const cb1 = coinbaseAt(chain, 1);
    const value = cb1.outputs[0].value;
    const fund = spendOpTrue(cb1, 0, [
      { value: value / 2n, scriptPubKey: OP_TRUE },
      { value: value / 2n, scriptPubKey: OP_TRUE },
    ]);
    let r = await chain.processBlock(nextBlock(chain, { txs: [fund], fees: value - 2n * (value / 2n) }));
    assert.equal(r.status, 'accepted');
    // Each spend waits 10 blocks after the funding block, whatever its version's sign bit says.
    const locked = (vout: number, version: number) =>
      new Transaction({
        version,
        inputs: [{ prevout: { txid: fund.txid, vout }, scriptSig: new Uint8Array(0), sequence: 10, witness: [] }],
        outputs: [{ value: value / 2n, scriptPubKey: OP_TRUE }],
        locktime: 0,
      });
    for (const version of [2, 0xffffffff | 0, 0x80000000 | 0]) {
      r = await chain.processBlock(nextBlock(chain, { txs: [locked(0, version)] }));
      assert.deepEqual([r.status, r.status === 'rejected' && r.reason], ['rejected', 'bad-txns-nonfinal'], `version ${version >>> 0}`);
    }
    // Version 1 predates BIP68: its sequence numbers lock nothing.
    r = await chain.processBlock(nextBlock(chain, { txs: [locked(1, 1)] }));
    assert.equal(r.status, 'accepted');
    await mine(chain, 8);
    r = await chain.processBlock(nextBlock(chain, { txs: [locked(0, 0xffffffff | 0)] }));
    assert.equal(r.status, 'accepted', 'ten blocks after the funding block the lock is satisfied');
  }));

test('a block with a valid header that breaks a rule is remembered as invalid; a mutated one is not', () =>
  withHarness(async (h) => {
    const { chain } = h;
    await mine(chain, 101);
    const tip = chain.tip;
    // A solved block whose coinbase claims the wrong height (BIP34).
    const height = tip.height + 1;
    const coinbase = createCoinbase({
      height: height + 1,
      outputs: [{ value: blockSubsidy(height, chain.params), scriptPubKey: OP_TRUE }],
      extraNonce: Uint8Array.of(9),
    });
    const bad = solveBlock(
      assembleBlock({ prevHash: tip.hash, time: tip.medianTimePast() + 1, bits: chain.nextWorkRequired(tip), txs: addWitnessCommitment([coinbase]) }),
      chain.params,
      10_000,
    )!;
    let r = await chain.processBlock(bad);
    assert.equal(r.status === 'rejected' && r.reason, 'bad-cb-height');
    r = await chain.processBlock(bad);
    assert.equal(r.status, 'duplicate-invalid', 'known invalid: not validated again');
    assert.deepEqual(
      chain.chainTips().map((t) => [t.entry.hashHex, t.status]),
      [
        [bad.header.hashHex, 'invalid'],
        [tip.hashHex, 'active'],
      ],
    );
    r = await chain.processBlock(nextBlock(chain, { prev: chain.entry(bad.header.hashHex) }));
    assert.equal(r.status === 'rejected' && r.reason, 'bad-prevblk');
    await h.reopen();
    assert.equal((await h.chain.processBlock(bad)).status, 'duplicate-invalid', 'remembered across a restart');

    // CVE-2012-2459: the last transaction repeated gives the same merkle root, so the same header.
    const cb = (n: number) => coinbaseAt(h.chain, n);
    const a = spendOpTrue(cb(1), 0, [{ value: cb(1).outputs[0].value, scriptPubKey: OP_TRUE }]);
    const b = spendOpTrue(cb(2), 0, [{ value: cb(2).outputs[0].value, scriptPubKey: OP_TRUE }]);
    const good = nextBlock(h.chain, { txs: [a, b] });
    const mutated = new Block(good.header, [...good.txs, b]);
    assert.equal(mutated.header.hashHex, good.header.hashHex);
    r = await h.chain.processBlock(mutated);
    assert.equal(r.status === 'rejected' && r.reason, 'bad-txns-duplicate');
    r = await h.chain.processBlock(good);
    assert.equal(r.status, 'accepted', 'the real block behind the same header is still accepted');
  }));

test('reorganisation to a longer branch restores spent coins and reports chain tips', () =>
  withHarness(async (h) => {
    const { chain } = h;
    await mine(chain, 101);
    const cb1 = coinbaseAt(chain, 1);
    const spend = spendOpTrue(cb1, 0, [{ value: cb1.outputs[0].value - 1000n, scriptPubKey: OP_TRUE }]);
    const forkPoint = chain.tip;
    assert.equal((await chain.processBlock(nextBlock(chain, { txs: [spend], fees: 1000n }))).status, 'accepted');
    await mine(chain, 1);
    const oldTip = chain.tip;
    const disconnected: number[] = [];
    chain.events.on('disconnect', (e) => disconnected.push(e.entry.height));

    // A competing branch from the fork point: the first two blocks have less work (inconclusive).
    let prev = forkPoint;
    const branch = [];
    for (let i = 0; i < 3; i++) {
      const b = nextBlock(chain, { prev, time: prev.time + 2 });
      const r = await chain.processBlock(b);
      branch.push(b);
      if (i < 2) assert.equal(r.status, 'inconclusive');
      else assert.equal(r.status, 'accepted');
      prev = chain.entry(b.header.hashHex)!;
    }
    assert.equal(chain.tip.hashHex, branch[2].header.hashHex);
    assert.deepEqual(disconnected, [103, 102]);
    // The spend was undone: the coinbase output is unspent again, the spend's output gone.
    assert.ok(chain.getCoin({ txid: cb1.txid, vout: 0 }));
    assert.equal(chain.getCoin({ txid: spend.txid, vout: 0 }), undefined);

    const tips = chain.chainTips();
    assert.equal(tips.find((t) => t.status === 'active')!.entry.hashHex, chain.tip.hashHex);
    const fork = tips.find((t) => t.entry === oldTip)!;
    assert.deepEqual([fork.status, fork.branchLength], ['valid-fork', 2]);

    // A branch whose first block spends a coin that does not exist: stored while it has less
    // work, it fails when a second block makes it the best. That second block was never checked
    // itself (Core's submitblock: inconclusive); the tip stays, both are invalid now.
    const tipBefore = chain.tip;
    const missing = spendOpTrue(spend, 5, [{ value: 1n, scriptPubKey: OP_TRUE }]);
    const b1 = nextBlock(chain, { prev: chain.atHeight(chain.height - 1)!, txs: [missing] });
    assert.equal((await chain.processBlock(b1)).status, 'inconclusive');
    const b2 = nextBlock(chain, { prev: chain.entry(b1.header.hashHex)! });
    const r2 = await chain.processBlock(b2);
    assert.equal(r2.status, 'inconclusive');
    assert.equal(chain.tip, tipBefore);
    assert.equal(chain.entry(b1.header.hashHex)!.isFailed(), true);
    assert.equal((await chain.processBlock(b2)).status, 'duplicate-invalid');

    // Resubmitting a known block is a duplicate; an orphan is refused.
    assert.equal((await chain.processBlock(branch[0])).status, 'duplicate');
    const draft = nextBlock(chain);
    const orphan = solveBlock(
      assembleBlock({ prevHash: new Uint8Array(32).fill(7), time: draft.header.time, bits: draft.header.bits, txs: draft.txs }),
      chain.params,
      10_000,
    )!;
    const r = await chain.processBlock(orphan);
    assert.equal(r.status === 'rejected' && r.reason, 'prev-blk-not-found');
  }));

test('invalidateblock and reconsiderblock move the tip and survive restart', () =>
  withHarness(async (h) => {
    await mine(h.chain, 10);
    const target = h.chain.atHeight(8)!;
    await h.chain.invalidateBlock(target.hashHex);
    assert.equal(h.chain.height, 7);
    assert.ok(h.chain.chainTips().some((t) => t.status === 'invalid' && t.entry.height === 10));
    // Mining on the lowered tip extends the other side.
    await mine(h.chain, 1);
    assert.equal(h.chain.height, 8);
    assert.notEqual(h.chain.tip.hashHex, target.hashHex);
    await h.reopen();
    assert.equal(h.chain.height, 8);
    assert.ok(h.chain.entry(target.hashHex)!.isFailed());
    await h.chain.reconsiderBlock(target.hashHex);
    // The reconsidered branch has more work (10 > 8) and becomes active again.
    assert.equal(h.chain.height, 10);
    assert.equal(h.chain.atHeight(8)!.hashHex, target.hashHex);
  }));

/** Mines past coinbase maturity, then a block splitting the first coinbase into `n` OP_TRUE coins of `each`. */
async function fanOut(chain: Chain, n: number): Promise<{ fan: Transaction; each: bigint }> {
  await mine(chain, 101);
  const cb1 = coinbaseAt(chain, 1);
  const each = (cb1.outputs[0].value - BigInt(n) * 1000n) / BigInt(n);
  const fan = spendOpTrue(
    cb1,
    0,
    Array.from({ length: n }, () => ({ value: each, scriptPubKey: OP_TRUE })),
  );
  const fee = cb1.outputs[0].value - each * BigInt(n);
  assert.equal((await chain.processBlock(nextBlock(chain, { txs: [fan], fees: fee }))).status, 'accepted');
  return { fan, each };
}

test('parallel script verification across worker threads accepts good and rejects bad inputs', () =>
  withHarness(async (h) => {
    const { chain } = h;
    // Split one coinbase into 100 OP_TRUE outputs, then spend all of them in one block.
    const { fan, each } = await fanOut(chain, 100);
    const inputs = fan.outputs.map((_, vout) => ({
      prevout: { txid: fan.txid, vout },
      scriptSig: new Uint8Array(0),
      sequence: 0xffffffff,
      witness: [],
    }));
    const good = new Transaction({ version: 2, inputs, outputs: [{ value: each * 100n - 1000n, scriptPubKey: OP_TRUE }], locktime: 0 });
    // The same spend, but one input's scriptSig executes OP_RETURN, which fails the script.
    const badInputs = inputs.map((inp, i) => (i === 77 ? { ...inp, scriptSig: Uint8Array.of(0x6a) } : inp));
    const bad = new Transaction({ ...good, inputs: badInputs });
    let r = await chain.processBlock(nextBlock(chain, { txs: [bad], fees: 1000n }));
    assert.equal(r.status === 'rejected' && r.reason, 'mandatory-script-verify-flag-failed (OP_RETURN was encountered)');
    assert.match(r.status === 'rejected' ? r.debug : '', / input 77$/);
    const timings: ConnectTiming[] = [];
    chain.events.on('connect', ({ timing }) => timings.push(timing));
    r = await chain.processBlock(nextBlock(chain, { txs: [good], fees: 1000n }));
    assert.equal(r.status, 'accepted');
    // The connect event says how many inputs the block made the chain verify, and how long it took.
    assert.equal(timings.length, 1);
    assert.equal(timings[0].inputs, 100);
    assert.ok(Number.isFinite(timings[0].seconds) && timings[0].seconds > 0);
    // Its phases follow one another, so they add up to the whole.
    const { plan, scripts, write } = timings[0].phases;
    assert.ok([plan, scripts, write].every((s) => s >= 0));
    assert.ok(Math.abs(plan + scripts + write - timings[0].seconds) < 1e-9);
  }, 2));

/**
 * Blocks stored before their parent connect in a row: the child is planned, and its scripts
 * handed to the workers, while the parent's scripts are still being checked. `parentBad` and
 * `childBad` put a failing script in that block; `childDoubleSpends` makes the child spend a coin
 * the parent spent. What connects must be exactly what a block-by-block connect gives.
 */
async function connectInARow(h: Harness, opts: { parentBad?: boolean; childBad?: boolean; childDoubleSpends?: boolean }) {
  const blocks = await parentAndChild(h, opts);
  const { chain } = h;
  const { parent, child } = blocks;
  assert.equal(chain.acceptHeaders([parent.header, child.header]).error, null);
  const timings: ConnectTiming[] = [];
  chain.events.on('connect', ({ timing }) => timings.push(timing));
  // The child is stored first and waits for its parent; the parent's arrival connects both.
  assert.equal((await chain.processBlock(child)).status, 'inconclusive');
  const r = await chain.processBlock(parent);
  return { ...blocks, timings, r };
}

/** Two blocks on a new tip: a parent spending 70 coins, a child spending its output and 70 more. */
async function parentAndChild(h: Harness, opts: { parentBad?: boolean; childBad?: boolean; childDoubleSpends?: boolean }) {
  const { chain } = h;
  // 150 OP_TRUE coins: enough inputs for each block's scripts to be checked on the workers.
  const { fan, each } = await fanOut(chain, 150);
  const base = chain.tip;
  const spend = (coins: { txid: Uint8Array; vout: number; value: bigint }[], failAt: number | null) =>
    new Transaction({
      version: 2,
      inputs: coins.map((c, i) => ({
        prevout: { txid: c.txid, vout: c.vout },
        scriptSig: i === failAt ? Uint8Array.of(0x6a) : new Uint8Array(0),
        sequence: 0xffffffff,
        witness: [],
      })),
      outputs: [{ value: coins.reduce((s, c) => s + c.value, 0n) - 1000n, scriptPubKey: OP_TRUE }],
      locktime: 0,
    });
  const fanCoin = (vout: number) => ({ txid: fan.txid, vout, value: each });
  const parentTx = spend(
    Array.from({ length: 70 }, (_, i) => fanCoin(i)),
    opts.parentBad ? 33 : null,
  );
  const parent = nextBlock(chain, { txs: [parentTx], fees: 1000n });
  // The child spends the parent's new coin (known only from the parent's plan) and 70 more.
  const childCoins = [
    { txid: parentTx.txid, vout: 0, value: parentTx.outputs[0].value },
    ...Array.from({ length: 70 }, (_, i) => fanCoin(opts.childDoubleSpends && i === 5 ? 5 : 70 + i)),
  ];
  const childTx = spend(childCoins, opts.childBad ? 61 : null);
  const parentEntry = { hash: parent.header.hash, height: base.height + 1, medianTimePast: () => parent.header.time, time: parent.header.time };
  const child = nextBlock(chain, { prev: parentEntry as unknown as typeof base, txs: [childTx], fees: 1000n });
  return { base, parent, child, parentTx, childTx, fan };
}

test('a stored child is planned during its parent’s scripts and connects with the same result', () =>
  withHarness(async (h) => {
    const { chain } = h;
    const { parent, child, parentTx, childTx, fan, timings, r } = await connectInARow(h, {});
    assert.equal(r.status, 'accepted');
    assert.equal(chain.tip.hashHex, child.header.hashHex);
    assert.equal(chain.atHeight(chain.height - 1)!.hashHex, parent.header.hashHex);
    assert.deepEqual(
      timings.map((t) => [t.inputs, t.plannedAhead]),
      [
        [70, false],
        [71, true],
      ],
    );
    assert.equal(chain.getCoin({ txid: parentTx.txid, vout: 0 }), undefined, 'the child spent the parent’s coin');
    assert.equal(chain.getCoin({ txid: childTx.txid, vout: 0 })!.value, childTx.outputs[0].value);
    for (const vout of [0, 69, 70, 139]) assert.equal(chain.getCoin({ txid: fan.txid, vout }), undefined);
    assert.ok(chain.getCoin({ txid: fan.txid, vout: 140 }));
    // The same state after a restart: what was written is what was connected.
    await h.reopen();
    assert.equal(h.chain.tip.hashHex, child.header.hashHex);
    assert.equal(h.chain.getCoin({ txid: parentTx.txid, vout: 0 }), undefined);
    assert.ok(h.chain.getCoin({ txid: childTx.txid, vout: 0 }));
  }, 2));

test('a parent whose script fails drops the child planned on it; the tip stays, the workers go on', () =>
  withHarness(async (h) => {
    const { chain } = h;
    const { base, parent, child, fan, r } = await connectInARow(h, { parentBad: true });
    assert.equal(r.status === 'rejected' && r.reason, 'mandatory-script-verify-flag-failed (OP_RETURN was encountered)');
    assert.equal(chain.tip, base);
    assert.ok(chain.entry(parent.header.hashHex)!.isFailed());
    assert.ok(chain.entry(child.header.hashHex)!.isFailed(), 'the child has an invalid parent');
    // Nothing of either block reached the UTXO set.
    assert.ok(chain.getCoin({ txid: fan.txid, vout: 0 }));
    assert.ok(chain.getCoin({ txid: fan.txid, vout: 70 }));
    // The workers are free: the next block verifies on them.
    await mine(chain, 1);
    assert.equal(chain.height, base.height + 1);
  }, 2));

test('a child planned ahead whose own script fails, or that spends a coin its parent spent, is rejected alone', async () => {
  await Promise.all(
    [
      { opts: { childBad: true }, reason: 'mandatory-script-verify-flag-failed (OP_RETURN was encountered)' },
      { opts: { childDoubleSpends: true }, reason: 'bad-txns-inputs-missingorspent' },
    ].map(({ opts, reason }) =>
      withHarness(async (h) => {
        const { chain } = h;
        const { parent, child, parentTx, timings } = await connectInARow(h, opts);
        assert.equal(chain.tip.hashHex, parent.header.hashHex, reason);
        assert.ok(chain.entry(child.header.hashHex)!.isFailed());
        assert.equal(timings.length, 1);
        assert.ok(chain.getCoin({ txid: parentTx.txid, vout: 0 }), 'the parent’s coin is unspent');
        // Offered again, the child answers as Core's submitblock does for a known-invalid block.
        assert.equal((await chain.processBlock(child)).status, 'duplicate-invalid');
      }, 2),
    ),
  );
});

test('a block handed over while its parent connects (a sync) is planned ahead; a mutated copy of it is not used', () =>
  withHarness(async (h) => {
    const { chain } = h;
    const { parent, child, childTx } = await parentAndChild(h, {});
    const timings: ConnectTiming[] = [];
    chain.events.on('connect', ({ timing }) => timings.push(timing));
    // Same header, but a witness added to one input: the witness commitment no longer matches, so
    // the copy fails as corruption in transit, and its scripts would fail too (unexpected witness).
    const txs = child.txs.map((tx, i) =>
      i === 0 ? tx : new Transaction({ ...tx, inputs: tx.inputs.map((inp, j) => (j === 3 ? { ...inp, witness: [Uint8Array.of(1)] } : inp)) }),
    );
    const mutated = new Block(child.header, txs);
    assert.equal(mutated.header.hashHex, child.header.hashHex);
    // All three are handed over before the first has connected, as a sync's downloads are.
    const results = await Promise.all([
      chain.processBlock(parent, parent.encode()),
      chain.processBlock(mutated, mutated.encode()),
      chain.processBlock(child, child.encode()),
    ]);
    assert.deepEqual(
      results.map((r) => (r.status === 'rejected' ? r.reason : r.status)),
      ['accepted', 'bad-witness-merkle-match', 'accepted'],
    );
    assert.equal(chain.tip.hashHex, child.header.hashHex);
    // The plan made from the mutated copy was dropped; the real child was planned at its turn.
    assert.deepEqual(
      timings.map((t) => t.plannedAhead),
      [false, false],
    );
    assert.ok(chain.getCoin({ txid: childTx.txid, vout: 0 }));

    // Without a mutated copy in between, the next block is planned while its parent connects.
    const more = spendOpTrue(childTx, 0, [{ value: childTx.outputs[0].value - 1000n, scriptPubKey: OP_TRUE }]);
    const b1 = nextBlock(chain, { txs: [more], fees: 1000n });
    const b1Entry = { hash: b1.header.hash, height: chain.height + 1, medianTimePast: () => b1.header.time, time: b1.header.time };
    const b2 = nextBlock(chain, { prev: b1Entry as unknown as typeof chain.tip });
    const next = await Promise.all([chain.processBlock(b1, b1.encode()), chain.processBlock(b2, b2.encode())]);
    assert.deepEqual(
      next.map((r) => r.status),
      ['accepted', 'accepted'],
    );
    assert.deepEqual(
      timings.slice(2).map((t) => t.plannedAhead),
      [false, true],
    );
  }, 2));
