import { test } from 'node:test';
import assert from 'node:assert/strict';
import { REGTEST } from '@cs/consensus';
import type { JsonValue } from '../format/json-value.ts';
import { ProtocolError, acceptedAnswer, errorAnswer, parseMessage, readRequest, type ErrorCode } from './protocol.ts';

const NET = REGTEST.address;
const ADDRESS = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';

function codeOf(fn: () => unknown): ErrorCode {
  try {
    fn();
  } catch (e) {
    if (e instanceof ProtocolError) return e.code;
    throw e;
  }
  assert.fail('expected a ProtocolError');
}

const read = (message: JsonValue) => readRequest(message, NET);

test('the three channels subscribe and unsubscribe', () => {
  assert.deepEqual(read({ action: 'subscribe', channel: 'new-blocks' }), { action: 'subscribe', channel: 'new-blocks' });
  assert.deepEqual(read({ action: 'unsubscribe', channel: 'mempool' }), { action: 'unsubscribe', channel: 'mempool' });
  const r = read({ action: 'subscribe', channel: 'address-tx', address: ADDRESS });
  assert.deepEqual(r, {
    action: 'subscribe',
    channel: 'address-tx',
    address: { address: ADDRESS, script: '0014751e76e8199196d454941c45d1b3a323f1433bd6' },
  });
  assert.deepEqual(acceptedAnswer(r), { type: 'subscribed', channel: 'address-tx', address: ADDRESS });
  assert.deepEqual(acceptedAnswer(read({ action: 'unsubscribe', channel: 'new-blocks' })), { type: 'unsubscribed', channel: 'new-blocks' });
});

test('an address is matched and echoed in its canonical form, whatever case was sent', () => {
  const r = read({ action: 'subscribe', channel: 'address-tx', address: ADDRESS.toUpperCase() });
  assert.equal(r.channel === 'address-tx' && r.address.address, ADDRESS);
});

test('members other than action, channel and address are ignored', () => {
  assert.deepEqual(read({ action: 'subscribe', channel: 'mempool', id: 7 }), { action: 'subscribe', channel: 'mempool' });
});

test('bad messages are refused with a code each', () => {
  assert.equal(
    codeOf(() => parseMessage('{"action":')),
    'parse-error',
  );
  assert.equal(
    codeOf(() => parseMessage('')),
    'parse-error',
  );
  assert.deepEqual(parseMessage('[1]'), [1]);
  assert.equal(
    codeOf(() => parseMessage('['.repeat(513) + ']'.repeat(513))),
    'parse-error',
  );
  assert.equal(parseMessage('['.repeat(512) + ']'.repeat(512)) !== undefined, true);
  assert.equal(
    codeOf(() => read([1])),
    'invalid-request',
  );
  assert.equal(
    codeOf(() => read('subscribe')),
    'invalid-request',
  );
  assert.equal(
    codeOf(() => read(null)),
    'invalid-request',
  );
  assert.equal(
    codeOf(() => read({ channel: 'mempool' })),
    'unknown-action',
  );
  assert.equal(
    codeOf(() => read({ action: 'listen', channel: 'mempool' })),
    'unknown-action',
  );
  assert.equal(
    codeOf(() => read({ action: 'subscribe' })),
    'unknown-channel',
  );
  assert.equal(
    codeOf(() => read({ action: 'subscribe', channel: 'blocks' })),
    'unknown-channel',
  );
  assert.equal(
    codeOf(() => read({ action: 'subscribe', channel: 'mempool', address: ADDRESS })),
    'invalid-request',
  );
  assert.equal(
    codeOf(() => read({ action: 'subscribe', channel: 'address-tx' })),
    'invalid-address',
  );
  assert.equal(
    codeOf(() => read({ action: 'subscribe', channel: 'address-tx', address: 42 })),
    'invalid-address',
  );
  assert.equal(
    codeOf(() => read({ action: 'subscribe', channel: 'address-tx', address: 'csrt1qnotanaddress' })),
    'invalid-address',
  );
  // A mainnet-style address is not one of this network's.
  assert.equal(
    codeOf(() => read({ action: 'subscribe', channel: 'address-tx', address: 'bc1qw508d6qejxtdg4y5r3zarvary0c5xw7kv8f3t4' })),
    'invalid-address',
  );
});

test('error messages say what was wrong', () => {
  assert.throws(() => read({ action: 'listen', channel: 'mempool' }), /Unknown action "listen": expected "subscribe" or "unsubscribe"/);
  assert.throws(() => read({ action: 'subscribe' }), /Unknown channel \(missing\)/);
  assert.throws(() => read({ action: 'subscribe', channel: 'address-tx', address: 'xyz' }), /^ProtocolError: Invalid address: Invalid checksum/);
});

test('an error answer echoes the request when there was one', () => {
  const e = new ProtocolError('unknown-channel', 'Unknown channel');
  assert.deepEqual(errorAnswer(e, { action: 'subscribe', channel: 'x' }), {
    type: 'error',
    code: 'unknown-channel',
    error: 'Unknown channel',
    request: { action: 'subscribe', channel: 'x' },
  });
  assert.deepEqual(errorAnswer(new ProtocolError('parse-error', 'Parse error')), { type: 'error', code: 'parse-error', error: 'Parse error' });
});

test('opoi subscribes to every step, or with request_id to one request', () => {
  const uuid = '0B4F6A3E-1C2D-4E5F-8A9B-0C1D2E3F4A5B';
  assert.deepEqual(read({ action: 'subscribe', channel: 'opoi' }), { action: 'subscribe', channel: 'opoi', requestId: null });
  const one = read({ action: 'subscribe', channel: 'opoi', request_id: uuid });
  assert.deepEqual(one, { action: 'subscribe', channel: 'opoi', requestId: '0b4f6a3e1c2d4e5f8a9b0c1d2e3f4a5b' });
  assert.deepEqual(acceptedAnswer(one), { type: 'subscribed', channel: 'opoi', request_id: uuid.toLowerCase() });
  assert.deepEqual(acceptedAnswer(read({ action: 'unsubscribe', channel: 'opoi' })), { type: 'unsubscribed', channel: 'opoi' });
  for (const bad of ['0b4f6a3e1c2d4e5f8a9b0c1d2e3f4a5b', '0b4f6a3e-1c2d-4e5f-8a9b-0c1d2e3f4a5', 'x', 7, null]) {
    assert.equal(
      codeOf(() => read({ action: 'subscribe', channel: 'opoi', request_id: bad })),
      'invalid-request-id',
      JSON.stringify(bad),
    );
  }
  assert.throws(
    () => read({ action: 'subscribe', channel: 'opoi', request_id: 'x' }),
    /^ProtocolError: Invalid request_id "x": request_id must be a UUID/,
  );
  assert.equal(
    codeOf(() => read({ action: 'subscribe', channel: 'new-blocks', request_id: uuid })),
    'invalid-request',
  );
  assert.equal(
    codeOf(() => read({ action: 'subscribe', channel: 'opoi', address: ADDRESS })),
    'invalid-request',
  );
});
