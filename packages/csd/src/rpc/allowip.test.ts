import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AllowList } from './allowip.ts';

test('the default RPC list admits loopback only, in every spelling a socket reports it', () => {
  const list = AllowList.forRpc([]);
  for (const a of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1', '::ffff:7f00:1']) assert.ok(list.allows(a), a);
  for (const a of ['10.0.0.1', '128.0.0.1', '::2', '::ffff:10.0.0.1', 'fe80::1%lo', '', 'localhost']) assert.ok(!list.allows(a), a);
});

test('single addresses, CIDR and IPv4 netmask entries', () => {
  const list = new AllowList(['192.168.1.7', '10.0.0.0/8', '172.16.0.0/255.240.0.0', 'fd00::/8', '2001:db8::1']);
  for (const a of ['192.168.1.7', '::ffff:192.168.1.7', '10.255.1.2', '172.31.255.255', 'fd12:3456::9', '2001:db8::1', '2001:db8:0:0:0:0:0:1']) {
    assert.ok(list.allows(a), a);
  }
  for (const a of ['192.168.1.8', '11.0.0.1', '172.32.0.0', 'fe00::1', '2001:db8::2', '127.0.0.1']) assert.ok(!list.allows(a), a);
});

test('prefixes that are not byte aligned, and the all-addresses forms', () => {
  const list = new AllowList(['100.64.0.0/10', '2001:db8:8000::/33']);
  assert.ok(list.allows('100.127.255.255'));
  assert.ok(!list.allows('100.128.0.0'));
  assert.ok(list.allows('2001:db8:ffff::1'));
  assert.ok(!list.allows('2001:db8:7fff::1'));
  const all = new AllowList(['0.0.0.0/0', '::/0']);
  for (const a of ['8.8.8.8', '2606:4700::1111', '::ffff:1.2.3.4']) assert.ok(all.allows(a), a);
});

test('IPv4-embedded IPv6 text is parsed; an IPv4-mapped entry compares as IPv4', () => {
  const list = new AllowList(['64:ff9b::/96', '::ffff:10.1.0.0/112']);
  assert.ok(list.allows('64:ff9b::192.0.2.33'));
  assert.ok(!list.allows('64:ff9b:1::192.0.2.33'));
  assert.ok(list.allows('10.1.2.3'));
  assert.ok(list.allows('::ffff:10.1.255.255'));
  assert.ok(!list.allows('10.2.0.1'));
});

test('invalid entries are refused with the entry named', () => {
  for (const entry of ['', 'localhost', '1.2.3', '1.2.3.4/33', '::1/129', '1.2.3.4/255.0.255.0', '1.2.3.4/x', '::1/255.0.0.0', '10.0.0.0/-1']) {
    assert.throws(
      () => new AllowList([entry]),
      new RegExp(`Invalid rpcallowip subnet specification: ${entry.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`),
      entry,
    );
  }
});
