import assert from 'node:assert/strict';
import { test } from 'node:test';
import { REGTEST, TEST } from '@cs/consensus';
import { mutate, prng } from '../../../consensus/test/fuzz.ts';
import { encodeFrame, type Frame, FrameDecoder, FrameError } from './framing.ts';

const magic = REGTEST.magic;

test('a frame split across many reads comes out once, whole', () => {
  const payload = Buffer.alloc(100_000, 7);
  const bytes = Buffer.concat([encodeFrame(magic, 'block', payload), encodeFrame(magic, 'verack', new Uint8Array(0))]);
  const d = new FrameDecoder(magic);
  const out = [];
  for (let i = 0; i < bytes.length; i += 1000) out.push(...d.push(bytes.subarray(i, i + 1000)));
  assert.equal(out.length, 2);
  const [block, verack] = out as Frame[];
  assert.equal(block.command, 'block');
  assert.deepEqual(Buffer.from(block.payload), payload);
  assert.equal(block.size, 24 + payload.length);
  assert.equal(verack.command, 'verack');
  assert.equal(d.pending, 0);
});

test('another network magic ends the stream', () => {
  const d = new FrameDecoder(magic);
  assert.throws(
    () => d.push(encodeFrame(TEST.magic, 'ping', new Uint8Array(8))),
    (e: unknown) => e instanceof FrameError && e.code === 'bad-magic',
  );
});

test('an oversized length ends the stream as soon as the header is in, without waiting for the payload', () => {
  const d = new FrameDecoder(magic, 1000);
  const header = encodeFrame(magic, 'block', new Uint8Array(1001)).subarray(0, 24);
  assert.throws(
    () => d.push(header),
    (e: unknown) => e instanceof FrameError && e.code === 'oversize',
  );
});

test('a bad checksum or command drops the frame and the stream goes on', () => {
  const bad = encodeFrame(magic, 'ping', new Uint8Array(8));
  bad[20] ^= 1;
  const badCommand = encodeFrame(magic, 'ping', new Uint8Array(8));
  badCommand.write('p\x01ng', 4, 'latin1');
  const d = new FrameDecoder(magic);
  const out = d.push(Buffer.concat([bad, badCommand, encodeFrame(magic, 'pong', new Uint8Array(8))]));
  assert.deepEqual(
    out.map((f) => ('dropped' in f ? f.dropped : f.command)),
    ['bad-checksum', 'bad-command', 'pong'],
  );
});

test('fuzz: random and mutated streams give frames or a FrameError, never anything else', () => {
  const rand = prng(11);
  const seeds = [
    encodeFrame(magic, 'ping', new Uint8Array(8)),
    encodeFrame(magic, 'headers', Buffer.alloc(300, 1)),
    encodeFrame(magic, 'verack', new Uint8Array(0)),
  ];
  let frames = 0;
  let errors = 0;
  for (let i = 0; i < 5000; i++) {
    const d = new FrameDecoder(magic, 10_000);
    let input: Uint8Array = Buffer.concat(seeds.filter(() => rand() % 2 === 0));
    for (let m = rand() % 4; m > 0; m--) input = mutate(input, rand);
    try {
      // Fed in random slices, as TCP delivers.
      for (let at = 0; at < input.length; ) {
        const n = 1 + (rand() % 64);
        frames += d.push(Buffer.from(input.subarray(at, at + n))).length;
        at += n;
      }
    } catch (e) {
      if (!(e instanceof FrameError)) throw e;
      errors++;
    }
  }
  assert.ok(frames > 0 && errors > 0, `frames ${frames}, errors ${errors}`);
});
