import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BlockHeader, Writer, hashToHex, scriptToAddress, type Transaction } from '@cs/consensus';
import { withRpcNode, type RpcTestNode } from '../../../test/rpc-harness.ts';
import { COIN_VALUE, KEY_SCRIPT, accepted, feeOf, mine, spend, utxo } from '../../../test/mempool-harness.ts';
import type { RpcRegistry } from '../registry.ts';
import type { NodeContext } from '../../node/context.ts';
import { registerBlockchainMethods } from './blockchain.ts';
import { MAX_TIP_AGE } from './blockchain/chain-state.ts';
import { utxoSetStats } from './blockchain/utxo-set.ts';

type Json = Record<string, unknown>;

const register = (registry: RpcRegistry, ctx: NodeContext) => registerBlockchainMethods(registry, ctx);
const withNode = (fn: (node: RpcTestNode) => Promise<void>) => withRpcNode(register, fn);

async function expectError(node: RpcTestNode, code: number, message: string | RegExp, method: string, ...params: unknown[]) {
  const e = await node.callError(method, ...(params as never[]));
  assert.equal(e.code, code, `${method}: ${e.message}`);
  if (typeof message === 'string') assert.equal(e.message, message);
  else assert.match(e.message, message);
}

/** Accepts `tx` into the node's mempool. */
function admit(node: RpcTestNode, tx: Transaction): void {
  accepted(node.ctx.mempool.accept(tx));
}

const UNKNOWN_HASH = 'ab'.repeat(32);

test('getblockchaininfo describes the fixture chain', () =>
  withNode(async (node) => {
    const { chain } = node.ctx;
    const info = (await node.call('getblockchaininfo')) as Json;
    assert.deepEqual(Object.keys(info), [
      'chain',
      'blocks',
      'headers',
      'bestblockhash',
      'difficulty',
      'time',
      'mediantime',
      'verificationprogress',
      'initialblockdownload',
      'chainwork',
      'size_on_disk',
      'pruned',
      'warnings',
    ]);
    assert.equal(info.chain, 'regtest');
    assert.equal(info.blocks, 110);
    assert.equal(info.headers, 110);
    assert.equal(info.bestblockhash, chain.tip.hashHex);
    assert.equal(info.difficulty, 1); // regtest blocks are at powLimit
    assert.equal(info.time, chain.tip.time);
    assert.equal(info.mediantime, chain.tip.medianTimePast());
    assert.equal(info.verificationprogress, 1);
    assert.equal(info.initialblockdownload, false);
    assert.match(info.chainwork as string, /^[0-9a-f]{64}$/);
    assert.equal(BigInt(`0x${info.chainwork as string}`), chain.tip.chainWork);
    assert.ok((info.size_on_disk as number) > 0);
    assert.equal(info.pruned, false);
    assert.deepEqual(info.warnings, []);
  }));

test('initialblockdownload holds while the tip is over a day old, then latches off; verificationprogress follows the tip age', () =>
  withNode(async (node) => {
    const { chain, clock } = node.ctx;
    const info = async () => (await node.call('getblockchaininfo')) as Json;
    // Two days after the tip: one day past the window, 720 blocks of 120 s missing.
    clock.setMock(chain.tip.time + MAX_TIP_AGE + 720 * 120);
    let i = await info();
    assert.equal(i.initialblockdownload, true);
    assert.equal(i.verificationprogress, 110 / (110 + 720));
    clock.setMock(chain.tip.time + 60);
    i = await info();
    assert.equal(i.initialblockdownload, false);
    assert.equal(i.verificationprogress, 1);
    clock.setMock(chain.tip.time + 3 * MAX_TIP_AGE);
    i = await info();
    assert.equal(i.initialblockdownload, false, 'latched: a stalled tip does not bring IBD back');
    assert.ok((i.verificationprogress as number) < 1);
  }));

test('getblockchaininfo is answered from one serialization while nothing changes, and follows a new block', () =>
  withNode(async (node) => {
    const { chain } = node.ctx;
    const first = (await node.call('getblockchaininfo')) as Json;
    assert.deepEqual(await node.call('getblockchaininfo'), first, 'an unchanged chain gives the same answer');
    await mine(chain);
    const after = (await node.call('getblockchaininfo')) as Json;
    assert.equal(after.blocks, (first.blocks as number) + 1, 'the new block is counted');
    assert.equal(after.bestblockhash, chain.tip.hashHex, 'the new tip is named');
    assert.equal(after.mediantime, chain.tip.medianTimePast(), "the median time is the new tip's");
  }));

test('getbestblockhash, getblockcount, getblockhash and getdifficulty', () =>
  withNode(async (node) => {
    const { chain, params } = node.ctx;
    assert.equal(await node.call('getbestblockhash'), chain.tip.hashHex);
    assert.equal(await node.call('getblockcount'), 110);
    assert.equal(await node.call('getblockhash', 0), params.genesis.header.hashHex);
    assert.equal(await node.call('getblockhash', 110), chain.tip.hashHex);
    assert.equal(await node.callNamed('getblockhash', { height: 5 }), chain.atHeight(5)!.hashHex);
    assert.equal(await node.call('getdifficulty'), 1);
    await expectError(node, -8, 'Block height out of range', 'getblockhash', 111);
    await expectError(node, -8, 'Block height out of range', 'getblockhash', -1);
    await expectError(node, -1, 'JSON integer out of range', 'getblockhash', 1.5);
    await expectError(node, -3, /^Wrong type passed/, 'getblockhash', '1');
  }));

test('getblockheader: verbose object and raw hex; unknown and malformed hashes', () =>
  withNode(async (node) => {
    const { chain } = node.ctx;
    const entry = chain.atHeight(100)!;
    const header = (await node.call('getblockheader', entry.hashHex)) as Json;
    assert.deepEqual(Object.keys(header), [
      'hash',
      'confirmations',
      'height',
      'version',
      'versionHex',
      'merkleroot',
      'time',
      'mediantime',
      'nonce',
      'solution',
      'bits',
      'difficulty',
      'chainwork',
      'nTx',
      'previousblockhash',
      'nextblockhash',
    ]);
    assert.equal(header.hash, entry.hashHex);
    assert.equal(header.confirmations, 11);
    assert.equal(header.height, 100);
    assert.equal(header.previousblockhash, chain.atHeight(99)!.hashHex);
    assert.equal(header.nextblockhash, chain.atHeight(101)!.hashHex);
    assert.equal(header.nTx, 1);
    assert.match(header.nonce as string, /^[0-9a-f]{64}$/);

    const tipHeader = (await node.call('getblockheader', chain.tip.hashHex)) as Json;
    assert.equal(tipHeader.confirmations, 1);
    assert.equal('nextblockhash' in tipHeader, false);

    const hex = (await node.call('getblockheader', entry.hashHex, false)) as string;
    assert.equal(BlockHeader.decode(Buffer.from(hex, 'hex')).hashHex, entry.hashHex);
    assert.equal(await node.call('getblockheader', entry.hashHex.toUpperCase(), false), hex);

    await expectError(node, -5, 'Block not found', 'getblockheader', UNKNOWN_HASH);
    await expectError(node, -8, "hash must be of length 64 (not 3, for 'xyz')", 'getblockheader', 'xyz');
    await expectError(node, -8, `hash must be hexadecimal string (not '${'zz'.repeat(32)}')`, 'getblockheader', 'zz'.repeat(32));
    await expectError(node, -3, /^Wrong type passed/, 'getblockheader', 5);
  }));

test('getblock at every verbosity; fees and prevouts from undo data; bech32 addresses', () =>
  withNode(async (node) => {
    const { chain, params } = node.ctx;
    const { fixture } = node;
    const tx = spend(fixture.coin(1), [COIN_VALUE - 20_000n], {}, KEY_SCRIPT);
    await mine(chain, [tx]);
    const entry = chain.tip;
    const raw = chain.readRawBlock(entry)!.toString('hex');

    assert.equal(await node.call('getblock', entry.hashHex, 0), raw);
    assert.equal(await node.call('getblock', entry.hashHex, false), raw);

    const v1 = (await node.call('getblock', entry.hashHex)) as Json;
    assert.deepEqual(await node.call('getblock', entry.hashHex, true), v1);
    assert.deepEqual(await node.call('getblock', entry.hashHex, 1), v1);
    const block = chain.readBlock(entry)!;
    assert.deepEqual(v1.tx, [block.txs[0].txidHex, tx.txidHex]);
    assert.equal(v1.height, 111);
    assert.equal(v1.confirmations, 1);
    assert.equal(v1.nTx, 2);
    assert.equal(v1.size, block.size);
    assert.equal(v1.strippedsize, block.strippedSize);
    assert.equal(v1.weight, block.weight);
    assert.deepEqual(Object.keys(v1).slice(-6), ['nTx', 'previousblockhash', 'strippedsize', 'size', 'weight', 'tx']);

    const v2 = (await node.call('getblock', entry.hashHex, 2)) as { tx: Json[] };
    const [cb, spendJson] = v2.tx;
    assert.equal(cb.txid, block.txs[0].txidHex);
    assert.equal('fee' in cb, false, 'the coinbase has no fee');
    assert.equal(spendJson.txid, tx.txidHex);
    assert.equal(spendJson.hash, tx.wtxidHex);
    assert.equal(spendJson.fee, 0.0002);
    assert.equal(spendJson.hex, Buffer.from(tx.encode()).toString('hex'));
    const vout = spendJson.vout as { scriptPubKey: Json }[];
    assert.equal(vout[0].scriptPubKey.type, 'witness_v0_keyhash');
    assert.match(vout[0].scriptPubKey.address as string, /^csrt1q[02-9ac-hj-np-z]+$/);
    assert.equal(vout[0].scriptPubKey.address, scriptToAddress(KEY_SCRIPT, params.address));
    const vin2 = (spendJson.vin as Json[])[0];
    assert.equal('prevout' in vin2, false, 'verbosity 2 has no prevouts');
    assert.equal(feeOf(tx, [fixture.coin(1)]), 20_000n);

    const v3 = (await node.call('getblock', entry.hashHex, 3)) as { tx: Json[] };
    const vin3 = (v3.tx[1].vin as Json[])[0];
    assert.deepEqual(Object.keys(vin3), ['txid', 'vout', 'scriptSig', 'txinwitness', 'prevout', 'sequence']);
    assert.deepEqual(vin3.prevout, {
      generated: true,
      height: 1,
      value: 12.5,
      scriptPubKey: {
        asm: `0 ${Buffer.from(KEY_SCRIPT.subarray(2)).toString('hex')}`,
        hex: Buffer.from(KEY_SCRIPT).toString('hex'),
        address: scriptToAddress(KEY_SCRIPT, params.address),
        type: 'witness_v0_keyhash',
      },
    });
    assert.equal(v3.tx[1].fee, 0.0002);

    await expectError(node, -5, 'Block not found', 'getblock', UNKNOWN_HASH);
    await expectError(node, -8, "blockhash must be of length 64 (not 2, for 'ab')", 'getblock', 'ab');
    await expectError(node, -1, 'JSON value of type string is not of expected type number', 'getblock', entry.hashHex, 'two');
  }));

test('getchaintips, invalidateblock and reconsiderblock', () =>
  withNode(async (node) => {
    const { chain } = node.ctx;
    const tip = chain.tip;
    assert.deepEqual(await node.call('getchaintips'), [{ height: 110, hash: tip.hashHex, branchlen: 0, status: 'active' }]);

    assert.equal(await node.call('invalidateblock', tip.hashHex), null);
    assert.equal(await node.call('getblockcount'), 109);
    assert.equal(await node.call('getbestblockhash'), chain.atHeight(109)!.hashHex);
    assert.deepEqual(await node.call('getchaintips'), [
      { height: 110, hash: tip.hashHex, branchlen: 1, status: 'invalid' },
      { height: 109, hash: chain.atHeight(109)!.hashHex, branchlen: 0, status: 'active' },
    ]);
    const off = (await node.call('getblockheader', tip.hashHex)) as Json;
    assert.equal(off.confirmations, -1);
    const v2 = (await node.call('getblock', tip.hashHex, 2)) as { tx: Json[] };
    assert.equal(v2.tx.length, 1, 'the invalidated block is still readable');

    assert.equal(await node.call('reconsiderblock', tip.hashHex), null);
    assert.equal(await node.call('getbestblockhash'), tip.hashHex);
    assert.equal(await node.call('getblockcount'), 110);

    await expectError(node, -5, 'Block not found', 'invalidateblock', UNKNOWN_HASH);
    await expectError(node, -5, 'Block not found', 'reconsiderblock', UNKNOWN_HASH);
    await expectError(node, -20, 'genesis, the genesis block cannot be invalidated', 'invalidateblock', chain.atHeight(0)!.hashHex);
  }));

test('gettxout: confirmed outputs, mempool outputs and mempool spends', () =>
  withNode(async (node) => {
    const { chain, params } = node.ctx;
    const coin = node.fixture.coin(1);
    const txid = hashToHex(coin.outpoint.txid);
    const out = (await node.call('gettxout', txid, 0)) as Json;
    assert.deepEqual(out, {
      bestblock: chain.tip.hashHex,
      confirmations: 110,
      value: 12.5,
      scriptPubKey: {
        asm: `0 ${Buffer.from(KEY_SCRIPT.subarray(2)).toString('hex')}`,
        hex: Buffer.from(KEY_SCRIPT).toString('hex'),
        address: scriptToAddress(KEY_SCRIPT, params.address),
        type: 'witness_v0_keyhash',
      },
      coinbase: true,
    });
    assert.equal(await node.call('gettxout', txid, 1), null, 'no such output');
    assert.equal(await node.call('gettxout', UNKNOWN_HASH, 0), null);

    const tx = spend(coin, [COIN_VALUE - 10_000n]);
    admit(node, tx);
    assert.equal(await node.call('gettxout', txid, 0), null, 'spent in the mempool');
    assert.deepEqual(await node.call('gettxout', txid, 0, false), out, 'without the mempool the coin is still there');
    const unconfirmed = (await node.call('gettxout', tx.txidHex, 0)) as Json;
    assert.equal(unconfirmed.confirmations, 0);
    assert.equal(unconfirmed.coinbase, false);
    assert.equal(unconfirmed.value, 12.4999);
    assert.equal(await node.callNamed('gettxout', { txid: tx.txidHex, n: 0, include_mempool: false }), null);

    // n is a C++ int in Core, cast to the outpoint's unsigned index: -1 asks for output 4294967295.
    assert.equal(await node.call('gettxout', txid, -1), null);
    await expectError(node, -1, 'JSON integer out of range', 'gettxout', txid, 2 ** 32 - 1);
    await expectError(node, -1, 'JSON integer out of range', 'gettxout', txid, -(2 ** 31) - 1);
    await expectError(node, -8, "txid must be of length 64 (not 4, for 'beef')", 'gettxout', 'beef', 0);
  }));

test('gettxoutsetinfo: counts, amounts and the documented serialization hash', () =>
  withNode(async (node) => {
    const { chain } = node.ctx;
    const info = (await node.call('gettxoutsetinfo')) as Json;
    assert.deepEqual(Object.keys(info), [
      'height',
      'bestblock',
      'txouts',
      'bogosize',
      'hash_serialized_3',
      'total_amount',
      'transactions',
      'disk_size',
    ]);
    assert.equal(info.height, 110);
    assert.equal(info.bestblock, chain.tip.hashHex);
    // One P2WPKH coinbase output per block from height 1 (the genesis output is not spendable).
    assert.equal(info.txouts, 110);
    assert.equal(info.transactions, 110);
    assert.equal(info.total_amount, 110 * 12.5);
    assert.equal(info.bogosize, 110 * (50 + KEY_SCRIPT.length));
    assert.ok((info.disk_size as number) > 110 * 36);

    // docs/rpc.md: SHA256d over txid ‖ u32le vout ‖ u32le(height×2 + coinbase) ‖ i64le value ‖ script, in txid/vout order.
    const h = createHash('sha256');
    const coins = [...chain.coins()].sort((a, b) => Buffer.compare(a.key, b.key));
    for (const { key, coin } of coins) {
      h.update(
        new Writer()
          .bytes(key.subarray(0, 32))
          .u32le(key.readUInt32BE(32))
          .u32le(coin.height * 2 + 1)
          .i64le(coin.value)
          .varBytes(coin.scriptPubKey)
          .finish(),
      );
    }
    assert.equal(info.hash_serialized_3, hashToHex(createHash('sha256').update(h.digest()).digest()));

    const none = (await node.call('gettxoutsetinfo', 'none')) as Json;
    assert.equal('hash_serialized_3' in none, false);
    assert.equal(none.txouts, 110);

    await mine(chain);
    const after = (await node.call('gettxoutsetinfo')) as Json;
    assert.equal(after.txouts, 111);
    assert.notEqual(after.hash_serialized_3, info.hash_serialized_3);

    await expectError(node, -8, "'muhash' is not a valid hash_type", 'gettxoutsetinfo', 'muhash');
    await expectError(node, -8, 'Querying specific block heights requires coinstatsindex', 'gettxoutsetinfo', 'hash_serialized_3', 5);
  }));

test('gettxoutsetinfo walks one snapshot: blocks connected during the walk do not change what it reports', () =>
  withNode(async (node) => {
    const { chain } = node.ctx;
    const before = await utxoSetStats(chain, true);
    const height = chain.height;
    // A block in the middle of the walk spends coins the walk has not reached yet and creates others.
    const spends = [2, 5, 9].map((h) => spend(node.fixture.coin(h), [COIN_VALUE - 10_000n]));
    let pauses = 0;
    const during = await utxoSetStats(chain, true, {
      yieldEvery: 10,
      pause: async () => {
        if (pauses++ === 0) await mine(chain, spends);
      },
    });
    assert.equal(chain.height, height + 1, 'the block connected while the walk was paused');
    assert.ok(pauses >= 10);
    assert.deepEqual(during, before);
    const after = await utxoSetStats(chain, true);
    assert.equal(after.txouts, before.txouts + 1);
    assert.notEqual(after.hash, before.hash);
    // Other calls are answered while a walk is under way.
    const walk = utxoSetStats(chain, false, { yieldEvery: 1 });
    assert.equal(await node.call('getblockcount'), height + 1);
    assert.equal((await walk).txouts, after.txouts);
  }));

test('savemempool writes mempool.dat in the network folder once the pool has been loaded', () =>
  withNode(async (node) => {
    const { mempool, config } = node.ctx;
    // Before the startup load has run (the harness leaves it to the test), nothing is written.
    assert.equal(mempool.info().loaded, false);
    await expectError(node, -1, 'The mempool was not loaded yet', 'savemempool');
    await mempool.load(null);
    // csd creates its network folder at startup; the harness's chain lives elsewhere.
    mkdirSync(config.paths.networkDir, { recursive: true });
    const tx = spend(node.fixture.coin(1), [COIN_VALUE - 10_000n]);
    admit(node, tx);
    const saved = (await node.call('savemempool')) as Json;
    assert.deepEqual(saved, { filename: join(config.paths.networkDir, 'mempool.dat') });
    const bytes = readFileSync(saved.filename as string);
    assert.ok(bytes.includes(Buffer.from(tx.encode())), 'the file holds the transaction');
  }));

test('getmempoolinfo and getrawmempool follow the pool', () =>
  withNode(async (node) => {
    const empty = (await node.call('getmempoolinfo')) as Json;
    assert.equal(empty.size, 0);
    assert.equal(empty.bytes, 0);
    assert.equal(empty.mempoolminfee, 0.00001);
    assert.deepEqual(await node.call('getrawmempool'), []);
    const seq0 = (await node.call('getrawmempool', false, true)) as Json;
    assert.deepEqual(seq0.txids, []);

    const parent = spend(node.fixture.coin(1), [COIN_VALUE - 10_000n]);
    const child = spend(utxo(parent, 0), [COIN_VALUE - 30_000n]);
    const other = spend(node.fixture.coin(2), [COIN_VALUE - 10_000n]);
    for (const tx of [parent, child, other]) admit(node, tx);

    const info = (await node.call('getmempoolinfo')) as Json;
    assert.equal(info.size, 3);
    assert.equal(info.bytes, parent.vsize + child.vsize + other.vsize);
    assert.equal(info.total_fee, 0.0004);

    const txids = (await node.call('getrawmempool')) as string[];
    assert.equal(txids.length, 3);
    assert.ok(txids.indexOf(parent.txidHex) < txids.indexOf(child.txidHex), 'parents first');
    const seq = (await node.call('getrawmempool', false, true)) as Json;
    assert.deepEqual(seq.txids, txids);
    assert.equal(seq.mempool_sequence, (seq0.mempool_sequence as number) + 3);

    const verbose = (await node.call('getrawmempool', true)) as Record<string, Json>;
    assert.deepEqual(Object.keys(verbose), txids);
    assert.deepEqual(verbose[child.txidHex].depends, [parent.txidHex]);

    await expectError(node, -8, 'Verbose results cannot contain mempool sequence values.', 'getrawmempool', true, true);
  }));

test('getmempoolentry, getmempoolancestors and getmempooldescendants', () =>
  withNode(async (node) => {
    const a = spend(node.fixture.coin(1), [COIN_VALUE - 10_000n]);
    const b = spend(utxo(a, 0), [COIN_VALUE - 20_000n]);
    const c = spend(utxo(b, 0), [COIN_VALUE - 30_000n]);
    for (const tx of [a, b, c]) admit(node, tx);

    const entry = (await node.call('getmempoolentry', b.txidHex)) as Json;
    assert.deepEqual(Object.keys(entry), [
      'vsize',
      'weight',
      'time',
      'height',
      'descendantcount',
      'descendantsize',
      'ancestorcount',
      'ancestorsize',
      'wtxid',
      'fees',
      'depends',
      'spentby',
      'bip125-replaceable',
      'unbroadcast',
    ]);
    assert.equal(entry.vsize, b.vsize);
    assert.equal(entry.weight, b.weight);
    assert.equal(entry.time, node.fixture.now);
    assert.equal(entry.height, 110);
    assert.equal(entry.descendantcount, 2);
    assert.equal(entry.descendantsize, b.vsize + c.vsize);
    assert.equal(entry.ancestorcount, 2);
    assert.equal(entry.ancestorsize, a.vsize + b.vsize);
    assert.equal(entry.wtxid, b.wtxidHex);
    assert.deepEqual(entry.fees, { base: 0.0001, modified: 0.0001, ancestor: 0.0002, descendant: 0.0002 });
    assert.deepEqual(entry.depends, [a.txidHex]);
    assert.deepEqual(entry.spentby, [c.txidHex]);
    assert.equal(entry['bip125-replaceable'], true);
    assert.equal(entry.unbroadcast, false);

    const sorted = (...txs: Transaction[]) => txs.map((t) => t.txidHex).sort();
    assert.deepEqual(await node.call('getmempoolancestors', c.txidHex), sorted(a, b));
    assert.deepEqual(await node.call('getmempoolancestors', a.txidHex), []);
    assert.deepEqual(await node.call('getmempooldescendants', a.txidHex), sorted(b, c));
    const verbose = (await node.call('getmempooldescendants', a.txidHex, true)) as Record<string, Json>;
    assert.deepEqual(Object.keys(verbose), sorted(b, c));
    assert.deepEqual(verbose[b.txidHex], entry);

    for (const method of ['getmempoolentry', 'getmempoolancestors', 'getmempooldescendants']) {
      await expectError(node, -5, 'Transaction not in mempool', method, UNKNOWN_HASH);
      await expectError(node, -8, "parameter 1 must be of length 64 (not 2, for '00')", method, '00');
    }
  }));

test('every blockchain method has full help', () =>
  withNode(async (node) => {
    const names = [
      'getblockchaininfo',
      'getbestblockhash',
      'getblockcount',
      'getblockhash',
      'getblockheader',
      'getblock',
      'getchaintips',
      'getdifficulty',
      'gettxout',
      'gettxoutsetinfo',
      'getmempoolinfo',
      'getrawmempool',
      'getmempoolentry',
      'getmempoolancestors',
      'getmempooldescendants',
      'savemempool',
      'invalidateblock',
      'reconsiderblock',
    ];
    for (const name of names) {
      const help = node.registry.help(name);
      assert.match(help, new RegExp(`^${name}`));
      assert.match(help, /\nResult:\n/);
      assert.match(help, /\nExamples:\n/);
    }
    assert.match(node.registry.help('getblock'), /^getblock "blockhash" \( verbosity \)/);
    assert.match(node.registry.help('gettxout'), /^gettxout "txid" n \( include_mempool \)/);
  }));
