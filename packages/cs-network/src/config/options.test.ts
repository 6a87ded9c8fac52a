import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { readInvocation } from './options.ts';

test('a command with options before or after it; the data directory made absolute', () => {
  const a = readInvocation(['up', '-datadir=net', '-baseport=27400', '-model-path=/m/x.gguf']);
  assert.deepEqual([a.command, a.datadir, a.values.baseport, a.values['model-path']], ['up', resolve('net'), 27400, '/m/x.gguf']);
  const b = readInvocation(['-purge', 'down']);
  assert.deepEqual([b.command, b.datadir, b.values.purge, b.values.baseport], ['down', resolve('./network'), true, null]);
  assert.equal(readInvocation(['-help']).values.help, true, '-help alone needs no command');
});

test('mistakes are refused with what is wrong', () => {
  for (const [argv, message] of [
    [[], /no command: up, down or status/],
    [['start'], /unknown command 'start'/],
    [['up', 'down'], /one command at a time/],
    [['up', '-purge'], /-purge goes with down/],
    [['up', '-bogus'], /Invalid parameter -bogus/],
    [['up', '-baseport=80'], /-baseport/],
    [['up', '-baseport=65500'], /-baseport/],
  ] as const) {
    assert.throws(() => readInvocation(argv), message, argv.join(' '));
  }
});
