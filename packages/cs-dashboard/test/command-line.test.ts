// -help and -version of the real program, answered from the command line alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { DASHBOARD_OPTIONS } from '../src/config/config.ts';

const DASHBOARD_BIN = fileURLToPath(new URL('../bin/cs-dashboard.js', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const VERSION_LINE = `cs dashboard version v${VERSION}\n`;
const HELP_START = `${VERSION_LINE}\nUsage:\n  cs-dashboard -conf=<file.json>`;

function run(argv: readonly string[]) {
  return spawnSync(process.execPath, [DASHBOARD_BIN, ...argv], { encoding: 'utf8', timeout: 60_000 });
}

test('-version and -help (also -h, -?, --help) print and exit 0 without reading the conf file', () => {
  for (const [argv, start] of [
    [['-version'], VERSION_LINE],
    [['-conf=/nonexistent.json', '-version'], VERSION_LINE],
    [['-help'], HELP_START],
    [['-h'], HELP_START],
    [['-?'], HELP_START],
    [['--help'], HELP_START],
    [['-conf=/nonexistent.json', '-help'], HELP_START],
  ] as const) {
    const r = run(argv);
    assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`);
    assert.ok(r.stdout.startsWith(start), `${argv.join(' ')}: ${r.stdout.slice(0, 200)}`);
    if (start === VERSION_LINE) assert.equal(r.stdout, VERSION_LINE);
  }
  const help = run(['-help']).stdout;
  for (const name of Object.keys(DASHBOARD_OPTIONS)) assert.match(help, new RegExp(`\\n {2}-${name}(=<[^>]+>)?\\n`), name);
  assert.ok(help.includes('(default: 127.0.0.1:8180)'));
});

test('a bad option prints one line naming it and exits 1', () => {
  for (const [argv, line] of [
    [['-bogus'], 'cs-dashboard: Invalid parameter -bogus\n'],
    [['-rpcurl'], "cs-dashboard: Invalid value for -rpcurl: '' (expected a non-empty <url>)\n"],
    [['-conf=/nonexistent.json'], 'cs-dashboard: cannot read the conf file /nonexistent.json: ENOENT\n'],
  ] as const) {
    const r = run(argv);
    assert.deepEqual([r.status, r.stdout, r.stderr], [1, '', line], argv.join(' '));
  }
});
