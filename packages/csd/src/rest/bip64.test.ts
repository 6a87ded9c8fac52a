import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REGTEST, toHex } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import { encodeGetUtxos, getUtxosToJson } from './bip64.ts';

const tip = { height: 0x0102, hash: new Uint8Array(32).fill(0xaa), hashHex: 'aa'.repeat(32) } as BlockIndexEntry;
const coin = { value: 50_000n, scriptPubKey: Uint8Array.of(0x51), height: 7, coinbase: false };

test('BIP64 answer: height, tip, bitmap (bit i of byte i/8), then the unspent outputs in request order', () => {
  // Nine outpoints, the 1st and 9th unspent: two bitmap bytes.
  const coins = [coin, ...Array(7).fill(undefined), { ...coin, height: 0x7fffffff }];
  const bytes = encodeGetUtxos({ tip, coins });
  const expected =
    '02010000' + // chainHeight, i32le
    'aa'.repeat(32) + // chaintipHash, internal order
    '02' +
    '01' +
    '01' + // bitmap: length 2, outpoint 0 in byte 0, outpoint 8 in byte 1
    '02' + // two utxos
    '00000000' +
    '07000000' +
    '50c3000000000000' +
    '01' +
    '51' + // nTxVerDummy, height, value, script
    '00000000' +
    'ffffff7f' +
    '50c3000000000000' +
    '01' +
    '51';
  assert.equal(toHex(bytes), expected);
  assert.deepEqual(getUtxosToJson({ tip, coins }, REGTEST), {
    chainHeight: 0x0102,
    chaintipHash: 'aa'.repeat(32),
    bitmap: '100000001',
    utxos: [
      { height: 7, value: 0.0005, scriptPubKey: { asm: '1', hex: '51', type: 'nonstandard' } },
      { height: 0x7fffffff, value: 0.0005, scriptPubKey: { asm: '1', hex: '51', type: 'nonstandard' } },
    ],
  });
});
