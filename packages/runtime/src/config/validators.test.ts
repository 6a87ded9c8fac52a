import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSubnet } from './subnet.ts';
import { checkHostPort, checkSubnet, checkZmqEndpoint, splitHostPort } from './validators.ts';

test('host:port splits as Core splits it', () => {
  assert.deepEqual(splitHostPort('127.0.0.1'), { host: '127.0.0.1', port: null });
  assert.deepEqual(splitHostPort('127.0.0.1:8332'), { host: '127.0.0.1', port: 8332 });
  assert.deepEqual(splitHostPort('localhost:1'), { host: 'localhost', port: 1 });
  assert.deepEqual(splitHostPort('::1'), { host: '::1', port: null }, 'two colons: an IPv6 address, no port');
  assert.deepEqual(splitHostPort('[::1]:16180'), { host: '::1', port: 16180 });
  assert.deepEqual(splitHostPort('[fd00::1]'), { host: 'fd00::1', port: null });
  for (const bad of ['host:', 'host:0', 'host:65536', 'host:x', '[nothex]:1', 'bad host', '', '-lead']) {
    assert.equal(splitHostPort(bad), null, bad);
  }
  assert.equal(checkHostPort('0.0.0.0'), null);
  assert.match(checkHostPort('a b') ?? '', /address or host name/);
});

test('rpcallowip takes an address, a CIDR network or an IPv4 netmask', () => {
  assert.deepEqual(parseSubnet('1.2.3.4'), { address: '1.2.3.4', prefix: 32, family: 'ipv4' });
  assert.deepEqual(parseSubnet('10.0.0.0/8'), { address: '10.0.0.0', prefix: 8, family: 'ipv4' });
  assert.deepEqual(parseSubnet('192.168.1.0/255.255.255.0'), { address: '192.168.1.0', prefix: 24, family: 'ipv4' });
  assert.deepEqual(parseSubnet('0.0.0.0/0.0.0.0'), { address: '0.0.0.0', prefix: 0, family: 'ipv4' });
  assert.deepEqual(parseSubnet('::1'), { address: '::1', prefix: 128, family: 'ipv6' });
  assert.deepEqual(parseSubnet('fd00::/8'), { address: 'fd00::', prefix: 8, family: 'ipv6' });
  for (const bad of ['10.0.0.0/33', '::/129', '10.0.0.0/255.0.255.0', '10.0.0.0/', 'localhost', '*', '10.0.0.0/8/8', '1.2.3']) {
    assert.equal(parseSubnet(bad), null, bad);
    assert.match(checkSubnet(bad) ?? '', /network\/CIDR/, bad);
  }
});

test('ZeroMQ endpoints are tcp://host:port or ipc://path', () => {
  for (const good of ['tcp://127.0.0.1:28332', 'tcp://*:28332', 'tcp://[::1]:28332', 'tcp://localhost:1', 'ipc:///tmp/cs.sock']) {
    assert.equal(checkZmqEndpoint(good), null, good);
  }
  for (const bad of ['127.0.0.1:28332', 'tcp://127.0.0.1', 'tcp://127.0.0.1:0', 'udp://1.2.3.4:5', 'ipc://', 'tcp://*:x', 'tcp://:1']) {
    assert.equal(checkZmqEndpoint(bad), 'tcp://host:port or ipc://path', bad);
  }
});
