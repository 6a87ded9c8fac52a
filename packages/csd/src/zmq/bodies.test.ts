import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blockSequenceBody, hashBody, mempoolSequenceBody, sequenceFrame } from './bodies.ts';

const HASH = Uint8Array.from({ length: 32 }, (_, i) => i);
const RPC_ORDER = Buffer.from(HASH).reverse().toString('hex');

test('hashes go out in RPC byte order, the original untouched', () => {
  assert.equal(Buffer.from(hashBody(HASH)).toString('hex'), RPC_ORDER);
  assert.equal(HASH[0], 0);
});

test('sequence bodies: hash, label, and for mempool events the 8-byte little-endian mempool sequence', () => {
  assert.equal(Buffer.from(blockSequenceBody(HASH, 'C')).toString('hex'), `${RPC_ORDER}43`);
  assert.equal(Buffer.from(blockSequenceBody(HASH, 'D')).toString('hex'), `${RPC_ORDER}44`);
  assert.equal(Buffer.from(mempoolSequenceBody(HASH, 'A', 0x0102)).toString('hex'), `${RPC_ORDER}410201000000000000`);
  assert.equal(Buffer.from(mempoolSequenceBody(HASH, 'R', 2 ** 40)).toString('hex'), `${RPC_ORDER}520000000000010000`);
});

test('the sequence frame is a 4-byte little-endian count', () => {
  assert.equal(sequenceFrame(0).toString('hex'), '00000000');
  assert.equal(sequenceFrame(0x01020304).toString('hex'), '04030201');
  assert.equal(sequenceFrame(0xffffffff).toString('hex'), 'ffffffff');
});
