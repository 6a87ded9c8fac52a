// -help and -version of the real program, answered from the command line alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { POOL_OPTIONS } from '../src/node/config.ts';

const POOL_BIN = fileURLToPath(new URL('../bin/cs-pool.js', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const VERSION_LINE = `cs stratum pool version v${VERSION}\n`;

function run(argv: readonly string[]) {
  return spawnSync(process.execPath, [POOL_BIN, ...argv], { encoding: 'utf8', timeout: 60_000 });
}

test('-version and -help (also -h, -? and --help) print and exit 0, whatever else is on the line', () => {
  for (const [argv, start] of [
    [['-version'], VERSION_LINE],
    [['--version'], VERSION_LINE],
    [['-help', '-version'], VERSION_LINE],
    [['-help'], `${VERSION_LINE}\nUsage: cs-pool [options]\n`],
    [['-h'], `${VERSION_LINE}\nUsage: cs-pool [options]\n`],
    [['-?'], `${VERSION_LINE}\nUsage: cs-pool [options]\n`],
    [['--help'], `${VERSION_LINE}\nUsage: cs-pool [options]\n`],
    // Files are not looked at: a missing certificate does not matter.
    [['-tlscert=/nonexistent/cert.pem', '-tlskey=/nonexistent/key.pem', '-help'], `${VERSION_LINE}\nUsage: cs-pool [options]\n`],
  ] as const) {
    const r = run(argv);
    assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`);
    assert.ok(r.stdout.startsWith(start), `${argv.join(' ')}: ${r.stdout.slice(0, 200)}`);
    if (start === VERSION_LINE) assert.equal(r.stdout, VERSION_LINE);
  }
});

test('-help lists every option with its default', () => {
  const help = run(['-help']).stdout;
  for (const name of Object.keys(POOL_OPTIONS)) assert.match(help, new RegExp(`\\n {2}-${name}(=\\S+)?\\n`), name);
  const words = help.replace(/\s+/g, ' ');
  for (const shown of [
    '(default: 3332)',
    '(default: ~/.cs-pool)',
    '(default: pplns)',
    '(default: 0.1)',
    '(default: 0.05 on main, 0.05 on test, 0.001 on regtest)',
  ])
    assert.ok(words.includes(shown), shown);
});

test('a bad option prints one line naming it and exits 1', () => {
  for (const [argv, line] of [
    [['-bogus'], 'cs-pool: Invalid parameter -bogus\n'],
    // As csd: the whole command line is read before -help is answered.
    [['-bogus', '-help'], 'cs-pool: Invalid parameter -bogus\n'],
    [['-apiport=http'], "cs-pool: Invalid value for -apiport: 'http' (expected an integer 0..65535)\n"],
  ] as const) {
    const r = run(argv);
    assert.deepEqual([r.status, r.stdout, r.stderr], [1, '', line], argv.join(' '));
  }
});
