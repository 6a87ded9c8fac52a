import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fuzzDecoder } from '../test/fuzz.ts';
import { readVector } from '../test/vectors.ts';
import { concatBytes, fromHex } from './encoding/hex.ts';
import { Writer } from './encoding/writer.ts';
import { Block } from './primitives/block.ts';
import { BlockHeader } from './primitives/header.ts';
import { Transaction } from './primitives/tx.ts';
import { parseScript } from './script/script.ts';

// Each decoder gets a bounded budget (time and case count), so the suite cannot hang here.
const BUDGET = { ms: 1500, maxCases: 200_000 };

const txSeeds = readVector<unknown[][]>('bitcoin-core/tx_valid.json')
  .filter((row) => row.length === 3)
  .map((row) => fromHex(row[1] as string));
const headerSeeds = readVector<{ genesis: { header_hex?: string }[] }>('genesis-headers.json').genesis.flatMap((g) =>
  g.header_hex ? [fromHex(g.header_hex)] : [],
);
const blockSeeds = headerSeeds.map((h, i) => concatBytes(h, new Writer().compactSize(3).finish(), txSeeds[i], txSeeds[i + 10], txSeeds[i + 20]));
const scriptSeeds = txSeeds.flatMap((b) => Transaction.decode(b).inputs.map((i) => i.scriptSig));

test('block seeds are valid blocks (so mutations start from real structure)', () => {
  for (const b of blockSeeds) assert.equal(Block.decode(b).txs.length, 3);
  assert.ok(txSeeds.length > 50 && headerSeeds.length >= 3 && scriptSeeds.length > 50);
});

for (const [name, decode, seeds, seed] of [
  ['transaction', (b: Uint8Array) => Transaction.decode(b), txSeeds, 1],
  ['transaction (no witness)', (b: Uint8Array) => Transaction.decode(b, { allowWitness: false }), txSeeds, 2],
  ['block header', (b: Uint8Array) => BlockHeader.decode(b), headerSeeds, 3],
  ['block', (b: Uint8Array) => Block.decode(b), blockSeeds, 4],
  ['script', (b: Uint8Array) => parseScript(b), scriptSeeds, 5],
] as const) {
  test(`fuzz: ${name} decoder raises only DecodeError on random and mutated input`, () => {
    const r = fuzzDecoder(decode, [...seeds], { seed, ...BUDGET });
    assert.ok(r.cases > 1000, `only ${r.cases} cases ran`);
    assert.ok(r.rejected > 0, 'no input was rejected: the mutations are not reaching the decoder');
  });
}
