import assert from 'node:assert/strict';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '@cs/runtime/config';
import { readOptions } from './config.ts';

test('the defaults run against a local csd on regtest', () => {
  const { options: o } = readOptions([]);
  assert.equal(o.net().name, 'regtest');
  assert.deepEqual(
    [o.str('rpcport'), o.str('diff'), o.str('rentaldiff'), o.str('fee'), o.str('minpayout'), o.str('payouts'), o.str('scheme')],
    ['16180', '0.001', '', '1', '0.1', '1', 'pplns'],
  );
  assert.deepEqual([o.num('port'), o.num('vardiffport'), o.num('apiport'), o.num('processinterval')], [3332, 3333, 4000, 30]);
  assert.equal(o.path('datadir'), join(homedir(), '.cs-pool'));
  assert.equal(o.values.instanceid, null);
});

test('options as the harnesses give them: -key=value, -key alone for a switch, --key, the last occurrence wins', () => {
  const { options: o } = readOptions([
    '-regtest',
    '-processinterval=0.2',
    '-payoutinterval=600',
    '-payoutinterval=0',
    '--loglevel=debug',
    '-nopayouts',
    '-minpayout=.5',
    '-rpcuser=u',
  ]);
  assert.deepEqual([o.num('processinterval', 0.1), o.num('payoutinterval'), o.str('loglevel')], [0.2, 0, 'debug']);
  assert.deepEqual([o.str('payouts'), o.str('minpayout'), o.str('rpcuser'), o.str('rpcpassword')], ['0', '0.5', 'u', '']);
});

test('-chain, -testnet and -regtest pick the network and its defaults, at most one of them', () => {
  assert.equal(readOptions(['-chain=main']).options.str('diff'), '0.05');
  assert.equal(readOptions(['-testnet']).options.net().name, 'test');
  assert.equal(readOptions(['-chain=test', '-diff=2']).options.str('diff'), '2');
  for (const argv of [
    ['-chain=main', '-regtest'],
    ['-testnet', '-regtest'],
    ['-chain=regtest', '-regtest'],
  ]) {
    assert.throws(() => readOptions(argv), /Invalid combination of -regtest, -testnet and -chain/, argv.join(' '));
  }
});

test("mistakes are refused in csd's words, naming the option", () => {
  for (const [argv, message] of [
    [['-bogus=1'], 'Invalid parameter -bogus'],
    [['-port=x'], "Invalid value for -port: 'x' (expected an integer 0..65535)"],
    [['-port=70000'], "Invalid value for -port: '70000' (expected an integer 0..65535)"],
    [['-chain=mainnet'], "Invalid value for -chain: 'mainnet' (expected one of main, test, regtest)"],
    [['-scheme=pps'], "Invalid value for -scheme: 'pps' (expected one of pplns, prop, solo)"],
    [['-fee=1.005'], "Invalid value for -fee: '1.005' (expected a number 0..100, at most 2 decimals)"],
    [['-fee=101'], "Invalid value for -fee: '101' (expected a number 0..100, at most 2 decimals)"],
    [['-diff=0'], "Invalid value for -diff: '0' (expected a positive number)"],
    [['-processinterval=0.05'], "Invalid value for -processinterval: '0.05' (expected a number >= 0.1)"],
    [['-minpayout=0.123456789'], "Invalid value for -minpayout: '0.123456789' (expected an amount in coins, at most 8 decimals)"],
    [['-instanceid=256'], "Invalid value for -instanceid: '256' (expected an integer 0..255)"],
    [['-db=mysql://x'], "Invalid value for -db: 'mysql://x' (expected lmdb or a postgres:// URL)"],
    [['-loglevel=loud'], "Invalid value for -loglevel: 'loud' (expected one of error, warn, info, debug, trace)"],
    [['-noport'], 'Negating of -port is meaningless and therefore forbidden'],
    [['regtest'], "unexpected argument 'regtest' (options are -name=value; -help lists them)"],
  ] as const) {
    assert.throws(
      () => readOptions(argv),
      (e: Error) => e instanceof ConfigError && e.message === message,
      argv.join(' '),
    );
  }
});
