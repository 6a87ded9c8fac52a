// -whitelist as Core reads it: permission words and directions before '@', inbound by default,
// Core's implicit permissions without '@', and the permissions of every matching entry added up.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseWhitelistEntry } from '../config/whitelist.ts';
import { Whitelist } from './whitelist.ts';

const CORE_DEFAULTS = { relay: true, forcerelay: false };
const names = (list: Whitelist, host: string, direction: 'inbound' | 'outbound') => [...list.permissions(host, direction)].sort();

test('an entry covers connecting peers unless it says out; in,out covers both', () => {
  assert.deepEqual(parseWhitelistEntry('10.0.0.0/8'), { subnet: '10.0.0.0/8', inbound: true, outbound: false, permissions: [], implicit: true });
  assert.deepEqual(parseWhitelistEntry('noban@127.0.0.1'), {
    subnet: '127.0.0.1',
    inbound: true,
    outbound: false,
    permissions: ['noban', 'download'],
    implicit: false,
  });
  assert.deepEqual(parseWhitelistEntry('noban,out@127.0.0.1'), {
    subnet: '127.0.0.1',
    inbound: false,
    outbound: true,
    permissions: ['noban', 'download'],
    implicit: false,
  });
  assert.deepEqual(parseWhitelistEntry('relay,mempool,in,out@::1'), {
    subnet: '::1',
    inbound: true,
    outbound: true,
    permissions: ['relay', 'mempool'],
    implicit: false,
  });
  assert.deepEqual(parseWhitelistEntry('@127.0.0.1'), { subnet: '127.0.0.1', inbound: true, outbound: false, permissions: [], implicit: false });
});

test("each word grants what it does in Core: noban implies download, forcerelay relay; all is every one; bloom is bloomfilter's alias", () => {
  const granted = (value: string) => (parseWhitelistEntry(value) as { permissions: readonly string[] }).permissions;
  assert.deepEqual(granted('forcerelay@127.0.0.1'), ['forcerelay', 'relay']);
  assert.deepEqual(granted('bloom,addr@127.0.0.1'), ['bloomfilter', 'addr']);
  assert.deepEqual(granted('all@127.0.0.1'), ['bloomfilter', 'noban', 'forcerelay', 'relay', 'mempool', 'download', 'addr']);
  assert.deepEqual(granted('mempool,,download@127.0.0.1'), ['mempool', 'download'], 'an empty word is allowed, as in Core');
});

test("Core's refusals: an unknown word, a direction without a permission, a bad subnet", () => {
  assert.match(parseWhitelistEntry('nobanx@127.0.0.1') as string, /'nobanx' is not a P2P permission/);
  for (const word of ['constructor', 'toString', '__proto__', 'hasOwnProperty'])
    assert.match(parseWhitelistEntry(`${word}@127.0.0.1`) as string, /is not a P2P permission/, word);
  assert.match(parseWhitelistEntry('out@127.0.0.1') as string, /only a direction is set/);
  assert.match(parseWhitelistEntry('in,out@127.0.0.1') as string, /only a direction is set/);
  assert.equal(typeof parseWhitelistEntry('noban@300.0.0.1'), 'string');
  assert.throws(() => new Whitelist(['noban@127.0.0.1', 'bogus@127.0.0.1'], CORE_DEFAULTS), /Invalid -whitelist bogus@127\.0\.0\.1/);
});

test('a peer gets the permissions of the entries for the direction of its connection', () => {
  const list = new Whitelist(['192.168.0.0/16', 'noban,out@10.1.2.3', 'noban,in,out@127.0.0.1'], CORE_DEFAULTS);
  assert.deepEqual(names(list, '192.168.4.4', 'inbound'), ['download', 'mempool', 'noban', 'relay'], "Core's implicit permissions");
  assert.equal(list.permissions('192.168.4.4', 'outbound').size, 0, 'as in Core, a plain entry is inbound only');
  assert.deepEqual(names(list, '10.1.2.3', 'outbound'), ['download', 'noban']);
  assert.equal(list.permissions('10.1.2.3', 'inbound').size, 0);
  assert.ok(list.permissions('::ffff:127.0.0.1', 'inbound').has('noban'));
  assert.ok(list.permissions('127.0.0.1', 'outbound').has('noban'));
  assert.equal(list.permissions('8.8.8.8', 'inbound').size, 0);
});

test('the entries that cover a peer add up; -whitelistrelay and -whitelistforcerelay set what an entry without @ relays', () => {
  const list = new Whitelist(['addr@10.0.0.0/8', 'noban@10.1.0.0/16'], CORE_DEFAULTS);
  assert.deepEqual(names(list, '10.1.2.3', 'inbound'), ['addr', 'download', 'noban']);
  assert.deepEqual(names(list, '10.2.0.1', 'inbound'), ['addr']);
  assert.deepEqual(names(new Whitelist(['10.0.0.1'], { relay: false, forcerelay: false }), '10.0.0.1', 'inbound'), ['download', 'mempool', 'noban']);
  assert.deepEqual(names(new Whitelist(['10.0.0.1'], { relay: false, forcerelay: true }), '10.0.0.1', 'inbound'), [
    'download',
    'forcerelay',
    'mempool',
    'noban',
    'relay',
  ]);
});
