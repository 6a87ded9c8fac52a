import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Transaction, toHex } from '@cs/consensus';
import type { Coin } from '../chain/coins.ts';
import { addressActivity } from './address-activity.ts';

const A = Uint8Array.of(0x51, 0x01);
const B = Uint8Array.of(0x51, 0x02);
const C = Uint8Array.of(0x51, 0x03);
const WATCHED = new Map([
  [toHex(A), 'A'],
  [toHex(B), 'B'],
]);
const watched = (script: string) => WATCHED.get(script);
const coin = (scriptPubKey: Uint8Array, value: bigint): Coin => ({ value, scriptPubKey, height: 1, coinbase: false });

function tx(outputs: [Uint8Array, bigint][], inputs = 1): Transaction {
  return new Transaction({
    version: 2,
    inputs: Array.from({ length: inputs }, (_, vout) => ({
      prevout: { txid: new Uint8Array(32).fill(9), vout },
      scriptSig: new Uint8Array(0),
      sequence: 0,
      witness: [],
    })),
    outputs: outputs.map(([scriptPubKey, value]) => ({ scriptPubKey, value })),
    locktime: 0,
  });
}

test('outputs paying a watched address are received, its coins spent by inputs are sent', () => {
  const t = tx(
    [
      [A, 5n],
      [C, 7n],
      [A, 1n],
      [B, 2n],
    ],
    3,
  );
  const activity = addressActivity(t, [coin(B, 10n), coin(C, 3n), coin(B, 4n)], watched);
  assert.deepEqual(activity, [
    { script: toHex(A), address: 'A', received: 6n, sent: 0n },
    { script: toHex(B), address: 'B', received: 2n, sent: 14n },
  ]);
});

test('a transaction touching no watched address, a coinbase and unknown coins', () => {
  assert.deepEqual(addressActivity(tx([[C, 1n]]), [coin(C, 2n)], watched), []);
  assert.deepEqual(addressActivity(tx([[A, 1n]]), [], watched), [{ script: toHex(A), address: 'A', received: 1n, sent: 0n }]);
  assert.deepEqual(addressActivity(tx([[C, 1n]]), [undefined], watched), []);
});
