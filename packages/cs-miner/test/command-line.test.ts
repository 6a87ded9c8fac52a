// -help and -version of the real program, answered from the command line alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { MINER_OPTIONS } from '../src/config/options.ts';
import { MINER_BIN } from './miner-process.ts';

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const VERSION_LINE = `cs miner version v${VERSION}\n`;
const HELP_START = `${VERSION_LINE}\nUsage: cs-miner -pool=stratum+tcp://host:port -user=<wallet_address>.<worker_name> [options]\n`;

test('-version and -help (also -h, -?, --help) print and exit 0; no file is read and no pool is needed', () => {
  for (const [argv, start] of [
    [['-version'], VERSION_LINE],
    [['--version'], VERSION_LINE],
    [['-help', '-version'], VERSION_LINE],
    [['-help'], HELP_START],
    [['-h'], HELP_START],
    [['-?'], HELP_START],
    [['--help'], HELP_START],
    [['-tlsca=/nonexistent/ca.pem', '-model-path=/nonexistent/m.gguf', '-help'], HELP_START],
  ] as const) {
    const r = spawnSync(process.execPath, [MINER_BIN, ...argv], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`);
    assert.ok(r.stdout.startsWith(start), `${argv.join(' ')}: ${r.stdout.slice(0, 200)}`);
    if (start === VERSION_LINE) assert.equal(r.stdout, VERSION_LINE);
    else for (const name of Object.keys(MINER_OPTIONS)) assert.match(r.stdout, new RegExp(`\\n {2}-${name}(=<[^\\n]+>)?\\n`), name);
  }
});
