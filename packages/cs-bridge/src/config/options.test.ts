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
    [['bogus'], "unknown command 'bogus' (setup, ask, challenge, manifest; cs-bridge -help)"],
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
    [['ask', '-quorum=17'], "Invalid value for -quorum: '17' (expected an integer 1..16)"],
    [['challenge'], 'challenge needs the request id (cs-bridge challenge -help)'],
    [['challenge', 'not-a-uuid'], 'challenge needs the request id (cs-bridge challenge -help)'],
    [['manifest'], 'manifest needs the GGUF file (cs-bridge manifest -help)'],
    [['manifest', '-bos=sometimes', 'm.gguf'], "Invalid value for -bos: 'sometimes' (expected one of metadata, never, always)"],
  ] as const) {
    assert.throws(
      () => readInvocation(argv),
      (e: Error) => e instanceof ConfigError && e.message === message,
      argv.join(' '),
    );
  }
});

test('challenge and manifest: their options, then the one word each takes', () => {
  const id = '5B1F1D2E-0000-4000-8000-000000000001';
  const c = readInvocation(['challenge', '-bond=0.75', '-challenger=csrt1qxyz', id]);
  assert.ok(c.command === 'challenge' && c.info === null);
  assert.deepEqual([c.challenge.requestId, c.challenge.bond, c.challenge.challenger], [id.toLowerCase(), '0.75', 'csrt1qxyz']);
  const m = readInvocation(['manifest', '-modelid=tiny-q8', '-tolerance=8192', '-bos=never', '-parsespecial', '/models/tiny.gguf']);
  assert.ok(m.command === 'manifest' && m.info === null);
  assert.deepEqual(
    [m.manifest.file, m.manifest.modelid, m.manifest.tolerance, m.manifest.bos, m.manifest.parsespecial, m.manifest.chattemplate],
    ['/models/tiny.gguf', 'tiny-q8', 8192, 'never', true, null],
  );
  const v = readInvocation(['ask', '-verifiable', '-quorum=3', '-auditfee=0.001', '-model=tiny-q8', '-maxtokens=8', '-payment=0.01', 'Hi']);
  assert.ok(v.command === 'ask' && v.info === null);
  assert.deepEqual([v.ask.verifiable, v.ask.quorum, v.ask.auditfee], [true, 3, 100_000n]);
});
