import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readVector } from '../../test/vectors.ts';
import { fromHex, hashToHex } from '../encoding/hex.ts';
import { Transaction } from '../primitives/tx.ts';
import { SIGHASH_ALL, SIGHASH_SINGLE, legacySignatureHash } from './sighash.ts';

test('sighash.json: legacy signature hashes of random transactions and scripts', (t) => {
  const rows = readVector<unknown[][]>('bitcoin-core/sighash.json');
  let passed = 0;
  for (const row of rows) {
    if (row.length === 1) continue; // format comment
    const [txHex, scriptHex, inputIndex, hashType, expected] = row as [string, string, number, number, string];
    const tx = Transaction.decode(fromHex(txHex));
    const got = hashToHex(legacySignatureHash(fromHex(scriptHex), tx, inputIndex, hashType));
    assert.equal(got, expected, JSON.stringify(row));
    passed++;
  }
  t.diagnostic(`passed ${passed}, skipped 0`);
  assert.equal(passed, 500);
});

test('legacy sighash: out-of-range input and SIGHASH_SINGLE without output hash to 1', () => {
  const tx = new Transaction({
    version: 1,
    locktime: 0,
    inputs: [0, 1].map((vout) => ({ prevout: { txid: new Uint8Array(32), vout }, scriptSig: new Uint8Array(0), sequence: 0, witness: [] })),
    outputs: [{ value: 1n, scriptPubKey: Uint8Array.of(0x51) }],
  });
  const one = '0000000000000000000000000000000000000000000000000000000000000001';
  assert.equal(hashToHex(legacySignatureHash(new Uint8Array(0), tx, 2, SIGHASH_ALL)), one);
  assert.equal(hashToHex(legacySignatureHash(new Uint8Array(0), tx, 1, SIGHASH_SINGLE)), one);
  assert.notEqual(hashToHex(legacySignatureHash(new Uint8Array(0), tx, 0, SIGHASH_SINGLE)), one);
});
