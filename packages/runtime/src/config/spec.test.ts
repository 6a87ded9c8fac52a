import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NETWORKS } from '@cs/consensus';
import { formatAmount, parseAmount } from '../amount/text.ts';
import { amount, choice, decimal, flag, integer, list, parseBool, text } from './spec.ts';

const category = 'general';

test('booleans read as Core reads them, but words are refused instead of meaning false', () => {
  assert.equal(parseBool(''), true);
  assert.equal(parseBool('1'), true);
  assert.equal(parseBool('2'), true);
  assert.equal(parseBool('0'), false);
  assert.equal(parseBool('-0'), false);
  assert.equal(parseBool('yes'), null);
  assert.equal(parseBool('true'), null);
  const spec = flag({ category, description: 'd', default: false });
  assert.deepEqual(spec.parse('yes'), { ok: false, expected: '0 or 1' });
  assert.deepEqual(spec.negation, { value: false });
});

test('integers are whole numbers within the range', () => {
  const port = integer({ category, description: 'd', default: 1, min: 1, max: 65535 });
  assert.deepEqual(port.parse('8080'), { ok: true, value: 8080 });
  assert.deepEqual(port.parse('+8080'), { ok: true, value: 8080 });
  for (const bad of ['', 'abc', '0', '65536', '1.5', '1e3', ' 80', '0x50']) {
    assert.deepEqual(port.parse(bad), { ok: false, expected: 'an integer 1..65535' }, bad);
  }
  const open = integer({ category, description: 'd', default: 0, min: 0 });
  assert.deepEqual(open.parse('-1'), { ok: false, expected: 'an integer >= 0' });
  assert.deepEqual(open.parse('99999999999999999999'), { ok: false, expected: 'an integer >= 0' });
  assert.equal(open.negation, null, 'negation is forbidden unless a value is given for it');
});

test('defaults may depend on the network', () => {
  const spec = integer({ category, description: 'd', default: (net) => net.p2pPort, min: 1 });
  assert.equal(spec.defaultPerNetwork, true);
  assert.equal(spec.default(NETWORKS.regtest), NETWORKS.regtest.p2pPort);
  assert.equal(integer({ category, description: 'd', default: 5, min: 1 }).defaultPerNetwork, false);
});

test('text, choices and lists check their values', () => {
  const checked = text({ category, description: 'd', default: null, check: (v) => (v.startsWith('x') ? null : 'an x') });
  assert.deepEqual(checked.parse('xy'), { ok: true, value: 'xy' });
  assert.deepEqual(checked.parse('y'), { ok: false, expected: 'an x' });
  const level = choice({ category, description: 'd', values: ['a', 'b'], default: 'a' });
  assert.deepEqual(level.parse('b'), { ok: true, value: 'b' });
  assert.deepEqual(level.parse('c'), { ok: false, expected: 'one of a, b' });
  const items = list({ category, description: 'd', default: [], check: (v) => (v === '' ? 'something' : null) });
  assert.deepEqual(items.parse('one'), { ok: true, value: ['one'] });
  assert.deepEqual(items.parse(''), { ok: false, expected: 'something' });
  assert.deepEqual(items.negation, { value: [] });
});

test('amounts are decimal coins with at most 8 decimals, held in base units', () => {
  assert.equal(parseAmount('0.00001'), 1000n);
  assert.equal(parseAmount('1'), 100_000_000n);
  assert.equal(parseAmount('.5'), 50_000_000n);
  assert.equal(parseAmount('5.'), 500_000_000n);
  assert.equal(parseAmount('21000000'), 2_100_000_000_000_000n);
  for (const bad of ['', '.', '-1', '+1', '1e-5', '0.000000001', '21000000.00000001', '12345678901', 'abc', ' 1']) {
    assert.equal(parseAmount(bad), null, bad);
  }
  assert.equal(formatAmount(1000n), '0.00001');
  assert.equal(formatAmount(100_000_000n), '1');
  assert.equal(formatAmount(0n), '0');
  const fee = amount({ category, description: 'd', default: '0.0001' });
  assert.equal(fee.default(NETWORKS.main), 10_000n);
  assert.deepEqual(fee.parse('x'), { ok: false, expected: 'an amount in coins, at most 8 decimals' });
});

test('decimals are plain non-negative numbers within the range, with at most the decimals allowed', () => {
  const seconds = decimal({ category, description: 'd', default: 30, min: 0.1 });
  assert.deepEqual(seconds.parse('0.2'), { ok: true, value: 0.2 });
  assert.deepEqual(seconds.parse('600'), { ok: true, value: 600 });
  for (const bad of ['', '.5', '5.', '0.05', '-1', '+1', '1e3', ' 1', 'abc']) {
    assert.deepEqual(seconds.parse(bad), { ok: false, expected: 'a number >= 0.1' }, bad);
  }
  const percent = decimal({ category, description: 'd', default: 1, min: 0, max: 100, decimals: 2 });
  assert.deepEqual(percent.parse('12.34'), { ok: true, value: 12.34 });
  for (const bad of ['12.345', '100.01']) {
    assert.deepEqual(percent.parse(bad), { ok: false, expected: 'a number 0..100, at most 2 decimals' }, bad);
  }
  assert.equal(percent.show(percent.default(NETWORKS.main)), '1');
  assert.equal(decimal({ category, description: 'd', default: null, min: 1 }).show(null), '');
});
