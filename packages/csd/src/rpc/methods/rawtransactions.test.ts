import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Transaction,
  hash160,
  hashToHex,
  multisigScript,
  nullDataScript,
  p2pkhScript,
  p2shScript,
  p2wpkhScript,
  p2wshScript,
  publicKeyCreate,
  scriptToAddress,
  sha256,
  toHex,
} from '@cs/consensus';
import { withRpcNode, type RpcTestNode } from '../../../test/rpc-harness.ts';
import { ANYONE_SCRIPT, COIN_VALUE, KEY_SCRIPT, accepted, buildTx, mine, spend, utxo } from '../../../test/mempool-harness.ts';
import type { NodeContext } from '../../node/context.ts';
import { feeRateOf, feeRateToCoins } from '../../policy/feerate.ts';
import type { TxIndex } from '../context.ts';
import type { RpcRegistry } from '../registry.ts';
import { registerBlockchainMethods } from './blockchain.ts';
import { registerRawTransactionMethods } from './rawtransactions.ts';
import { decodeHexTx } from './rawtransactions/decode.ts';

type Json = Record<string, unknown>;

const withNode = (fn: (node: RpcTestNode) => Promise<void>, txIndex?: TxIndex) =>
  withRpcNode((registry: RpcRegistry, ctx: NodeContext) => {
    registerBlockchainMethods(registry, ctx);
    registerRawTransactionMethods(registry, { ...ctx, txIndex });
  }, fn);

async function expectError(node: RpcTestNode, code: number, message: string | RegExp, method: string, ...params: unknown[]) {
  const e = await node.callError(method, ...(params as never[]));
  assert.equal(e.code, code, `${method}: ${e.message}`);
  if (typeof message === 'string') assert.equal(e.message, message);
  else assert.match(e.message, message);
}

const hex = (tx: Transaction) => toHex(tx.encode());
const UNKNOWN_HASH = 'ab'.repeat(32);
const NOT_FOUND_HINT = 'Use gettransaction for wallet transactions.';
const addr = (node: RpcTestNode, script: Uint8Array) => scriptToAddress(script, node.ctx.params.address)!;

test('getrawtransaction: mempool transactions by txid, confirmed ones with their block hash', () =>
  withNode(async (node) => {
    const { chain, mempool } = node.ctx;
    const tx = spend(node.fixture.coin(1), [COIN_VALUE - 10_000n], {}, KEY_SCRIPT);
    accepted(mempool.accept(tx));

    assert.equal(await node.call('getrawtransaction', tx.txidHex), hex(tx));
    const v1 = (await node.call('getrawtransaction', tx.txidHex, 1)) as Json;
    assert.deepEqual(Object.keys(v1), ['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout', 'hex']);
    assert.equal(v1.txid, tx.txidHex);
    assert.equal(v1.hash, tx.wtxidHex);
    assert.equal(v1.hex, hex(tx));
    assert.deepEqual(await node.call('getrawtransaction', tx.txidHex, true), v1);
    assert.deepEqual(await node.call('getrawtransaction', tx.txidHex, 2), v1, 'no undo data for a mempool transaction');
    assert.equal(await node.call('getrawtransaction', tx.txidHex, false), hex(tx));

    await mine(chain, [tx]);
    const block = chain.tip;
    await expectError(
      node,
      -5,
      `No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries. ${NOT_FOUND_HINT}`,
      'getrawtransaction',
      tx.txidHex,
    );
    const inBlock = (await node.call('getrawtransaction', tx.txidHex, 1, block.hashHex)) as Json;
    assert.deepEqual(Object.keys(inBlock), [
      'in_active_chain',
      'txid',
      'hash',
      'version',
      'size',
      'vsize',
      'weight',
      'locktime',
      'vin',
      'vout',
      'hex',
      'blockhash',
      'confirmations',
      'time',
      'blocktime',
    ]);
    assert.equal(inBlock.in_active_chain, true);
    assert.equal(inBlock.blockhash, block.hashHex);
    assert.equal(inBlock.confirmations, 1);
    assert.equal(inBlock.time, block.time);
    assert.equal(inBlock.blocktime, block.time);

    const v2 = (await node.call('getrawtransaction', tx.txidHex, 2, block.hashHex)) as Json;
    assert.equal(v2.fee, 0.0001);
    const vin = (v2.vin as Json[])[0];
    assert.deepEqual(vin.prevout, {
      generated: true,
      height: 1,
      value: 12.5,
      scriptPubKey: {
        asm: `0 ${toHex(KEY_SCRIPT.subarray(2))}`,
        hex: toHex(KEY_SCRIPT),
        address: addr(node, KEY_SCRIPT),
        type: 'witness_v0_keyhash',
      },
    });

    const coinbase = chain.readBlock(block)!.txs[0];
    const cb = (await node.call('getrawtransaction', coinbase.txidHex, 2, block.hashHex)) as Json;
    assert.equal('fee' in cb, false, 'a coinbase has no fee');
    assert.equal(cb.confirmations, 1);

    await mine(chain);
    assert.equal(((await node.call('getrawtransaction', tx.txidHex, 1, block.hashHex)) as Json).confirmations, 2);
    await node.call('invalidateblock', block.hashHex);
    const stale = (await node.call('getrawtransaction', coinbase.txidHex, 1, block.hashHex)) as Json;
    assert.equal(stale.in_active_chain, false);
    assert.equal(stale.confirmations, 0);
    assert.equal('time' in stale, false);
  }));

test('getrawtransaction errors', () =>
  withNode(async (node) => {
    const { chain, params } = node.ctx;
    const someBlock = chain.atHeight(5)!.hashHex;
    await expectError(
      node,
      -5,
      `No such transaction found in the provided block. ${NOT_FOUND_HINT}`,
      'getrawtransaction',
      UNKNOWN_HASH,
      0,
      someBlock,
    );
    await expectError(node, -5, 'Block hash not found', 'getrawtransaction', UNKNOWN_HASH, 0, UNKNOWN_HASH);
    await expectError(
      node,
      -5,
      'The genesis block coinbase is not considered an ordinary transaction and cannot be retrieved',
      'getrawtransaction',
      hashToHex(params.genesis.header.merkleRoot),
    );
    await expectError(node, -8, "parameter 1 must be of length 64 (not 2, for 'ab')", 'getrawtransaction', 'ab');
    await expectError(
      node,
      -8,
      `parameter 3 must be hexadecimal string (not '${'g'.repeat(64)}')`,
      'getrawtransaction',
      UNKNOWN_HASH,
      0,
      'g'.repeat(64),
    );
    await expectError(node, -1, 'JSON value of type string is not of expected type number', 'getrawtransaction', UNKNOWN_HASH, '1');
  }));

test('getrawtransaction asks a transaction index, when one is plugged in', async () => {
  let synced = false;
  let indexed: { tx: Transaction; blockHash: string } | undefined;
  const txIndex: TxIndex = { find: async (txid) => (indexed?.tx.txidHex === txid ? indexed : undefined), synced: () => synced };
  await withNode(async (node) => {
    const { chain } = node.ctx;
    await expectError(
      node,
      -5,
      `No such mempool transaction. Blockchain transactions are still in the process of being indexed. ${NOT_FOUND_HINT}`,
      'getrawtransaction',
      UNKNOWN_HASH,
    );
    synced = true;
    await expectError(node, -5, `No such mempool or blockchain transaction. ${NOT_FOUND_HINT}`, 'getrawtransaction', UNKNOWN_HASH);

    const entry = chain.atHeight(50)!;
    const coinbase = chain.readBlock(entry)!.txs[0];
    indexed = { tx: coinbase, blockHash: entry.hashHex };
    const found = (await node.call('getrawtransaction', coinbase.txidHex, 1)) as Json;
    assert.equal(found.blockhash, entry.hashHex);
    assert.equal(found.confirmations, 61);
    assert.equal('in_active_chain' in found, false, 'only with an explicit block hash');
  }, txIndex);
});

test('decoderawtransaction: signed, unsigned and malformed transactions', () =>
  withNode(async (node) => {
    const tx = spend(node.fixture.coin(1), [COIN_VALUE - 10_000n], {}, KEY_SCRIPT);
    const decoded = (await node.call('decoderawtransaction', hex(tx))) as Json;
    assert.deepEqual(Object.keys(decoded), ['txid', 'hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'vout']);
    assert.equal(decoded.txid, tx.txidHex);
    assert.equal(decoded.hash, tx.wtxidHex);
    assert.equal(decoded.vsize, tx.vsize);
    const [vin] = decoded.vin as Json[];
    assert.equal(vin.txid, hashToHex(node.fixture.coin(1).outpoint.txid));
    assert.equal((vin.txinwitness as string[]).length, 2);
    assert.equal(vin.sequence, 0xfffffffd);
    const [vout] = decoded.vout as { value: number; n: number; scriptPubKey: Json }[];
    assert.equal(vout.value, 12.4999);
    assert.equal(vout.scriptPubKey.address, addr(node, KEY_SCRIPT));
    assert.deepEqual(await node.call('decoderawtransaction', hex(tx), true), decoded);

    await expectError(node, -22, 'TX decode failed', 'decoderawtransaction', hex(tx), false);
    await expectError(node, -22, 'TX decode failed', 'decoderawtransaction', 'zz');
    await expectError(node, -22, 'TX decode failed', 'decoderawtransaction', '');
    await expectError(node, -22, 'TX decode failed', 'decoderawtransaction', `${hex(tx)}00`);
    await expectError(node, -22, 'TX decode failed', 'decoderawtransaction', hex(tx).slice(0, 40));
    await expectError(node, -3, /^Wrong type passed/, 'decoderawtransaction', 5);
  }));

test('decodeHexTx reads a transaction without inputs the legacy way, as Core does', () => {
  const noInputs = new Transaction({ version: 2, inputs: [], outputs: [{ value: 1000n, scriptPubKey: ANYONE_SCRIPT }], locktime: 0 });
  const decoded = decodeHexTx(hex(noInputs))!;
  assert.equal(decoded.inputs.length, 0);
  assert.equal(decoded.outputs.length, 1);
  assert.equal(decodeHexTx(hex(noInputs), true, false)!.txidHex, noInputs.txidHex);
  assert.equal(decodeHexTx(hex(noInputs), false, true), null, 'read as witness data it does not parse');
});

test('decodescript: P2PKH, P2SH, P2WPKH, multisig, nulldata and edge cases', () =>
  withNode(async (node) => {
    const decode = async (script: Uint8Array) => (await node.call('decodescript', toHex(script))) as Json;
    const p2sh = (script: Uint8Array) => addr(node, p2shScript(hash160(script)));
    const keyHash = hash160(publicKeyCreate(new Uint8Array(32).fill(7)));

    const pkh = p2pkhScript(keyHash);
    const segwitOfPkh = p2wpkhScript(keyHash);
    assert.deepEqual(await decode(pkh), {
      asm: `OP_DUP OP_HASH160 ${toHex(keyHash)} OP_EQUALVERIFY OP_CHECKSIG`,
      address: addr(node, pkh),
      type: 'pubkeyhash',
      p2sh: p2sh(pkh),
      segwit: {
        asm: `0 ${toHex(keyHash)}`,
        hex: toHex(segwitOfPkh),
        address: addr(node, segwitOfPkh),
        type: 'witness_v0_keyhash',
        'p2sh-segwit': p2sh(segwitOfPkh),
      },
    });
    assert.match(addr(node, pkh), /^c/);

    const sh = p2shScript(keyHash);
    assert.deepEqual(await decode(sh), { asm: `OP_HASH160 ${toHex(keyHash)} OP_EQUAL`, address: addr(node, sh), type: 'scripthash' });

    const wpkh = p2wpkhScript(keyHash);
    assert.deepEqual(await decode(wpkh), { asm: `0 ${toHex(keyHash)}`, address: addr(node, wpkh), type: 'witness_v0_keyhash', p2sh: p2sh(wpkh) });

    const keys = [1, 2].map((i) => publicKeyCreate(new Uint8Array(32).fill(i)));
    const multi = multisigScript(1, keys);
    const wsh = p2wshScript(sha256(multi));
    assert.deepEqual(await decode(multi), {
      asm: `1 ${toHex(keys[0])} ${toHex(keys[1])} 2 OP_CHECKMULTISIG`,
      type: 'multisig',
      p2sh: p2sh(multi),
      segwit: {
        asm: `0 ${toHex(sha256(multi))}`,
        hex: toHex(wsh),
        address: addr(node, wsh),
        type: 'witness_v0_scripthash',
        'p2sh-segwit': p2sh(wsh),
      },
    });
    const uncompressed = multisigScript(1, [publicKeyCreate(new Uint8Array(32).fill(1), false), keys[1]]);
    const legacyOnly = await decode(uncompressed);
    assert.equal(legacyOnly.p2sh, p2sh(uncompressed));
    assert.equal('segwit' in legacyOnly, false, 'segwit needs compressed keys');

    const data = nullDataScript(Uint8Array.of(0xde, 0xad, 0xbe, 0xef, 0xca, 0xfe));
    assert.deepEqual(await decode(data), { asm: 'OP_RETURN deadbeefcafe', type: 'nulldata' });

    const empty = (await node.call('decodescript', '')) as Json;
    assert.equal(empty.asm, '');
    assert.equal(empty.type, 'nonstandard');
    assert.equal(empty.p2sh, p2sh(new Uint8Array(0)));
    assert.equal((empty.segwit as Json).type, 'witness_v0_scripthash');

    const withCat = await decode(Uint8Array.of(0x51, 0x51, 0x7e));
    assert.deepEqual(withCat, { asm: '1 1 OP_CAT', type: 'nonstandard' }, 'scripts with OP_SUCCESS opcodes are not wrapped');

    await expectError(node, -8, "argument must be hexadecimal string (not 'zz')", 'decodescript', 'zz');
    await expectError(node, -8, "argument must be hexadecimal string (not 'abc')", 'decodescript', 'abc');
  }));

test('createrawtransaction round-trips through decoderawtransaction', () =>
  withNode(async (node) => {
    const txid = hashToHex(node.fixture.coin(1).outpoint.txid);
    const other = hashToHex(node.fixture.coin(2).outpoint.txid);
    const to = addr(node, KEY_SCRIPT);
    const legacy = addr(node, p2pkhScript(new Uint8Array(20).fill(3)));
    const rawHex = (await node.call(
      'createrawtransaction',
      [
        { txid, vout: 0 },
        { txid: other, vout: 0, sequence: 7 },
      ],
      { [to]: 1.5, data: 'cafe', [legacy]: '0.00001' },
      500,
    )) as string;
    const tx = Transaction.decode(Buffer.from(rawHex, 'hex'));
    assert.equal(tx.version, 2);
    assert.equal(tx.locktime, 500);

    const decoded = (await node.call('decoderawtransaction', rawHex)) as Json;
    const vin = decoded.vin as Json[];
    assert.deepEqual(
      vin.map((i) => [i.txid, i.vout, i.sequence, (i.scriptSig as Json).hex]),
      [
        [txid, 0, 0xfffffffd, ''],
        [other, 0, 7, ''],
      ],
    );
    const vout = decoded.vout as { value: number; scriptPubKey: Json }[];
    assert.deepEqual(
      vout.map((o) => [o.value, o.scriptPubKey.type, o.scriptPubKey.address ?? null]),
      [
        [1.5, 'witness_v0_keyhash', to],
        [0, 'nulldata', null],
        [0.00001, 'pubkeyhash', legacy],
      ],
    );
    assert.equal(vout[1].scriptPubKey.hex, '6a02cafe');

    // Sequences follow `replaceable` and the locktime when not given.
    const seq = async (...rest: unknown[]) => {
      const h = (await node.call('createrawtransaction', [{ txid, vout: 1 }], [{ [to]: 1 }], ...(rest as never[]))) as string;
      return Transaction.decode(Buffer.from(h, 'hex')).inputs[0].sequence;
    };
    assert.equal(await seq(), 0xfffffffd);
    assert.equal(await seq(0, false), 0xffffffff);
    assert.equal(await seq(1, false), 0xfffffffe);
    assert.equal(await seq(0, true), 0xfffffffd);

    // No inputs: the array form and named parameters; decoded the legacy way.
    const bare = (await node.callNamed('createrawtransaction', { inputs: [], outputs: [{ [to]: 2 }, { data: '00' }] })) as string;
    const bareJson = (await node.call('decoderawtransaction', bare)) as Json;
    assert.deepEqual(bareJson.vin, []);
    assert.equal((bareJson.vout as unknown[]).length, 2);
  }));

test('createrawtransaction errors', () =>
  withNode(async (node) => {
    const txid = hashToHex(node.fixture.coin(1).outpoint.txid);
    const to = addr(node, KEY_SCRIPT);
    const input = [{ txid, vout: 0 }];
    const create = (...params: unknown[]) => ['createrawtransaction', ...params] as const;
    await expectError(node, -8, `Invalid parameter, duplicated address: ${to}`, ...create(input, [{ [to]: 1 }, { [to]: 2 }]));
    await expectError(
      node,
      -8,
      `Invalid parameter, duplicated address: ${to.toUpperCase()}`,
      ...create(input, [{ [to]: 1 }, { [to.toUpperCase()]: 2 }]),
    );
    await expectError(node, -5, 'Invalid cs address: nonsense', ...create(input, { nonsense: 1 }));
    await expectError(node, -3, 'Invalid amount', ...create(input, { nonsense: 'x' }));
    await expectError(node, -8, 'Invalid parameter, duplicate key: data', ...create(input, [{ data: '00' }, { data: '01' }]));
    await expectError(node, -8, "Data must be hexadecimal string (not 'xyz')", ...create(input, { data: 'xyz' }));
    await expectError(node, -8, 'Invalid parameter, key-value pair not an object as expected', ...create(input, [5]));
    await expectError(node, -8, 'Invalid parameter, key-value pair must contain exactly one key', ...create(input, [{ [to]: 1, data: '00' }]));
    await expectError(node, -8, 'Invalid parameter, output argument must be non-null', ...create(input, null));
    await expectError(node, -1, 'JSON value of type string is not of expected type array', ...create(input, 'x'));
    await expectError(node, -8, 'Invalid parameter, missing vout key', ...create([{ txid }], { [to]: 1 }));
    await expectError(node, -8, 'Invalid parameter, vout cannot be negative', ...create([{ txid, vout: -1 }], { [to]: 1 }));
    await expectError(node, -1, 'JSON integer out of range', ...create([{ txid, vout: 0.5 }], { [to]: 1 }));
    await expectError(node, -8, 'Invalid parameter, sequence number is out of range', ...create([{ txid, vout: 0, sequence: 2 ** 32 }], { [to]: 1 }));
    await expectError(node, -8, 'Invalid parameter, sequence number is out of range', ...create([{ txid, vout: 0, sequence: -1 }], { [to]: 1 }));
    await expectError(node, -8, "txid must be of length 64 (not 3, for 'abc')", ...create([{ txid: 'abc', vout: 0 }], { [to]: 1 }));
    await expectError(node, -1, 'JSON value of type null is not of expected type string', ...create([{ vout: 0 }], { [to]: 1 }));
    await expectError(node, -1, 'JSON value of type number is not of expected type object', ...create([1], { [to]: 1 }));
    await expectError(node, -8, 'Invalid parameter, locktime out of range', ...create(input, { [to]: 1 }, -1));
    await expectError(node, -8, 'Invalid parameter, locktime out of range', ...create(input, { [to]: 1 }, 2 ** 32));
    await expectError(
      node,
      -8,
      'Invalid parameter combination: Sequence number(s) contradict replaceable option',
      ...create([{ txid, vout: 0, sequence: 0xffffffff }], { [to]: 1 }, 0, true),
    );
    await expectError(node, -3, /^Wrong type passed/, ...create({}, { [to]: 1 }));
  }));

test('sendrawtransaction: accepted, already known, and every refusal with its code', () =>
  withNode(async (node) => {
    const { chain, mempool } = node.ctx;
    const { coin } = node.fixture;
    const tx = spend(coin(1), [COIN_VALUE - 10_000n]);
    assert.equal(await node.call('sendrawtransaction', hex(tx)), tx.txidHex);
    assert.ok(mempool.has(tx.txidHex));
    assert.deepEqual(mempool.unbroadcast(), [tx.txidHex]);
    assert.equal(await node.call('sendrawtransaction', hex(tx)), tx.txidHex, 'already in the mempool: its txid again');
    // Sent again after a peer took it: unbroadcast again, as Core's BroadcastTransaction with relay.
    mempool.markBroadcast(tx.txidHex);
    assert.equal(await node.call('sendrawtransaction', hex(tx)), tx.txidHex);
    assert.deepEqual(mempool.unbroadcast(), [tx.txidHex]);

    await expectError(node, -22, 'TX decode failed. Make sure the tx has at least one input.', 'sendrawtransaction', 'zz');
    const orphan = spend({ outpoint: { txid: new Uint8Array(32).fill(9), vout: 0 }, output: { value: COIN_VALUE, scriptPubKey: ANYONE_SCRIPT } }, [
      COIN_VALUE - 10_000n,
    ]);
    await expectError(node, -25, 'bad-txns-inputs-missingorspent', 'sendrawtransaction', hex(orphan));
    await expectError(node, -26, /^dust/, 'sendrawtransaction', hex(spend(coin(2), [100n])));
    const conflict = spend(coin(1), [COIN_VALUE - 5_000n]);
    await expectError(node, -26, /^insufficient fee/, 'sendrawtransaction', hex(conflict));

    const generous = spend(coin(3), [COIN_VALUE / 2n]);
    await expectError(node, -25, 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)', 'sendrawtransaction', hex(generous));
    await expectError(node, -8, 'Fee rates larger than or equal to 1 coin/kvB are not accepted', 'sendrawtransaction', hex(generous), 1);
    assert.equal(await node.call('sendrawtransaction', hex(generous), 0), generous.txidHex, 'maxfeerate 0 accepts any fee');

    const burn = buildTx({
      inputs: [coin(4)],
      outputs: [
        { value: 1000n, scriptPubKey: nullDataScript(Uint8Array.of(1, 2, 3)) },
        { value: COIN_VALUE - 20_000n, scriptPubKey: ANYONE_SCRIPT },
      ],
    });
    await expectError(node, -25, 'Unspendable output exceeds maximum configured by user (maxburnamount)', 'sendrawtransaction', hex(burn));
    assert.equal(await node.callNamed('sendrawtransaction', { hexstring: hex(burn), maxburnamount: 0.00001 }), burn.txidHex);

    const confirmed = spend(coin(5), [COIN_VALUE - 10_000n]);
    await mine(chain, [confirmed]);
    await expectError(node, -27, 'Transaction outputs already in utxo set', 'sendrawtransaction', hex(confirmed));
  }));

test('maxfeerate: sendrawtransaction sizes the cap without sigops, testmempoolaccept with them, as Core', () =>
  withNode(async (node) => {
    // 100 bare 1-of-1 multisig outputs: 8,000 sigop cost, so a sigop-adjusted vsize of 40,000
    // against about 4,700 vbytes of weight.
    const multisig = multisigScript(1, [Uint8Array.of(0x02, ...new Uint8Array(32).fill(1))]);
    const fee = 50_000_000n;
    const each = (COIN_VALUE - fee) / 100n;
    const heavy = buildTx({ inputs: [node.fixture.coin(1)], outputs: Array.from({ length: 100 }, () => ({ value: each, scriptPubKey: multisig })) });
    const rate = 0.05; // coins/kvB: 5,000,000 units/kvB caps the fee at ~23.5M by weight, 200M with sigops
    assert.ok(feeRateOf(fee, heavy.vsize) > 5_000_000n);
    const [verdict] = (await node.call('testmempoolaccept', [hex(heavy)], rate)) as Json[];
    assert.equal(verdict.allowed, true);
    await expectError(node, -25, 'Fee exceeds maximum configured by user (e.g. -maxtxfee, maxfeerate)', 'sendrawtransaction', hex(heavy), rate);
  }));

test('testmempoolaccept: per-transaction verdicts without changing the pool', () =>
  withNode(async (node) => {
    const { mempool } = node.ctx;
    const { coin } = node.fixture;
    const tx = spend(coin(1), [COIN_VALUE - 10_000n]);
    const [ok] = (await node.call('testmempoolaccept', [hex(tx)])) as Json[];
    assert.deepEqual(ok, {
      txid: tx.txidHex,
      wtxid: tx.wtxidHex,
      allowed: true,
      vsize: tx.vsize,
      fees: { base: 0.0001, 'effective-feerate': feeRateToCoins(feeRateOf(10_000n, tx.vsize)), 'effective-includes': [tx.wtxidHex] },
    });
    assert.equal(mempool.size, 0);

    const child = spend(utxo(tx, 0), [COIN_VALUE - 20_000n]);
    const generous = spend(coin(2), [COIN_VALUE / 2n]);
    const results = (await node.call('testmempoolaccept', [hex(tx), hex(child), hex(generous)])) as Json[];
    assert.deepEqual(
      results.map((r) => [r.txid, r.allowed, r['reject-reason'] ?? null]),
      [
        [tx.txidHex, true, null],
        [child.txidHex, false, 'missing-inputs'],
        [generous.txidHex, false, 'max-fee-exceeded'],
      ],
    );
    const [lenient] = (await node.call('testmempoolaccept', [hex(generous)], 0)) as Json[];
    assert.equal(lenient.allowed, true);

    accepted(mempool.accept(tx));
    const [again] = (await node.call('testmempoolaccept', [hex(tx)])) as Json[];
    assert.deepEqual(again, { txid: tx.txidHex, wtxid: tx.wtxidHex, allowed: false, 'reject-reason': 'txn-already-in-mempool' });

    await expectError(node, -8, 'Array must contain between 1 and 25 transactions.', 'testmempoolaccept', []);
    await expectError(node, -8, 'Array must contain between 1 and 25 transactions.', 'testmempoolaccept', new Array(26).fill(hex(tx)));
    await expectError(node, -22, 'TX decode failed: zz Make sure the tx has at least one input.', 'testmempoolaccept', ['zz']);
    await expectError(node, -1, 'JSON value of type number is not of expected type string', 'testmempoolaccept', [5]);
    await expectError(node, -8, 'Fee rates larger than or equal to 1 coin/kvB are not accepted', 'testmempoolaccept', [hex(tx)], 2);
  }));

test('every raw transaction method has full help', () =>
  withNode(async (node) => {
    for (const name of [
      'getrawtransaction',
      'decoderawtransaction',
      'decodescript',
      'createrawtransaction',
      'sendrawtransaction',
      'testmempoolaccept',
    ]) {
      const help = node.registry.help(name);
      assert.match(help, new RegExp(`^${name}`));
      assert.match(help, /\nArguments:\n/);
      assert.match(help, /\nResult:\n/);
    }
    assert.match(node.registry.help('createrawtransaction'), /^createrawtransaction inputs outputs \( locktime replaceable \)/);
  }));
