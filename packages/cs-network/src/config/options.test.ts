import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { type Invocation, readInvocation } from './options.ts';

test('a command with options before or after it; the data directory made absolute', () => {
  const a = readInvocation(['up', '-datadir=net', '-baseport=27400', '-model-path=/m/x.gguf']) as Invocation;
  assert.deepEqual([a.command, a.datadir, a.values.baseport, a.values['model-path']], ['up', resolve('net'), 27400, '/m/x.gguf']);
  assert.equal((readInvocation(['up', '-corruptanswers=token']) as Invocation).values.corruptanswers, 'token');
  const b = readInvocation(['-purge', 'down']) as Invocation;
  assert.deepEqual([b.command, b.datadir, b.values.purge, b.values.baseport], ['down', resolve('./network'), true, null]);
  assert.deepEqual(readInvocation(['-help']), { info: 'help', command: null }, '-help alone needs no command');
});

test('mistakes are refused with what is wrong', () => {
  for (const [argv, message] of [
    [[], /no command: up, down or status/],
    [['start'], /unknown command 'start'/],
    [['up', 'down'], /one command at a time/],
    [['up', '-purge'], /-purge goes with down/],
    [['down', '-baseport=27400'], /-baseport goes with up/],
    [['status', '-model-path=/m/x.gguf'], /-model-path goes with up/],
    [['start', '-help'], /unknown command 'start'/],
    [['up', '-bogus'], /Invalid parameter -bogus/],
    [['up', '-baseport=80'], /-baseport/],
    [['up', '-baseport=65500'], /-baseport/],
    [['status', '-corruptanswers=token'], /-corruptanswers goes with up/],
  ] as const) {
    assert.throws(() => readInvocation(argv), message, argv.join(' '));
  }
});

test('-help and -version of the program and of each command, whatever else the command would refuse', () => {
  for (const [argv, expected] of [
    [['-version'], { info: 'version', command: null }],
    [['-h'], { info: 'help', command: null }],
    [['up', '-help'], { info: 'help', command: 'up' }],
    [['-help', 'down', '-baseport=27400'], { info: 'help', command: 'down' }],
    [['status', '--version', '-help'], { info: 'version', command: 'status' }],
  ] as const) {
    assert.deepEqual(readInvocation(argv), expected, argv.join(' '));
  }
});
