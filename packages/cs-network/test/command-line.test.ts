// -help and -version of the real program and of each command, and the ways to run it through npm
// that npm prints no warning for (docs/cs-network.md).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const NETWORK_BIN = fileURLToPath(new URL('../bin/cs-network.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const VERSION_LINE = `cs local network version v${VERSION}\n`;

function run(command: string, argv: readonly string[]) {
  return spawnSync(command, argv, { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
}

test('-version and -help of cs-network and of up, down and status print and exit 0', () => {
  // The data directory is not looked at: a file in its place does not matter.
  const datadir = `-datadir=${NETWORK_BIN}`;
  for (const [argv, start, lists] of [
    [['-version'], VERSION_LINE, []],
    [['up', '-version'], VERSION_LINE, []],
    [['down', datadir, '-version'], VERSION_LINE, []],
    [['status', '--version'], VERSION_LINE, []],
    [['-help'], `${VERSION_LINE}\nUsage:\n  cs-network up [options]`, ['datadir', 'baseport', 'model-path', 'corruptanswers', 'purge']],
    [['up', '-help'], `${VERSION_LINE}\nUsage: cs-network up [options]\n`, ['datadir', 'baseport', 'model-path', 'corruptanswers']],
    [['down', '-h', datadir], `${VERSION_LINE}\nUsage: cs-network down [-datadir=<dir>] [-purge]\n`, ['datadir', 'purge']],
    [['status', '-?'], `${VERSION_LINE}\nUsage: cs-network status [-datadir=<dir>]\n`, ['datadir']],
  ] as const) {
    const r = run(process.execPath, [NETWORK_BIN, ...argv]);
    assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`);
    assert.ok(r.stdout.startsWith(start), `${argv.join(' ')}: ${r.stdout.slice(0, 200)}`);
    if (start === VERSION_LINE) assert.equal(r.stdout, VERSION_LINE, argv.join(' '));
    for (const name of ['datadir', 'baseport', 'model-path', 'corruptanswers', 'purge'])
      assert.equal(
        new RegExp(`\\n {2}-${name}(=<[^>]+>)?\\n`).test(r.stdout),
        (lists as readonly string[]).includes(name),
        `${argv.join(' ')}: -${name}`,
      );
  }
});

test('a mistake prints one line and exits 1', () => {
  for (const [argv, line] of [
    [['up', '-bogus'], 'cs-network: Invalid parameter -bogus\n'],
    [['down', '-baseport=27400'], 'cs-network: -baseport goes with up\n'],
    [[], 'cs-network: no command: up, down or status\n'],
  ] as const) {
    const r = run(process.execPath, [NETWORK_BIN, ...argv]);
    assert.deepEqual([r.status, r.stdout, r.stderr], [1, '', line], argv.join(' '));
  }
});

test('through npm: npx with -h or --help, and npm run network -- -h, print the help without a warning from npm', () => {
  for (const [command, argv, start] of [
    ['npx', ['cs-network', 'up', '-h'], `${VERSION_LINE}\nUsage: cs-network up`],
    ['npx', ['cs-network', 'down', '--help'], `${VERSION_LINE}\nUsage: cs-network down`],
    ['npx', ['cs-network', 'status', '-version'], VERSION_LINE],
    ['npm', ['run', '--silent', 'network', '--', '-h'], `${VERSION_LINE}\nUsage: cs-network up`],
  ] as const) {
    const r = run(command, argv);
    const shown = `${command} ${argv.join(' ')}`;
    assert.equal(r.status, 0, `${shown}: ${r.stderr}`);
    assert.ok(r.stdout.startsWith(start), `${shown}: ${r.stdout.slice(0, 200)}`);
    assert.equal(r.stderr, '', `${shown} prints nothing on stderr`);
  }
});
