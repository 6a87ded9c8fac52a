import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  LineSplitter,
  MAX_LINE_BYTES,
  StratumError,
  StratumErrorCode,
  StratumProtocolError,
  decodeMessage,
  encodeError,
  encodeNotification,
  encodeResult,
} from './codec.ts';
import { parseAuthorize, parseLogin, parseSubscribe, passwordDifficulty } from './methods.ts';

test('ZIP 301 error codes 20..25', () => {
  assert.deepEqual(Object.values(StratumErrorCode), [20, 21, 22, 23, 24, 25]);
  assert.equal(
    encodeError(7, new StratumError(StratumErrorCode.JOB_NOT_FOUND, 'job not found')),
    '{"id":7,"result":null,"error":[21,"job not found",null]}\n',
  );
  assert.equal(encodeResult('a', true), '{"id":"a","result":true,"error":null}\n');
  assert.equal(encodeNotification('mining.set_target', ['00ff']), '{"id":null,"method":"mining.set_target","params":["00ff"]}\n');
});

test('decodeMessage tells requests from responses and refuses what is not stratum', () => {
  assert.deepEqual(decodeMessage('{"id":1,"method":"mining.subscribe","params":["ua"]}'), {
    kind: 'request',
    id: 1,
    method: 'mining.subscribe',
    params: ['ua'],
  });
  assert.deepEqual(decodeMessage('{"id":1,"result":null,"error":[23,"low",null]}'), {
    kind: 'response',
    id: 1,
    result: null,
    error: [23, 'low', null],
  });
  for (const bad of ['{', '[]', '"x"', '{"method":1}', '{"id":{},"method":"a"}', '{"method":"a","params":{}}', '{"id":1,"error":"x"}']) {
    assert.throws(() => decodeMessage(bad), StratumProtocolError, bad);
  }
});

test('LineSplitter keeps partial lines, drops CR and blank lines, and refuses lines over 10 KB', () => {
  const s = new LineSplitter();
  assert.deepEqual(s.push('{"a":1}\r\n{"b"'), ['{"a":1}']);
  assert.deepEqual(s.push(':2}\n\n'), ['{"b":2}']);
  assert.throws(() => s.push('x'.repeat(MAX_LINE_BYTES + 1)), StratumProtocolError);
  assert.throws(() => new LineSplitter().push(`${'x'.repeat(MAX_LINE_BYTES + 1)}\n`), StratumProtocolError);
});

test('subscribe tolerates the field deviations of stock miners', () => {
  assert.deepEqual(parseSubscribe(['EWBF 0.3.4b', null, 'host', '6666']), { userAgent: 'EWBF 0.3.4b', sessionId: null });
  assert.deepEqual(parseSubscribe(['lolMiner', 'a1b2c3d4', 'host', 3333]), { userAgent: 'lolMiner', sessionId: 'a1b2c3d4' });
  assert.deepEqual(parseSubscribe(['zelHash reference 1.0.0', 'addr.rig', 3333, null]), { userAgent: 'zelHash reference 1.0.0', sessionId: null });
  assert.deepEqual(parseSubscribe([]), { userAgent: '', sessionId: null });
});

test('logins: address.worker, SOLO: prefix, worker names sanitized; d= passwords', () => {
  assert.deepEqual(parseLogin('csrt1qabc.rig-1'), { address: 'csrt1qabc', worker: 'rig-1', solo: false });
  assert.deepEqual(parseLogin('SOLO:csrt1qabc.rig<1>'), { address: 'csrt1qabc', worker: 'rig1', solo: true });
  assert.deepEqual(parseLogin('csrt1qabc'), { address: 'csrt1qabc', worker: 'default', solo: false });
  assert.equal(passwordDifficulty('x'), null);
  assert.equal(passwordDifficulty('d=0.05'), '0.05');
  assert.equal(passwordDifficulty('x;d=1e-4'), '1e-4');
  assert.throws(() => parseAuthorize([]), StratumError);
  assert.deepEqual(parseAuthorize(['a.b']), { login: 'a.b', password: '' });
});
