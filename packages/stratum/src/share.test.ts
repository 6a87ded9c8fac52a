import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Block, REGTEST, Transaction, addressToScript, fromHex, hashToHex, solveHeader, toHex, Writer } from '@cs/consensus';
import { StratumError, StratumErrorCode } from './codec.ts';
import { blockHex, buildJob, headerPrefix, notifyParams, parseNotify, prepareTemplate, type BlockTemplate } from './job.ts';
import { parseSubmit } from './methods.ts';
import { checkShareSolution, openShare, settleShare, validateShare, type ShareContext } from './share.ts';
import { targetToHex, UINT256_MAX } from './target.ts';

const POOL_ADDRESS = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';
const NOW = 1_795_133_510;

// The shape csd's getblocktemplate answers with (docs/mining.md).
function template(overrides: Partial<BlockTemplate> = {}): BlockTemplate {
  return {
    version: 4,
    previousblockhash: `${'11'.repeat(31)}22`,
    transactions: [],
    coinbasevalue: 1_250_000_000,
    target: targetToHex(REGTEST.powLimit),
    mintime: NOW - 100,
    curtime: NOW,
    bits: '200f0f0f',
    height: 111,
    default_witness_commitment: `6a24aa21a9ed${'ab'.repeat(32)}`,
    finalsaplingroothash: '00'.repeat(32),
    ...overrides,
  };
}

function job(overrides: Partial<BlockTemplate> = {}) {
  return buildJob({
    id: '1f',
    template: prepareTemplate(template(overrides)),
    payouts: [{ value: 1_250_000_000n, scriptPubKey: addressToScript(POOL_ADDRESS, REGTEST.address) }],
    coinbaseTag: new TextEncoder().encode('/cs-pool/'),
    equihash: REGTEST.equihash,
  });
}

const NONCE1 = Uint8Array.of(0xde, 0xad, 0xbe, 0xef);

/** Solves nonces until a solution exists; returns the submit params a miner would send. */
function mine(j = job(), startNonce = 0) {
  for (let n = startNonce; ; n++) {
    const nonce2 = new Uint8Array(28);
    new DataView(nonce2.buffer).setUint32(0, n, true);
    const sols = solveHeader(REGTEST.equihash, headerPrefix(j.headerInput, j.time, NONCE1, nonce2));
    if (sols.length > 0) {
      const solution = toHex(new Writer(40).varBytes(sols[0]).finish());
      const time = toHex(j.headerInput.subarray(100, 104));
      return parseSubmit(['addr.w', j.id, time, toHex(nonce2), solution]);
    }
  }
}

function ctx(over: Partial<ShareContext> = {}): ShareContext {
  const j = over.job ?? job();
  return {
    job: j,
    nonce1: NONCE1,
    submit: mine(j),
    target: UINT256_MAX,
    previousTarget: null,
    seen: new Set(),
    now: NOW,
    maxFutureTime: 7200,
    ...over,
  };
}

function rejects(c: ShareContext, code: number) {
  assert.throws(
    () => validateShare(c),
    (e: unknown) => e instanceof StratumError && e.code === code,
  );
}

test('notify carries header fields as they stand in the header, then the algorithm for --pers auto', () => {
  const j = job();
  const p = notifyParams(j, true);
  assert.equal(p.length, 10);
  assert.equal(p[1], '04000000');
  assert.equal(p[2], toHex(j.prevHash));
  assert.equal(p[2], `22${'11'.repeat(31)}`);
  assert.equal(p[4], '00'.repeat(32));
  assert.equal(p[6], '0f0f0f20');
  assert.deepEqual(p.slice(7), [true, '48_5', 'ZcashPoW']);
  const parsed = parseNotify(p);
  assert.deepEqual(parsed.headerInput, j.headerInput);
  assert.equal(parsed.time, NOW);
});

test('a valid share is accepted; the block it makes decodes with the same hash and merkle root', () => {
  const j = job({ transactions: [] });
  const c = ctx({ job: j });
  const share = validateShare(c);
  const block = Block.decode(fromHex(blockHex(j, share.header, share.solution)));
  assert.equal(block.header.hashHex, hashToHex(share.hash));
  assert.deepEqual(block.computeMerkleRoot().root, j.merkleRoot);
  assert.equal(block.txs[0].outputs[0].value, 1_250_000_000n);
  // The regtest block target is 1/16 of the hash space: whether this is a block follows the hash.
  assert.equal(share.isBlock, BigInt(`0x${hashToHex(share.hash)}`) <= REGTEST.powLimit);
});

test("template transactions go into the block after the coinbase, in order, and the block's merkle root is the job's", () => {
  // Five and the coinbase: the level of three nodes duplicates its last one.
  const txs = Array.from(
    { length: 5 },
    (_, i) =>
      new Transaction({
        version: 2,
        inputs: [{ prevout: { txid: new Uint8Array(32).fill(i + 1), vout: i }, scriptSig: Uint8Array.of(0x51), sequence: 0xffffffff, witness: [] }],
        outputs: [{ value: BigInt(1000 + i), scriptPubKey: Uint8Array.of(0x51) }],
        locktime: 0,
      }),
  );
  const j = job({ transactions: txs.map((tx) => ({ data: toHex(tx.encode(true)), txid: tx.txidHex })) });
  assert.notDeepEqual(j.merkleRoot, job().merkleRoot);
  const share = validateShare(ctx({ job: j }));
  const block = Block.decode(fromHex(blockHex(j, share.header, share.solution)));
  assert.deepEqual(
    block.txs.slice(1).map((tx) => tx.txidHex),
    txs.map((tx) => tx.txidHex),
  );
  assert.deepEqual(block.computeMerkleRoot().root, j.merkleRoot);
  assert.deepEqual(block.header.merkleRoot, j.merkleRoot);
});

test('a template whose txid is not a hash or whose data is not whole bytes is refused before any job is built from it', () => {
  const tx = { data: '0200000000', txid: 'cd'.repeat(32) };
  assert.throws(() => prepareTemplate(template({ transactions: [tx, { ...tx, txid: 'cd'.repeat(31) }] })), /hash 1 must be 64 hex/);
  assert.throws(() => prepareTemplate(template({ transactions: [{ ...tx, data: '020' }] })), /template transaction 0 has no hex data/);
  assert.equal(prepareTemplate(template({ transactions: [tx] })).branch.length, 1);
});

test('duplicate: the same nonce and solution twice is 22', () => {
  const c = ctx();
  validateShare(c);
  rejects(c, StratumErrorCode.DUPLICATE_SHARE);
});

test('low difficulty is 23; the previous target is honoured', () => {
  const c = ctx({ target: 1n });
  rejects(c, StratumErrorCode.LOW_DIFFICULTY);
  const share = validateShare({ ...c, previousTarget: UINT256_MAX });
  assert.equal(share.target, UINT256_MAX);
});

test('malformed submits are 20 with the reason', () => {
  const c = ctx();
  const bad = (submit: Partial<typeof c.submit>) => rejects({ ...c, submit: { ...c.submit, ...submit } }, StratumErrorCode.OTHER);
  bad({ nonce2: c.submit.nonce2.slice(2) });
  bad({ nonce2: `zz${c.submit.nonce2.slice(2)}` });
  bad({ time: '0000' });
  bad({ time: toHex(Uint8Array.of(0, 0, 0, 0)) });
  bad({ time: Buffer.from(new Uint32Array([NOW + 7201]).buffer).toString('hex') });
  bad({ solution: c.submit.solution.slice(2) });
  bad({ solution: `25${c.submit.solution.slice(2)}` });
  // A flipped byte breaks Equihash.
  const s = c.submit.solution;
  bad({ solution: s.slice(0, 10) + (s[10] === '0' ? '1' : '0') + s.slice(11) });
  assert.throws(() => parseSubmit(['w', 'j', 't']), StratumError);
});

test('opened and settled in order, as on other threads: a copy opened before the original is in is 22 at its settling', () => {
  const c = ctx();
  const original = openShare(c);
  const copy = openShare(c);
  assert.equal(checkShareSolution(c.job.equihash, copy), true);
  assert.deepEqual(settleShare(c, original, true).hash, original.hash);
  assert.throws(
    () => settleShare(c, copy, true),
    (e: unknown) => e instanceof StratumError && e.code === StratumErrorCode.DUPLICATE_SHARE,
  );
  // A refused share leaves no trace: the same bytes are judged again.
  const other = ctx();
  const bad = openShare(other);
  assert.throws(
    () => settleShare(other, bad, false),
    (e: unknown) => e instanceof StratumError && e.code === StratumErrorCode.OTHER && e.message === 'invalid solution',
  );
  assert.throws(
    () => settleShare({ ...other, target: 1n }, openShare(other), true),
    (e: unknown) => e instanceof StratumError && e.code === StratumErrorCode.LOW_DIFFICULTY,
  );
  assert.equal(validateShare(other).target, UINT256_MAX);
});
