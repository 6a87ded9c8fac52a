import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction, multisigScript, nullDataScript, witnessProgramScript, type TxOut } from '@cs/consensus';
import { OP_TRUE } from '../../test/chain-harness.ts';
import { ANYONE_SCRIPT, COIN_VALUE, accepted, buildTx, feeOf, mine, reason, spend, utxo, withMempool } from '../../test/mempool-harness.ts';
import { MEMPOOL_HEIGHT } from './coin-view.ts';
import { mempoolInfoJson } from './info.ts';

test('a signed standard spend enters with its fee, size, height and time, and is announced', () =>
  withMempool(({ chain, mempool, coin }) => {
    const added: string[] = [];
    mempool.events.on('added', ({ entry }) => added.push(entry.txid));
    const tx = spend(coin(1), [COIN_VALUE - 10_000n]);
    const r = mempool.accept(tx);
    accepted(r);
    const entry = mempool.get(tx.txidHex)!;
    assert.equal(entry.fee, 10_000n);
    assert.equal(entry.vsize, tx.vsize);
    assert.equal(entry.weight, tx.weight);
    assert.equal(entry.height, chain.tip.height);
    assert.equal(entry.time, chain.tip.time + 600);
    assert.equal(entry.sigOpCost, 1); // one P2WPKH signature check
    assert.equal(mempool.byWtxid(tx.wtxidHex), entry);
    assert.equal(mempool.spender(coin(1).outpoint), entry);
    assert.deepEqual(added, [tx.txidHex]);

    const info = mempool.info();
    assert.deepEqual([info.size, info.bytes, info.total_fee, info.loaded, info.fullrbf], [1, tx.vsize, 10_000n, false, true]);
    assert.ok(info.usage > tx.size);
    assert.equal(info.mempoolminfee, 1000n);
    const json = mempoolInfoJson(info);
    assert.equal(json.total_fee, 0.0001);
    assert.equal(json.minrelaytxfee, 0.00001);
    assert.equal(json.maxmempool, 300_000_000);
  }));

test('testmempoolaccept: valid with fee and vsize, nothing changes', () =>
  withMempool(({ mempool, coin }) => {
    const tx = spend(coin(1), [COIN_VALUE - 10_000n]);
    const r = mempool.accept(tx, { testOnly: true });
    assert.equal(r.kind, 'valid');
    assert.deepEqual(r.kind === 'valid' && [r.txid, r.fee, r.vsize], [tx.txidHex, 10_000n, tx.vsize]);
    assert.equal(mempool.size, 0);
  }));

test('context-free, coinbase, standardness and finality rejections carry Core reasons', () =>
  withMempool(({ chain, mempool, coin }) => {
    const base = spend(coin(1), [COIN_VALUE - 10_000n]);
    const noOutputs = new Transaction({ ...base, outputs: [] });
    assert.equal(reason(mempool.accept(noOutputs)), 'bad-txns-vout-empty');
    const coinbase = chain.readBlock(chain.tip)!.txs[0];
    assert.equal(reason(mempool.accept(coinbase)), 'coinbase');
    assert.equal(reason(mempool.accept(spend(coin(1), [COIN_VALUE - 10_000n], { version: 3 }))), 'version');
    assert.equal(reason(mempool.accept(spend(coin(1), [COIN_VALUE - 10_000n], {}, OP_TRUE))), 'scriptpubkey');
    assert.equal(reason(mempool.accept(spend(coin(1), [100n]))), 'dust');
    // 1 input and a 3-byte OP_RETURN: 63 bytes without witness.
    const tiny = buildTx({ inputs: [coin(1)], outputs: [{ value: 0n, scriptPubKey: nullDataScript(Uint8Array.of(1)) }] });
    assert.equal(tiny.baseSize, 63);
    assert.equal(reason(mempool.accept(tiny)), 'tx-size-small');

    // Locktime: final only below the next block's height (111), or below the tip's median time past.
    const next = chain.tip.height + 1;
    const nonFinal = { sequence: 0xfffffffe };
    assert.equal(reason(mempool.accept(spend(coin(1), [COIN_VALUE - 10_000n], { ...nonFinal, locktime: next }))), 'non-final');
    const mtp = chain.tip.medianTimePast();
    assert.equal(reason(mempool.accept(spend(coin(1), [COIN_VALUE - 10_000n], { ...nonFinal, locktime: mtp }))), 'non-final');
    accepted(mempool.accept(spend(coin(2), [COIN_VALUE - 10_000n], { ...nonFinal, locktime: mtp - 1 })));
    accepted(mempool.accept(spend(coin(1), [COIN_VALUE - 10_000n], { ...nonFinal, locktime: next - 1 })));
    assert.equal(mempool.size, 2);
  }));

test('acceptnonstdtxn (requireStandard off) admits non-standard transactions', () =>
  withMempool(
    ({ mempool, coin }) => {
      accepted(mempool.accept(spend(coin(1), [COIN_VALUE - 10_000n], { version: 3 })));
      // Two bare OP_TRUE outputs (one would leave it under 65 bytes, which no setting allows).
      accepted(mempool.accept(spend(coin(2), [1000n, COIN_VALUE - 10_000n], {}, OP_TRUE)));
    },
    { policy: { requireStandard: false } },
  ));

test('duplicates, missing inputs, confirmed transactions and coinbase maturity', () =>
  withMempool(async ({ chain, mempool, coin }) => {
    const tx = spend(coin(1), [COIN_VALUE - 10_000n]);
    accepted(mempool.accept(tx));
    assert.equal(reason(mempool.accept(tx)), 'txn-already-in-mempool');
    // Same txid, another witness (an extra stack item): the witness is not what we have.
    const malleated = new Transaction({ ...tx, inputs: [{ ...tx.inputs[0], witness: [Uint8Array.of(1), ...tx.inputs[0].witness] }] });
    assert.equal(reason(mempool.accept(malleated)), 'txn-same-nonwitness-data-in-mempool');

    const orphan = spend({ outpoint: { txid: new Uint8Array(32).fill(5), vout: 3 }, output: { value: 50_000n, scriptPubKey: ANYONE_SCRIPT } }, [
      40_000n,
    ]);
    const missing = mempool.accept(orphan);
    assert.equal(missing.kind, 'missing-inputs');
    assert.equal(reason(missing), 'bad-txns-inputs-missingorspent');
    assert.deepEqual(missing.kind === 'missing-inputs' && missing.missing.map((p) => p.vout), [3]);

    // Height 12's coinbase is spendable from height 112: one block too early.
    assert.equal(reason(mempool.accept(spend(coin(12), [COIN_VALUE - 10_000n]))), 'bad-txns-premature-spend-of-coinbase');
    assert.equal(reason(mempool.accept(spend(coin(2), [COIN_VALUE + 1n]))), 'bad-txns-in-belowout');

    await mine(chain, [tx]);
    assert.equal(mempool.size, 0);
    const again = mempool.accept(tx);
    assert.equal(again.kind, 'already-in-chain');
    assert.equal(reason(again), 'txn-already-known');
    accepted(mempool.accept(spend(coin(12), [COIN_VALUE - 10_000n])));
  }));

test('non-standard inputs and witnesses', () =>
  withMempool(async ({ chain, mempool, coin }) => {
    // Outputs only blocks will create: bare OP_TRUE, a witness v1 program, and an ANYONE output.
    const outputs: TxOut[] = [
      { value: 100_000n, scriptPubKey: OP_TRUE },
      { value: 100_000n, scriptPubKey: witnessProgramScript(1, new Uint8Array(32)) },
      { value: 100_000n, scriptPubKey: ANYONE_SCRIPT },
    ];
    const funding = buildTx({ inputs: [coin(1)], outputs });
    await mine(chain, [funding]);
    assert.equal(reason(mempool.accept(spend(utxo(funding, 0), [90_000n]))), 'bad-txns-nonstandard-inputs');
    assert.equal(reason(mempool.accept(spend(utxo(funding, 1), [90_000n]))), 'bad-txns-nonstandard-inputs');
    const bloated = spend(utxo(funding, 2), [90_000n]);
    const withJunk = new Transaction({ ...bloated, inputs: [{ ...bloated.inputs[0], witness: [new Uint8Array(81), OP_TRUE] }] });
    assert.equal(reason(mempool.accept(withJunk)), 'bad-witness-nonstandard');
  }));

test('sigop cost limit and the relay fee floor', () =>
  withMempool(({ mempool, coin }) => {
    // Bare 1-of-1 multisig counts 20 legacy sigops (80 cost) per output: 201 of them pass 16,000.
    const multisig = multisigScript(1, [Uint8Array.of(0x02, ...new Uint8Array(32).fill(1))]);
    const heavy = buildTx({ inputs: [coin(1)], outputs: Array.from({ length: 201 }, () => ({ value: 1000n, scriptPubKey: multisig })) });
    const r = mempool.accept(heavy);
    assert.equal(reason(r), 'bad-txns-too-many-sigops');
    assert.equal(r.kind === 'rejected' && r.debug, '16081');

    // 1 unit per vbyte; signature lengths vary by a byte, so stay clear of the exact boundary.
    const vsize = spend(coin(1), [COIN_VALUE - 1n]).vsize;
    const cheap = spend(coin(1), [COIN_VALUE - BigInt(vsize - 2)]);
    const low = mempool.accept(cheap);
    assert.equal(reason(low), 'min relay fee not met');
    assert.equal(low.kind === 'rejected' && low.debug, `${vsize - 2} < ${cheap.vsize}`);
    // Core 28: a policy failure, not "reconsiderable": a package paying for it is no help.
    assert.equal(low.kind === 'rejected' && low.category, 'mempool-policy');
    accepted(mempool.accept(spend(coin(1), [COIN_VALUE - BigInt(vsize + 1)])));
  }));

test('script failures: consensus-invalid versus only non-standard', () =>
  withMempool(async ({ chain, mempool, coin }) => {
    // A signature over other data: fails NULLFAIL under policy and the check itself under consensus.
    const good = spend(coin(1), [COIN_VALUE - 10_000n]);
    const other = spend(coin(1), [COIN_VALUE - 20_000n]);
    const forged = new Transaction({ ...good, inputs: [{ ...good.inputs[0], witness: other.inputs[0].witness }] });
    const bad = mempool.accept(forged);
    assert.equal(reason(bad), 'mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)');
    assert.equal(bad.kind === 'rejected' && bad.category, 'consensus');
    // The reason says it all, as in Core 28: no debug text follows it in RPC messages.
    assert.ok(bad.kind === 'rejected' && !bad.debug);

    const high = mempool.accept(spend(coin(1), [COIN_VALUE - 10_000n], { highS: true }));
    assert.equal(reason(high), 'non-mandatory-script-verify-flag (Non-canonical signature: S value is unnecessarily high)');
    assert.equal(high.kind === 'rejected' && high.category, 'not-standard');

    // Witness scripts must leave exactly one element: consensus for witness v0.
    const funding = spend(coin(2), [100_000n]);
    await mine(chain, [funding]);
    const extra = spend(utxo(funding, 0), [90_000n]);
    const dirty = new Transaction({ ...extra, inputs: [{ ...extra.inputs[0], witness: [Uint8Array.of(1), OP_TRUE] }] });
    assert.equal(reason(mempool.accept(dirty)), 'mandatory-script-verify-flag-failed (Stack size must be exactly one after execution)');
  }));

test('maxFeeRate refuses absurd fees after every other check', () =>
  withMempool(({ mempool, coin }) => {
    const tx = spend(coin(1), [COIN_VALUE - 5_000_000n]);
    const r = mempool.accept(tx, { maxFeeRate: 100_000n });
    assert.equal(r.kind, 'max-fee-exceeded');
    assert.deepEqual(r.kind === 'max-fee-exceeded' && [r.fee, r.maxFee], [5_000_000n, BigInt(Math.ceil(tx.vsize * 100))]);
    assert.equal(mempool.size, 0);
    accepted(mempool.accept(tx, { maxFeeRate: 0n }));
  }));

test('unconfirmed chains: totals over ancestors and descendants, and the mempool coin view', () =>
  withMempool(({ mempool, coin }) => {
    const a = spend(coin(1), [COIN_VALUE - 10_000n]);
    const b = spend(utxo(a, 0), [COIN_VALUE - 30_000n]);
    const c = spend(utxo(b, 0), [COIN_VALUE - 60_000n]);
    const sequence = mempool.sequence;
    for (const tx of [a, b, c]) accepted(mempool.accept(tx));
    assert.equal(mempool.sequence, sequence + 3);
    const [ea, eb, ec] = [a, b, c].map((t) => mempool.get(t.txidHex)!);
    assert.deepEqual([ea.countWithDescendants, ea.sizeWithDescendants, ea.modFeesWithDescendants], [3, a.vsize + b.vsize + c.vsize, 60_000n]);
    assert.deepEqual([ec.countWithAncestors, ec.sizeWithAncestors, ec.modFeesWithAncestors], [3, a.vsize + b.vsize + c.vsize, 60_000n]);
    assert.deepEqual([eb.countWithAncestors, eb.countWithDescendants], [2, 2]);
    assert.deepEqual([...mempool.ancestors(ec)].map((e) => e.txid).sort(), [a.txidHex, b.txidHex].sort());
    assert.deepEqual([...mempool.descendants(ea)].map((e) => e.txid).sort(), [b.txidHex, c.txidHex].sort());
    assert.equal(mempool.spender(utxo(a, 0).outpoint), eb);
    const view = mempool.coinView();
    assert.equal(view.getCoin(utxo(c, 0).outpoint)!.height, MEMPOOL_HEIGHT);
    assert.equal(view.getCoin(coin(1).outpoint)!.value, COIN_VALUE);
    assert.equal(feeOf(c, [utxo(b, 0)]), 30_000n);
  }));

test('ancestor and descendant count limits, with the CPFP carve-out', () =>
  withMempool(({ mempool, coin }) => {
    let tip = coin(1);
    let value = COIN_VALUE;
    for (let i = 0; i < 25; i++) {
      value -= 1000n;
      const tx = spend(tip, [value]);
      accepted(mempool.accept(tx));
      tip = utxo(tx, 0);
    }
    const r = mempool.accept(spend(tip, [value - 1000n]));
    assert.equal(reason(r), 'too-long-mempool-chain');
    assert.equal(r.kind === 'rejected' && r.debug, 'too many unconfirmed ancestors [limit: 25]');

    // A parent with 26 outputs: 24 children fill its descendant limit, the carve-out lets one more in.
    const fan = spend(
      coin(2),
      Array.from({ length: 26 }, () => 40_000_000n),
    );
    accepted(mempool.accept(fan));
    for (let i = 0; i < 25; i++) accepted(mempool.accept(spend(utxo(fan, i), [39_990_000n])));
    const over = mempool.accept(spend(utxo(fan, 25), [39_990_000n]));
    assert.equal(reason(over), 'too-long-mempool-chain');
    assert.equal(over.kind === 'rejected' && over.debug, `too many descendants for tx ${fan.txidHex} [limit: 25]`);
  }));

test('ancestor size limit', () =>
  withMempool(
    ({ mempool, coin }) => {
      const a = spend(coin(1), [COIN_VALUE - 10_000n]);
      accepted(mempool.accept(a));
      const big = spend(
        utxo(a, 0),
        Array.from({ length: 5 }, () => 200_000_000n),
      );
      const r = mempool.accept(big);
      assert.equal(reason(r), 'too-long-mempool-chain');
      assert.equal(r.kind === 'rejected' && r.debug, 'exceeds ancestor size limit [limit: 300]');
    },
    { limits: { ancestorSize: 300 } },
  ));

test('BIP68 relative locks must be satisfied in the next block', () =>
  withMempool(async ({ chain, mempool, coin }) => {
    const funding = spend(coin(1), [100_000n, 100_000n]);
    await mine(chain, [funding]); // confirmed at 111
    // Five blocks after 111: minable from 116.
    const locked = spend(utxo(funding, 0), [90_000n], { sequence: 5 });
    assert.equal(reason(mempool.accept(locked)), 'non-BIP68-final');
    // Version 1 has no relative locks.
    accepted(mempool.accept(spend(utxo(funding, 1), [90_000n], { sequence: 5, version: 1 })));
    for (let i = 0; i < 3; i++) await mine(chain);
    assert.equal(reason(mempool.accept(locked)), 'non-BIP68-final');
    await mine(chain);
    accepted(mempool.accept(locked));

    // BIP68 is checked before the inputs' amounts and maturity, as in Core's PreChecks.
    const overspend = spend(coin(2), [COIN_VALUE * 2n], { sequence: 200 });
    assert.equal(reason(mempool.accept(overspend)), 'non-BIP68-final');

    // An unconfirmed parent counts as confirming in the next block: a lock of 0 blocks holds, 1 does not.
    assert.equal(reason(mempool.accept(spend(utxo(locked, 0), [80_000n], { sequence: 1 }))), 'non-BIP68-final');
    accepted(mempool.accept(spend(utxo(locked, 0), [80_000n], { sequence: 0 })));
  }));
