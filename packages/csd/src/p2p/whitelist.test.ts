// -whitelist as Core reads it: permission words and directions before '@', inbound by default.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWhitelistEntry } from '../config/whitelist.ts';
import { Whitelist } from './whitelist.ts';

test('an entry covers connecting peers unless it says out; in,out covers both', () => {
  assert.deepEqual(parseWhitelistEntry('10.0.0.0/8'), { subnet: '10.0.0.0/8', inbound: true, outbound: false });
  assert.deepEqual(parseWhitelistEntry('noban@127.0.0.1'), { subnet: '127.0.0.1', inbound: true, outbound: false });
  assert.deepEqual(parseWhitelistEntry('noban,out@127.0.0.1'), { subnet: '127.0.0.1', inbound: false, outbound: true });
  assert.deepEqual(parseWhitelistEntry('relay,mempool,in,out@::1'), { subnet: '::1', inbound: true, outbound: true });
  assert.deepEqual(parseWhitelistEntry('@127.0.0.1'), { subnet: '127.0.0.1', inbound: true, outbound: false });
});

test("Core's refusals: an unknown word, a direction without a permission, a bad subnet", () => {
  assert.match(parseWhitelistEntry('nobanx@127.0.0.1') as string, /'nobanx' is not a P2P permission/);
  assert.match(parseWhitelistEntry('out@127.0.0.1') as string, /only a direction is set/);
  assert.match(parseWhitelistEntry('in,out@127.0.0.1') as string, /only a direction is set/);
  assert.equal(typeof parseWhitelistEntry('noban@300.0.0.1'), 'string');
  assert.throws(() => new Whitelist(['noban@127.0.0.1', 'bogus@127.0.0.1']), /Invalid -whitelist bogus@127\.0\.0\.1/);
});

test('a peer is whitelisted by the direction of its connection', () => {
  const list = new Whitelist(['192.168.0.0/16', 'noban,out@10.1.2.3', 'noban,in,out@127.0.0.1']);
  assert.equal(list.allows('192.168.4.4', 'inbound'), true);
  assert.equal(list.allows('192.168.4.4', 'outbound'), false, 'as in Core, a plain entry is inbound only');
  assert.equal(list.allows('10.1.2.3', 'outbound'), true);
  assert.equal(list.allows('10.1.2.3', 'inbound'), false);
  assert.equal(list.allows('::ffff:127.0.0.1', 'inbound'), true);
  assert.equal(list.allows('127.0.0.1', 'outbound'), true);
  assert.equal(list.allows('8.8.8.8', 'inbound'), false);
});
