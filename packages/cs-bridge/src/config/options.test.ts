import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ConfigError } from '@cs/runtime/config';
import { readInvocation } from './options.ts';

test('-env before or after the command, ./.env by default; --env FILE as before', () => {
  assert.deepEqual(readInvocation([]), { info: null, command: 'run', envFile: resolve('.env') });
  assert.deepEqual(readInvocation(['-env=/etc/b.env']), { info: null, command: 'run', envFile: '/etc/b.env' });
  assert.deepEqual(readInvocation(['--env=b.env', 'setup']), { info: null, command: 'setup', envFile: resolve('b.env') });
  assert.deepEqual(readInvocation(['-env=a.env', 'setup', '-env=b.env']), { info: null, command: 'setup', envFile: resolve('b.env') });
  assert.deepEqual(readInvocation(['--env', '/etc/b.env']), { info: null, command: 'run', envFile: '/etc/b.env' });
});

test("ask's request: its options, then the prompt's words", () => {
  const inv = readInvocation([
    'ask',
    '-env=n.env',
    '-model=tiny',
    '-maxtokens=20',
    '-payment=0.02',
    '-feepertoken=0.0001',
    '-pollms=200',
    'Say',
    '-hello-',
  ]);
  assert.equal(inv.command, 'ask');
  if (inv.command !== 'ask' || inv.info !== null) return;
  assert.equal(inv.envFile, resolve('n.env'));
  assert.deepEqual(
    [inv.ask.model, inv.ask.maxtokens, inv.ask.payment, inv.ask.feepertoken, inv.ask.pollms, inv.ask.prompt, inv.ask.requestid],
    ['tiny', 20, '0.02', 10_000n, 200, 'Say -hello-', null],
  );
});

test('-help and -version of the program and of each command, before anything else is looked at', () => {
  for (const [argv, info, command] of [
    [['-help'], 'help', 'run'],
    [['-h', 'ask'], 'help', 'run'],
    [['-version'], 'version', 'run'],
    [['setup', '-help'], 'help', 'setup'],
    [['setup', '-version'], 'version', 'setup'],
    [['ask', '-?'], 'help', 'ask'],
    [['ask', '-version', '-help'], 'version', 'ask'],
    [['-env=/nonexistent/x', 'ask', '--help'], 'help', 'ask'],
  ] as const) {
    assert.deepEqual(readInvocation(argv), { info, command }, argv.join(' '));
  }
});

test('mistakes name the option in its new spelling', () => {
  for (const [argv, message] of [
    [['bogus'], "unknown command 'bogus' (setup or ask; cs-bridge -help)"],
    [['setup', 'extra'], "unexpected argument 'extra' (options are -name=value; cs-bridge -help)"],
    [['-env'], "Invalid value for -env: '' (expected a file name, as in -env=<file>)"],
    [['--poll-ms=200'], 'Invalid parameter -poll-ms'],
    [['ask', '-model=tiny', '-maxtokens=20', 'hi'], 'ask needs -model=<name>, -maxtokens=<n>, -payment=<coins> and the prompt (cs-bridge ask -help)'],
    [
      ['ask', '-model=tiny', '-maxtokens=20', '-payment=1'],
      'ask needs -model=<name>, -maxtokens=<n>, -payment=<coins> and the prompt (cs-bridge ask -help)',
    ],
    [['ask', '--model', 'tiny'], "Invalid value for -model: '' (expected a model name, as in -model=<name>)"],
    [['ask', '-maxtokens=0'], "Invalid value for -maxtokens: '0' (expected an integer >= 1)"],
    [['ask', '-payment=1e-2'], "Invalid value for -payment: '1e-2' (expected an amount in coins, at most 8 decimals)"],
    [['ask', '-feepertoken=-1'], "Invalid value for -feepertoken: '-1' (expected an amount in coins, at most 8 decimals)"],
    [['ask', '-pollms=fast'], "Invalid value for -pollms: 'fast' (expected an integer >= 1)"],
    [['ask', '-max-tokens=20'], 'Invalid parameter -max-tokens'],
  ] as const) {
    assert.throws(
      () => readInvocation(argv),
      (e: Error) => e instanceof ConfigError && e.message === message,
      argv.join(' '),
    );
  }
});
