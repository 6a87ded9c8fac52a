import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Bans } from './bans.ts';

const config = { banTimeMs: 600_000, windowMs: 60_000, maxAbuse: 3, maxRefusedLogins: 5, whitelist: ['10.0.0.0/8', 'fd00::1'] };

test('an IP is banned at the threshold within the window, and not for strikes that left it', () => {
  const bans = new Bans(config);
  assert.equal(bans.strike('1.2.3.4', 'abuse', 0), false);
  assert.equal(bans.strike('1.2.3.4', 'abuse', 30_000), false);
  // The first strike has left the window: two in it.
  assert.equal(bans.strike('1.2.3.4', 'abuse', 61_000), false);
  assert.equal(bans.isBanned('1.2.3.4', 61_000), false);
  assert.equal(bans.strike('1.2.3.4', 'abuse', 62_000), true);
  assert.equal(bans.isBanned('1.2.3.4', 62_000), true);
  assert.equal(bans.isBanned('1.2.3.5', 62_000), false, 'another IP');
  assert.equal(bans.isBanned('1.2.3.4', 662_000), false, 'the ban ends after -bantime');
  bans.sweep(662_000);
  assert.equal(bans.strike('1.2.3.4', 'abuse', 662_000), false, 'and the strikes that led to it are forgotten');
});

test('refused logins and abuse count apart, each to its own threshold', () => {
  const bans = new Bans(config);
  for (let i = 0; i < 4; i++) assert.equal(bans.strike('::ffff:1.2.3.4', 'login', i), false);
  for (let i = 0; i < 2; i++) assert.equal(bans.strike('::ffff:1.2.3.4', 'abuse', i), false);
  assert.equal(bans.strike('::ffff:1.2.3.4', 'login', 10), true);
});

test('whitelisted addresses and subnets are never banned, IPv4-mapped ones included', () => {
  const bans = new Bans(config);
  for (const ip of ['10.1.2.3', '::ffff:10.9.9.9', 'fd00::1']) {
    assert.ok(bans.trusted(ip), ip);
    for (let i = 0; i < 10; i++) assert.equal(bans.strike(ip, 'abuse', i), false, ip);
    assert.equal(bans.isBanned(ip, 10), false);
  }
  assert.ok(!bans.trusted('11.0.0.1'));
  assert.ok(!new Bans({ ...config, whitelist: [] }).trusted('10.0.0.1'));
  assert.throws(() => new Bans({ ...config, whitelist: ['10.0.0.0/33'] }), /Invalid whitelist subnet specification: 10\.0\.0\.0\/33/);
});
