import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  Block,
  BlockHeader,
  MAIN,
  REGTEST,
  Transaction,
  blockProof,
  blockSubsidy,
  compactToTarget,
  fromHex,
  hashFromHex,
  hashToHex,
  hashMeetsTarget,
  mineHeader,
  scriptToAddress,
  sha256d,
  toHex,
  Writer,
} from '@cs/consensus';
import { setTimeout as sleep } from 'node:timers/promises';
import { withRpcNode, type RpcTestNode } from '../../../test/rpc-harness.ts';
import { ANYONE_SCRIPT, COIN_VALUE, KEY_SCRIPT, accepted, mine, spend, utxo } from '../../../test/mempool-harness.ts';
import { addWitnessCommitment, assembleBlock, createCoinbase, solveBlock } from '../../mining/assemble.ts';
import { waitForTemplateChange } from '../../mining/longpoll.ts';
import type { JsonValue } from '../../format/json-value.ts';
import { RpcRegistry } from '../registry.ts';
import { registerMiningMethods } from './mining.ts';

/** Long polling at test speed: mempool checks after 50 ms, then every 20 ms. */
const FAST_LONGPOLL = { firstMempoolCheckMs: 50, mempoolRecheckMs: 20, maxWaitMs: 10_000 };

const run = (fn: (node: RpcTestNode) => Promise<void>, args: readonly string[] = []) =>
  withRpcNode((registry, ctx) => registerMiningMethods(registry, ctx, { longpoll: FAST_LONGPOLL }), fn, args);

interface TemplateTx {
  data: string;
  txid: string;
  hash: string;
  depends: number[];
  fee: number;
  sigops: number;
  weight: number;
}

interface Template {
  capabilities: string[];
  version: number;
  rules: string[];
  vbavailable: Record<string, number>;
  vbrequired: number;
  previousblockhash: string;
  transactions: TemplateTx[];
  coinbaseaux: Record<string, string>;
  coinbasevalue: number;
  longpollid: string;
  target: string;
  mintime: number;
  mutable: string[];
  noncerange: string;
  sigoplimit: number;
  sizelimit: number;
  weightlimit: number;
  curtime: number;
  bits: string;
  height: number;
  default_witness_commitment: string;
  reserved: string;
  finalsaplingroothash: string;
  equihash: { n: number; k: number; personalization: string; twist: boolean; solutionsize: number };
}

const SEGWIT = { rules: ['segwit'] };
/** What regtest's bits 0x200f0f0f decode to. */
const REGTEST_TARGET = `0f0f0f${'00'.repeat(29)}`;

async function template(node: RpcTestNode, request: Record<string, JsonValue> = SEGWIT): Promise<Template> {
  return (await node.call('getblocktemplate', request)) as unknown as Template;
}

/** Adds a transaction to the node's mempool. */
function add(node: RpcTestNode, tx: Transaction): Transaction {
  accepted(node.ctx.mempool.accept(tx));
  return tx;
}

/** A cheap parent, its well-paying child (CPFP) and an independent transaction. */
function scenario(node: RpcTestNode): { parent: Transaction; child: Transaction; other: Transaction; fees: bigint } {
  const parent = add(node, spend(node.fixture.coin(1), [COIN_VALUE - 500n]));
  const child = add(node, spend(utxo(parent, 0), [COIN_VALUE - 500n - 50_000n]));
  const other = add(node, spend(node.fixture.coin(2), [COIN_VALUE - 10_000n]));
  return { parent, child, other, fees: 500n + 50_000n + 10_000n };
}

/** Moves the node's clock (the template cache and block times follow it). */
function advanceClock(node: RpcTestNode, seconds: number): void {
  node.ctx.clock.setMock(node.ctx.clock.now() + seconds);
}

/**
 * A block built by hand from a template, as a pool builds one: its own coinbase (serialized
 * without witness, as stratum pools do) with the template's commitment output.
 */
function blockFromTemplate(tpl: Template, opts: { extraValue?: bigint; withWitness?: boolean } = {}): Block {
  const base = createCoinbase({
    height: tpl.height,
    outputs: [
      { value: BigInt(tpl.coinbasevalue) + (opts.extraValue ?? 0n), scriptPubKey: KEY_SCRIPT },
      { value: 0n, scriptPubKey: fromHex(tpl.default_witness_commitment) },
    ],
    extraNonce: Uint8Array.of(0xca, 0xfe, 0, 1),
  });
  const coinbase = opts.withWitness ? base : new Transaction({ ...base, inputs: [{ ...base.inputs[0], witness: [] }] });
  const txs = tpl.transactions.map((t) => Transaction.decode(fromHex(t.data)));
  return assembleBlock({ prevHash: hashFromHex(tpl.previousblockhash), time: tpl.curtime, bits: parseInt(tpl.bits, 16), txs: [coinbase, ...txs] });
}

function solve(block: Block): Block {
  const solved = solveBlock(block, REGTEST, 10_000);
  assert.ok(solved, 'no solution');
  return solved;
}

const hex = (block: Block): string => toHex(block.encode());

test('getblocktemplate needs the segwit rule and a known mode, as Core', () =>
  run(async (node) => {
    let e = await node.callError('getblocktemplate', {});
    assert.equal(e.code, -8);
    assert.equal(e.message, 'getblocktemplate must be called with the segwit rule set (call with {"rules": ["segwit"]})');
    e = await node.callError('getblocktemplate', { rules: ['csv'] });
    assert.equal(e.code, -8);
    e = await node.callError('getblocktemplate', { mode: 'nonsense', rules: ['segwit'] });
    assert.deepEqual([e.code, e.message], [-8, 'Invalid mode']);
    e = await node.callError('getblocktemplate', { mode: 5, rules: ['segwit'] });
    assert.deepEqual([e.code, e.message], [-8, 'Invalid mode']);
    e = await node.callError('getblocktemplate', { rules: ['segwit', 5] });
    assert.deepEqual([e.code, e.message], [-1, 'JSON value of type number is not of expected type string']);
    e = await node.callError('getblocktemplate');
    assert.equal(e.code, -1);
    e = await node.callError('getblocktemplate', { rules: ['segwit'], longpollid: 'abc' });
    assert.deepEqual([e.code, e.message], [-8, "longpollid must be of length 64 (not 3, for 'abc')"]);
  }));

test('getblocktemplate: fields, coinbase value, CPFP depends, commitment, target', () =>
  run(async (node) => {
    const { chain, params } = node.ctx;
    const { parent, child, other, fees } = scenario(node);
    const tpl = await template(node);
    const tip = chain.tip;

    assert.equal(tpl.height, tip.height + 1);
    assert.equal(tpl.previousblockhash, tip.hashHex);
    assert.equal(tpl.version, 4);
    assert.deepEqual(tpl.capabilities, ['proposal']);
    assert.deepEqual(tpl.rules, ['csv', '!segwit']);
    assert.deepEqual(tpl.vbavailable, {});
    assert.equal(tpl.vbrequired, 0);
    assert.deepEqual(tpl.coinbaseaux, {});
    assert.deepEqual(tpl.mutable, ['time', 'transactions', 'prevblock']);
    assert.equal(tpl.noncerange, '00000000ffffffff');
    assert.deepEqual([tpl.sigoplimit, tpl.sizelimit, tpl.weightlimit], [80_000, 4_000_000, 4_000_000]);
    assert.equal(tpl.coinbasevalue, Number(blockSubsidy(tpl.height, params) + fees));

    // The child pays for its parent: both come first, the child depending on the parent.
    assert.deepEqual(
      tpl.transactions.map((t) => t.txid),
      [parent.txidHex, child.txidHex, other.txidHex],
    );
    assert.deepEqual(
      tpl.transactions.map((t) => t.depends),
      [[], [1], []],
    );
    assert.deepEqual(
      tpl.transactions.map((t) => t.fee),
      [500, 50_000, 10_000],
    );
    for (const [i, tx] of [parent, child, other].entries()) {
      const t = tpl.transactions[i];
      assert.equal(t.data, toHex(tx.encode()));
      assert.equal(t.hash, tx.wtxidHex);
      assert.equal(t.weight, tx.weight);
      assert.equal(t.sigops, node.ctx.mempool.get(tx.txidHex)!.sigOpCost);
    }

    // The commitment is the one the node's own miner computes for these transactions.
    const coinbase = createCoinbase({ height: tpl.height, outputs: [{ value: 1n, scriptPubKey: KEY_SCRIPT }], extraNonce: new Uint8Array(0) });
    const [committed] = addWitnessCommitment([coinbase, parent, child, other]);
    assert.equal(tpl.default_witness_commitment, toHex(committed.outputs.at(-1)!.scriptPubKey));
    assert.match(tpl.default_witness_commitment, /^6a24aa21a9ed[0-9a-f]{64}$/);

    // Target and bits agree; regtest never retargets.
    assert.equal(tpl.bits, '200f0f0f');
    assert.equal(tpl.bits, chain.nextWorkRequired(tip).toString(16).padStart(8, '0'));
    assert.equal(BigInt(`0x${tpl.target}`), compactToTarget(parseInt(tpl.bits, 16)).target);
    // The compact form keeps three bytes of regtest's powLimit (0x0f0f…0f).
    assert.equal(tpl.target, REGTEST_TARGET);

    assert.equal(tpl.mintime, tip.medianTimePast() + 1);
    assert.equal(tpl.curtime, Math.max(tpl.mintime, node.ctx.clock.now()));
    assert.equal(tpl.longpollid, tip.hashHex + String(node.ctx.mempool.sequence));
    assert.equal(tpl.reserved, '00'.repeat(32));
    assert.equal(tpl.finalsaplingroothash, '00'.repeat(32));
    assert.deepEqual(tpl.equihash, { n: 48, k: 5, personalization: 'ZcashPoW', twist: false, solutionsize: 36 });
  }));

test('the template is cached for five seconds of mempool changes, not across a new tip', () =>
  run(async (node) => {
    const first = await template(node);
    assert.equal(first.transactions.length, 0);
    const tx = add(node, spend(node.fixture.coin(3), [COIN_VALUE - 5000n]));
    assert.deepEqual(await template(node), first);
    advanceClock(node, 6);
    const second = await template(node);
    assert.deepEqual(
      second.transactions.map((t) => t.txid),
      [tx.txidHex],
    );
    assert.notEqual(second.longpollid, first.longpollid);
    // A new tip rebuilds at once.
    await mine(node.ctx.chain, [tx]);
    const third = await template(node);
    assert.equal(third.height, second.height + 1);
    assert.equal(third.transactions.length, 0);
  }));

test('-blocktemplaterefresh=0: every mempool change is in the next template, with no time passing', () =>
  run(
    async (node) => {
      const first = await template(node);
      const tx = add(node, spend(node.fixture.coin(3), [COIN_VALUE - 5000n]));
      const second = await template(node);
      assert.deepEqual(
        second.transactions.map((t) => t.txid),
        [tx.txidHex],
      );
      assert.notEqual(second.longpollid, first.longpollid);
      assert.deepEqual(await template(node), second, 'unchanged mempool: the cached template');
    },
    ['-blocktemplaterefresh=0'],
  ));

test('a block built from the template by hand: proposal, submitblock, duplicate', () =>
  run(async (node) => {
    const { chain, mempool } = node.ctx;
    scenario(node);
    const tpl = await template(node);

    const proposal = blockFromTemplate(tpl, { withWitness: true });
    assert.equal(await node.call('getblocktemplate', { mode: 'proposal', data: hex(proposal) }), null);
    // Proposals are checked, never stored.
    assert.equal(chain.entry(proposal.header.hashHex), undefined);

    // As a pool submits it: solved, coinbase without its witness (the node adds the reserved value).
    const solved = solve(blockFromTemplate(tpl));
    assert.equal(solved.txs[0].hasWitness, false);
    assert.equal(await node.call('submitblock', hex(solved)), null);
    assert.equal(chain.tip.hashHex, solved.header.hashHex);
    assert.equal(chain.height, tpl.height);
    assert.equal(mempool.size, 0, 'the block confirmed every mempool transaction');
    assert.equal(chain.readBlock(chain.tip)!.txs[0].inputs[0].witness.length, 1);

    assert.equal(await node.call('submitblock', hex(solved)), 'duplicate');
    assert.equal(await node.call('submitblock', hex(solved), 'ignored'), 'duplicate');
    assert.equal(await node.call('getblocktemplate', { mode: 'proposal', data: hex(solved) }), 'duplicate');
  }));

test('proposal mode reports why a block would be rejected', () =>
  run(async (node) => {
    const { fees } = scenario(node);
    assert.ok(fees > 0n);
    const tpl = await template(node);
    const propose = (block: Block) => node.call('getblocktemplate', { mode: 'proposal', data: hex(block) });

    assert.equal(await propose(blockFromTemplate(tpl, { withWitness: true, extraValue: 1n })), 'bad-cb-amount');
    assert.equal(await propose(blockFromTemplate(tpl)), 'bad-witness-nonce-size');
    const elsewhere = blockFromTemplate({ ...tpl, previousblockhash: node.ctx.chain.atHeight(5)!.hashHex }, { withWitness: true });
    assert.equal(await propose(elsewhere), 'inconclusive-not-best-prevblk');
    const early = blockFromTemplate({ ...tpl, curtime: tpl.mintime - 1 }, { withWitness: true });
    assert.equal(await propose(early), 'time-too-old');

    let e = await node.callError('getblocktemplate', { mode: 'proposal', data: 'zz' });
    assert.deepEqual([e.code, e.message], [-22, 'Block decode failed']);
    e = await node.callError('getblocktemplate', { mode: 'proposal' });
    assert.deepEqual([e.code, e.message], [-3, 'Missing data String key for proposal']);
  }));

test("submitblock answers with the chain's reject reasons (BIP 22)", () =>
  run(async (node) => {
    const { chain } = node.ctx;
    scenario(node);
    const tpl = await template(node);
    const good = solve(blockFromTemplate(tpl, { withWitness: true }));

    // Transactions changed in transit: the header's merkle root no longer matches.
    const [coinbase, ...rest] = good.txs;
    const tampered = new Transaction({
      ...coinbase,
      outputs: [{ ...coinbase.outputs[0], value: coinbase.outputs[0].value + 1n }, coinbase.outputs[1]],
    });
    assert.equal(await node.call('submitblock', hex(new Block(good.header, [tampered, ...rest]))), 'bad-txnmrklroot');

    assert.equal(await node.call('submitblock', hex(solve(blockFromTemplate(tpl, { withWitness: true, extraValue: 1n })))), 'bad-cb-amount');

    const orphan = solve(blockFromTemplate({ ...tpl, previousblockhash: 'ab'.repeat(32) }, { withWitness: true }));
    assert.equal(await node.call('submitblock', hex(orphan)), 'prev-blk-not-found');

    // A valid Equihash solution whose block hash misses the target.
    const unsolved = blockFromTemplate(tpl, { withWitness: true });
    const { target } = compactToTarget(unsolved.header.bits);
    const miss = mineHeader(node.ctx.params.equihash, unsolved.header.prefix(), {
      maxNonces: 1000,
      accept: (h140, sol) => !hashMeetsTarget(sha256d(new Writer(200).bytes(h140).varBytes(sol).finish()), target),
    });
    assert.ok(miss);
    const highHash = new Block(new BlockHeader({ ...unsolved.header, nonce: miss.header140.slice(108), solution: miss.solution }), unsolved.txs);
    assert.equal(await node.call('submitblock', hex(highHash)), 'high-hash');

    let e = await node.callError('submitblock', 'nothex');
    assert.deepEqual([e.code, e.message], [-22, 'Block decode failed']);
    e = await node.callError('submitblock', hex(good).slice(0, -2));
    assert.deepEqual([e.code, e.message], [-22, 'Block decode failed']);

    assert.equal(chain.height, tpl.height - 1, 'nothing was connected');
    assert.equal(await node.call('submitblock', hex(good)), null);
  }));

test('longpoll answers when a block arrives, when the mempool changes, and at once for an old tip', () =>
  run(async (node) => {
    const { chain } = node.ctx;
    const first = await template(node);

    let answered = false;
    const waiting = template(node, { ...SEGWIT, longpollid: first.longpollid }).then((t) => {
      answered = true;
      return t;
    });
    await sleep(200);
    assert.equal(answered, false, 'nothing changed: the request waits');
    await mine(chain);
    const afterBlock = await waiting;
    assert.equal(afterBlock.previousblockhash, chain.tip.hashHex);
    assert.equal(afterBlock.height, first.height + 1);

    // An id naming an earlier tip is answered at once.
    assert.equal((await template(node, { ...SEGWIT, longpollid: first.longpollid })).previousblockhash, chain.tip.hashHex);

    // A mempool change is noticed at the next check; the template is rebuilt once old enough.
    const waitingForTx = template(node, { ...SEGWIT, longpollid: afterBlock.longpollid });
    advanceClock(node, 6);
    const tx = add(node, spend(node.fixture.coin(4), [COIN_VALUE - 5000n]));
    const afterTx = await waitingForTx;
    assert.deepEqual(
      afterTx.transactions.map((t) => t.txid),
      [tx.txidHex],
    );

    // Nothing at all changes: the longest wait ends it.
    const started = Date.now();
    const watch = { tipHash: chain.tip.hashHex, transactionsUpdated: 7 };
    await waitForTemplateChange(chain, watch, () => 7, { firstMempoolCheckMs: 10, mempoolRecheckMs: 10, maxWaitMs: 80 });
    assert.ok(Date.now() - started >= 70);
  }));

test('when the RPC server stops, a waiting long poll answers -9 Shutting down at once', () =>
  run(async (node) => {
    const first = await template(node);
    let answered = false;
    const waiting = node.callError('getblocktemplate', { ...SEGWIT, longpollid: first.longpollid }).finally(() => (answered = true));
    await sleep(50);
    assert.equal(answered, false);
    node.registry.interrupt();
    const e = await waiting;
    assert.deepEqual([e.code, e.message], [-9, 'Shutting down']);
  }));

test('when the RPC server stops, generatetoaddress stops and returns the blocks it mined', () =>
  run(async (node) => {
    const { chain, params } = node.ctx;
    const address = scriptToAddress(ANYONE_SCRIPT, params.address)!;
    const start = chain.height;
    let connects = 0;
    chain.events.on('connect', () => {
      if (++connects === 3) node.registry.interrupt();
    });
    const hashes = (await node.call('generatetoaddress', 1000, address)) as string[];
    assert.deepEqual(
      hashes,
      [1, 2, 3].map((i) => chain.atHeight(start + i)!.hashHex),
    );
    assert.equal(chain.height, start + 3);
  }));

test('generatetoaddress mines mempool transactions to the address; RPC stays responsive', () =>
  run(async (node) => {
    const { chain, params, mempool } = node.ctx;
    const address = scriptToAddress(ANYONE_SCRIPT, params.address)!;
    assert.match(address, /^csrt1q/);
    const tx = add(node, spend(node.fixture.coin(1), [COIN_VALUE - 7000n]));
    const start = chain.height;

    const hashes = (await node.call('generatetoaddress', 3, address)) as string[];
    assert.equal(hashes.length, 3);
    assert.equal(chain.height, start + 3);
    assert.deepEqual(
      hashes,
      [1, 2, 3].map((i) => chain.atHeight(start + i)!.hashHex),
    );
    const first = chain.readBlock(chain.entry(hashes[0])!)!;
    assert.deepEqual(first.txs.map((t) => t.txidHex).slice(1), [tx.txidHex]);
    const cb = first.txs[0];
    assert.equal(cb.outputs[0].value, blockSubsidy(start + 1, params) + 7000n);
    assert.equal(toHex(cb.outputs[0].scriptPubKey), toHex(ANYONE_SCRIPT));
    assert.match(toHex(cb.outputs.at(-1)!.scriptPubKey), /^6a24aa21a9ed/);
    assert.equal(mempool.size, 0);
    // The BIP34 height, then an 8-byte extra nonce unique to this block.
    assert.match(toHex(cb.inputs[0].scriptSig), new RegExp(`^01${(start + 1).toString(16)}08[0-9a-f]{16}$`));
    const second = chain.readBlock(chain.entry(hashes[1])!)!.txs[0];
    assert.notEqual(toHex(second.inputs[0].scriptSig).slice(6), toHex(cb.inputs[0].scriptSig).slice(6));

    const info = (await node.call('getmininginfo')) as { currentblocktx: number; currentblockweight: number };
    assert.equal(info.currentblocktx, 0);
    assert.equal(info.currentblockweight, 4000);

    // A budget of no nonces mines nothing.
    assert.deepEqual(await node.call('generatetoaddress', 2, address, 0), []);
    const e = await node.callError('generatetoaddress', 1, 'csrt1qnotanaddress');
    assert.deepEqual([e.code, e.message], [-5, 'Error: Invalid address']);
    assert.equal((await node.callError('generatetoaddress', 1, scriptToAddress(ANYONE_SCRIPT, MAIN.address)!)).code, -5);

    // Other calls are answered between the blocks of a long run.
    const height = chain.height;
    const generating = node.call('generatetoaddress', 20, address);
    const during = (await node.call('getmininginfo')) as { blocks: number };
    assert.ok(during.blocks < height + 20, `getmininginfo waited for the whole run (${during.blocks})`);
    assert.equal(((await generating) as string[]).length, 20);
    assert.equal(chain.height, height + 20);
  }));

test('generateblock mines the given mempool txids and raw transactions, in order', () =>
  run(async (node) => {
    const { chain, params, mempool } = node.ctx;
    const address = scriptToAddress(KEY_SCRIPT, params.address)!;
    const inPool = add(node, spend(node.fixture.coin(1), [COIN_VALUE - 3000n]));
    const raw = spend(node.fixture.coin(2), [COIN_VALUE - 4000n]);
    const child = spend(utxo(raw, 0), [COIN_VALUE - 4000n - 2000n]);

    const { hash } = (await node.call('generateblock', address, [inPool.txidHex, toHex(raw.encode()), toHex(child.encode())])) as { hash: string };
    assert.equal(chain.tip.hashHex, hash);
    const block = chain.readBlock(chain.tip)!;
    assert.deepEqual(
      block.txs.slice(1).map((t) => t.txidHex),
      [inPool.txidHex, raw.txidHex, child.txidHex],
    );
    assert.equal(block.txs[0].outputs[0].value, blockSubsidy(chain.height, params) + 3000n + 4000n + 2000n);
    assert.equal(mempool.size, 0);

    // submit=false: the block comes back as hex, the chain is unchanged until it is submitted.
    const unsubmitted = (await node.call('generateblock', address, [], false)) as { hash: string; hex: string };
    assert.equal(chain.tip.hashHex, hash);
    assert.equal(Block.decode(fromHex(unsubmitted.hex)).header.hashHex, unsubmitted.hash);
    assert.equal(await node.call('submitblock', unsubmitted.hex), null);
    assert.equal(chain.tip.hashHex, unsubmitted.hash);

    let e = await node.callError('generateblock', address, ['00'.repeat(32)]);
    assert.deepEqual([e.code, e.message], [-5, `Transaction ${'00'.repeat(32)} not in mempool.`]);
    e = await node.callError('generateblock', address, ['beef']);
    assert.deepEqual([e.code, e.message], [-22, 'Transaction decode failed for beef. Make sure the tx has at least one input.']);
    // The raw transaction's coin is spent by now.
    e = await node.callError('generateblock', address, [toHex(raw.encode())]);
    assert.equal(e.code, -25);
    assert.match(e.message, /^TestBlockValidity failed: bad-txns-inputs-missingorspent, /);
    // Outpoints are shown as RPC shows txids (byte-reversed).
    const prevout = raw.inputs[0].prevout;
    assert.ok(e.message.endsWith(`input ${hashToHex(prevout.txid)}:${prevout.vout} missing or spent`), e.message);
    e = await node.callError('generateblock', 'nonsense', []);
    assert.deepEqual([e.code, e.message], [-5, 'Error: Invalid address or descriptor']);
  }));

test('generate methods are regtest-only', () =>
  run(async (node) => {
    // The same node, presented as mainnet to a second registry.
    const registry = new RpcRegistry();
    registerMiningMethods(registry, { ...node.ctx, params: MAIN });
    const address = scriptToAddress(KEY_SCRIPT, MAIN.address)!;
    for (const [method, params] of [
      ['generatetoaddress', [1, address]],
      ['generateblock', [address, []]],
    ] as const) {
      await assert.rejects(registry.call(method, [...params], { uri: '/', peer: '127.0.0.1' }), {
        code: -32601,
        message: 'This method can only be used on regtest',
      });
    }
  }));

test('prioritisetransaction changes the template order, not the fees it reports', () =>
  run(async (node) => {
    const low = add(node, spend(node.fixture.coin(1), [COIN_VALUE - 2000n]));
    const high = add(node, spend(node.fixture.coin(2), [COIN_VALUE - 5000n]));
    const before = await template(node);
    assert.deepEqual(
      before.transactions.map((t) => t.txid),
      [high.txidHex, low.txidHex],
    );

    assert.equal(await node.call('prioritisetransaction', low.txidHex, 0, 10_000), true);
    assert.equal(await node.callNamed('prioritisetransaction', { txid: low.txidHex.toUpperCase(), fee_delta: 1 }), true);
    const absent = 'ab'.repeat(32);
    assert.equal(await node.call('prioritisetransaction', absent, null, -300), true);
    advanceClock(node, 6);
    const after = await template(node);
    assert.deepEqual(
      after.transactions.map((t) => t.txid),
      [low.txidHex, high.txidHex],
    );
    assert.deepEqual(
      after.transactions.map((t) => t.fee),
      [2000, 5000],
    );
    assert.equal(after.coinbasevalue, before.coinbasevalue);
    assert.deepEqual(await node.call('getprioritisedtransactions'), {
      [low.txidHex]: { fee_delta: 10_001, in_mempool: true, modified_fee: 12_001 },
      [absent]: { fee_delta: -300, in_mempool: false },
    });

    let e = await node.callError('prioritisetransaction', low.txidHex, 1, 10);
    assert.deepEqual([e.code, e.message], [-8, 'Priority is no longer supported, dummy argument to prioritisetransaction must be 0.']);
    e = await node.callError('prioritisetransaction', low.txidHex, 'x', 10);
    assert.equal(e.code, -3);
    e = await node.callError('prioritisetransaction', 'abc', 0, 10);
    assert.deepEqual([e.code, e.message], [-8, "txid must be of length 64 (not 3, for 'abc')"]);
    e = await node.callError('prioritisetransaction', 'zz'.repeat(32), 0, 10);
    assert.deepEqual([e.code, e.message], [-8, `txid must be hexadecimal string (not '${'zz'.repeat(32)}')`]);
    e = await node.callError('prioritisetransaction', low.txidHex, 0, 1.5);
    assert.equal(e.code, -1);
  }));

test('getmininginfo and getnetworkhashps', () =>
  run(async (node) => {
    const { chain, params } = node.ctx;
    // The fixture's blocks are one second apart, each worth the proof of powLimit.
    const perBlock = Number(blockProof(params.powLimitBits));
    assert.equal(await node.call('getnetworkhashps'), Number(BigInt(chain.height) * blockProof(params.powLimitBits)) / chain.height);
    assert.equal(await node.call('getnetworkhashps', 10), perBlock);
    assert.equal(await node.call('getnetworkhashps', -1, 100), perBlock);
    assert.equal(await node.call('getnetworkhashps', 5, 0), 0);
    let e = await node.callError('getnetworkhashps', 0);
    assert.deepEqual([e.code, e.message], [-8, 'Invalid nblocks. Must be a positive number or -1.']);
    e = await node.callError('getnetworkhashps', 120, chain.height + 1);
    assert.deepEqual([e.code, e.message], [-8, 'Block does not exist at specified height']);
    // Both are C++ ints in Core.
    for (const args of [[3_000_000_000], [1, 2 ** 31], [-(2 ** 31) - 1]]) {
      e = await node.callError('getnetworkhashps', ...args);
      assert.deepEqual([e.code, e.message], [-1, 'JSON integer out of range']);
    }

    add(node, spend(node.fixture.coin(1), [COIN_VALUE - 2000n]));
    const info = (await node.call('getmininginfo')) as Record<string, JsonValue>;
    assert.deepEqual(info, {
      blocks: chain.height,
      bits: '200f0f0f',
      difficulty: 1,
      target: REGTEST_TARGET,
      networkhashps: await node.call('getnetworkhashps'),
      pooledtx: 1,
      chain: 'regtest',
      next: { height: chain.height + 1, bits: '200f0f0f', difficulty: 1, target: REGTEST_TARGET },
      warnings: [],
    });
    // Once a template was assembled, its shape shows.
    const tpl = await template(node);
    const after = (await node.call('getmininginfo')) as Record<string, JsonValue>;
    assert.equal(after.currentblocktx, 1);
    assert.equal(after.currentblockweight, 4000 + tpl.transactions[0].weight);
  }));

test("estimatesmartfee: Core's errors, no data, then an estimate", () =>
  run(async (node) => {
    let e = await node.callError('estimatesmartfee', 0);
    assert.deepEqual([e.code, e.message], [-8, 'Invalid conf_target, must be between 1 and 1008']);
    e = await node.callError('estimatesmartfee', 1009);
    assert.equal(e.code, -8);
    e = await node.callError('estimatesmartfee', 6, 'cheap');
    assert.deepEqual([e.code, e.message], [-8, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"']);
    assert.deepEqual(await node.call('estimatesmartfee', 6), { errors: ['Insufficient data or no feerate found'], blocks: 0 });

    // 200 blocks in which transactions paying 50 units/vbyte confirm in the next block.
    const estimator = node.ctx.feeEstimator;
    estimator.processBlock(1, []);
    for (let h = 1; h <= 200; h++) {
      const txs = Array.from({ length: 10 }, (_, i) => ({ txid: `${h}-${i}`, fee: 10_000n, vsize: 200, height: h }));
      for (const t of txs) estimator.processTransaction(t, true);
      estimator.processBlock(h + 1, txs);
    }
    assert.deepEqual(await node.call('estimatesmartfee', 2), { feerate: 0.0005, blocks: 2 });
    assert.deepEqual(await node.call('estimatesmartfee', 1, 'CONSERVATIVE'), { feerate: 0.0005, blocks: 2 });
  }));
