import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { Block, MANDATORY_SCRIPT_VERIFY_FLAGS, NULL_OUTPOINT, REGTEST, Transaction, type TxOut } from '@cs/consensus';
import { ScriptVerifier, type ScriptCheckSession } from './script-verifier.ts';

const OP_TRUE = Uint8Array.of(0x51);
const OP_RETURN = Uint8Array.of(0x6a);
const spentOutput: TxOut = { value: 1000n, scriptPubKey: OP_TRUE };

/**
 * A block whose transaction t has inputs[t] inputs, each spending an OP_TRUE output; the inputs
 * listed in `failing` ([tx, input]) carry a scriptSig that fails (OP_RETURN).
 */
function makeBlock(inputs: number[], failing: [number, number][] = []): Block {
  const coinbase = new Transaction({
    version: 1,
    inputs: [{ prevout: NULL_OUTPOINT, scriptSig: Uint8Array.of(0x01, 0x01), sequence: 0xffffffff, witness: [] }],
    outputs: [{ value: 0n, scriptPubKey: OP_TRUE }],
    locktime: 0,
  });
  const txs = inputs.map(
    (n, t) =>
      new Transaction({
        version: 2,
        inputs: Array.from({ length: n }, (_, i) => ({
          prevout: { txid: new Uint8Array(32).fill(t + 1), vout: i },
          scriptSig: failing.some(([ft, fi]) => ft === t + 1 && fi === i) ? OP_RETURN : new Uint8Array(0),
          sequence: 0xffffffff,
          witness: [],
        })),
        outputs: [{ value: 1n, scriptPubKey: OP_TRUE }],
        locktime: 0,
      }),
  );
  return new Block(REGTEST.genesis.header, [coinbase, ...txs]);
}

function feed(session: ScriptCheckSession, block: Block, upTo = block.txs.length): void {
  for (let t = 0; t < upTo; t++) {
    const tx = block.txs[t];
    session.add(tx, t, tx.isCoinbase() ? [] : tx.inputs.map(() => spentOutput));
  }
}

async function verify(verifier: ScriptVerifier, block: Block) {
  const session = verifier.session(block.encode(), MANDATORY_SCRIPT_VERIFY_FLAGS);
  feed(session, block);
  return session.finish();
}

const parallel = new ScriptVerifier(3);
const serial = new ScriptVerifier(1);
after(() => Promise.all([parallel.close(), serial.close()]));

test('a block whose scripts all pass verifies on several threads and on one', async () => {
  const block = makeBlock([150, 3, 400, 1, 90]);
  assert.equal(await verify(parallel, block), null);
  assert.equal(await verify(serial, block), null);
});

test('a failing input is reported with its transaction and input index', async () => {
  for (const at of [
    [1, 0],
    [3, 399],
    [5, 89],
    [2, 2],
  ] as [number, number][]) {
    const block = makeBlock([150, 3, 400, 1, 90], [at]);
    for (const verifier of [parallel, serial]) {
      const f = await verify(verifier, block);
      assert.deepEqual(f && [f.txIndex, f.input, f.error], [...at, 'OP_RETURN'], `failure at ${at} on ${verifier.threads} threads`);
    }
  }
});

test('with several failing inputs one of them is reported', async () => {
  const failing: [number, number][] = [
    [1, 7],
    [3, 200],
    [3, 300],
  ];
  const f = await verify(parallel, makeBlock([150, 3, 400], failing));
  assert.ok(f && failing.some(([t, i]) => t === f.txIndex && i === f.input), JSON.stringify(f));
  const s = await verify(serial, makeBlock([150, 3, 400], failing));
  assert.deepEqual(s && [s.txIndex, s.input], [1, 7]);
});

test('an aborted session ends every thread, and the next block verifies normally', async () => {
  const block = makeBlock([200, 200, 200], [[3, 5]]);
  const session = parallel.session(block.encode(), MANDATORY_SCRIPT_VERIFY_FLAGS);
  // The inputs of the first two transactions were looked up; then the block failed another rule.
  feed(session, block, 2);
  await session.abort();
  // The next session must not see anything of the aborted one (its claims, its outputs).
  assert.equal(await verify(parallel, makeBlock([120, 130])), null);
  const f = await verify(parallel, makeBlock([120, 130], [[2, 129]]));
  assert.deepEqual(f && [f.txIndex, f.input], [2, 129]);
});

test('small blocks are verified on the calling thread', async () => {
  const block = makeBlock([10, 10], [[2, 9]]);
  const f = await verify(parallel, block);
  assert.deepEqual(f && [f.txIndex, f.input], [2, 9]);
});

test('a session begun before the previous one finished verifies after it, each with its own result', async () => {
  const first = makeBlock([300, 300], [[2, 250]]);
  const second = makeBlock([200, 250]);
  const third = makeBlock([100, 100], [[1, 40]]);
  const a = parallel.session(first.encode(), MANDATORY_SCRIPT_VERIFY_FLAGS);
  feed(a, first);
  a.flush();
  // The block after it is looked up while the first one's scripts are still being checked.
  const b = parallel.session(second.encode(), MANDATORY_SCRIPT_VERIFY_FLAGS);
  feed(b, second);
  b.flush();
  const c = parallel.session(third.encode(), MANDATORY_SCRIPT_VERIFY_FLAGS);
  feed(c, third);
  const fa = await a.finish();
  assert.deepEqual(fa && [fa.txIndex, fa.input], [2, 250]);
  // The first block failed, so what was planned on top of it is dropped; the next one is checked.
  await b.abort();
  const fc = await c.finish();
  assert.deepEqual(fc && [fc.txIndex, fc.input], [1, 40]);
  assert.equal(await verify(parallel, second), null);
});

test('a large block with no input but the coinbase finishes on several threads', async () => {
  const block = makeBlock([]);
  const coinbase = block.txs[0];
  const wide = new Transaction({
    version: 1,
    inputs: coinbase.inputs,
    outputs: Array.from({ length: 400 }, () => ({ value: 1n, scriptPubKey: OP_TRUE })),
    locktime: 0,
  });
  const big = new Block(block.header, [wide]);
  assert.ok(big.encode().length > 64 * 41, 'the block is large enough to be verified in parallel');
  assert.equal(await verify(parallel, big), null);
});
