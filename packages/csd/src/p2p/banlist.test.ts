import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { BanList } from './banlist.ts';

test('bans cover their subnet until they expire, and persist', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'banlist-'));
  try {
    let now = 1000;
    const path = join(dir, 'banlist.json');
    const bans = new BanList(path, () => now);
    const subnet = BanList.normalize('10.0.0.0/255.255.0.0')!;
    assert.equal(subnet, '10.0.0.0/16');
    assert.equal(BanList.normalize('not-an-ip'), null);
    assert.equal(bans.ban(subnet, 2000), true);
    assert.equal(bans.ban(subnet, 3000), false);
    assert.ok(bans.isBanned('10.0.7.1'), 'an address inside the banned subnet is not banned');
    assert.ok(!bans.isBanned('10.1.0.1'), 'an address outside the banned subnet is banned');
    await bans.save();
    const loaded = new BanList(path, () => now);
    assert.equal(await loaded.load(), null);
    assert.deepEqual(loaded.list(), [{ subnet, created: 1000, until: 2000 }]);
    now = 2000;
    assert.ok(!loaded.isBanned('10.0.7.1'), 'an expired ban survived the reload');
    assert.deepEqual(loaded.list(), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('discouragement is remembered per address, with when and why, and cleared with the bans', () => {
  let now = 100;
  const bans = new BanList('/nonexistent', () => now);
  bans.discourage('1.2.3.4', 'invalid header: bad-diffbits');
  now = 200;
  bans.discourage('5.6.7.8', 'non-continuous headers sequence');
  bans.discourage('1.2.3.4', 'a second offence');
  assert.ok(bans.isDiscouraged('1.2.3.4'), 'a discouraged address is not discouraged');
  // The first offence is kept; the address moves to the end, last out when the table fills.
  assert.deepEqual(bans.discouragements(), [
    { host: '5.6.7.8', since: 200, reason: 'non-continuous headers sequence' },
    { host: '1.2.3.4', since: 100, reason: 'invalid header: bad-diffbits' },
  ]);
  assert.ok(!bans.isDiscouraged('1.2.3.5'), 'discouragement spread to a neighbour');
  bans.clear();
  assert.ok(!bans.isDiscouraged('1.2.3.4'), 'discouragement was not cleared');
  assert.deepEqual(bans.discouragements(), []);
});
