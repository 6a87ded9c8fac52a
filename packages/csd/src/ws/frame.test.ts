import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textFrame } from './frame.ts';

test('textFrame writes the RFC 6455 header for each payload length encoding, then the payload', () => {
  const cases: [number, string][] = [
    [0, '8100'],
    [125, '817d'],
    [126, '817e007e'],
    [65535, '817effff'],
    [65536, '817f0000000000010000'],
  ];
  for (const [length, header] of cases) {
    const payload = Buffer.alloc(length, 0x61);
    const frame = textFrame(payload);
    assert.equal(frame.subarray(0, header.length / 2).toString('hex'), header, `header of a ${length}-byte payload`);
    assert.deepEqual(frame.subarray(header.length / 2), payload, `payload of a ${length}-byte frame`);
  }
});
