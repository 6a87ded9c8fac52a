// -help and -version of the real program and of each command, answered from the command line alone.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const BRIDGE_BIN = fileURLToPath(new URL('../bin/cs-bridge.js', import.meta.url));
const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const VERSION_LINE = `cs OPoI bridge version v${VERSION}\n`;

function run(argv: readonly string[]) {
  return spawnSync(process.execPath, [BRIDGE_BIN, ...argv], { encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
}

test('-version and -help of cs-bridge and each command print and exit 0; the env file is not read', () => {
  // A directory as the env file: reading it would fail.
  const unreadable = `-env=${tmpdir()}`;
  for (const [argv, start, has] of [
    [['-version'], VERSION_LINE, null],
    [['setup', '-version'], VERSION_LINE, null],
    [['ask', '-version'], VERSION_LINE, null],
    [[unreadable, 'ask', '--version'], VERSION_LINE, null],
    [['-help'], `${VERSION_LINE}\nUsage:\n  cs-bridge [-env=<file>]`, '  -env=<file>'],
    [[unreadable, '-h'], `${VERSION_LINE}\nUsage:\n  cs-bridge [-env=<file>]`, '  -env=<file>'],
    [['setup', '-help'], `${VERSION_LINE}\nUsage: cs-bridge setup [-env=<file>]\n`, '  -env=<file>'],
    [['setup', unreadable, '-?'], `${VERSION_LINE}\nUsage: cs-bridge setup [-env=<file>]\n`, '  -env=<file>'],
    [
      ['ask', '-help'],
      `${VERSION_LINE}\nUsage: cs-bridge ask -model=<name> -maxtokens=<n> -payment=<coins> [options] <prompt>\n`,
      '  -feepertoken=<coins>',
    ],
    [['ask', unreadable, '--help'], `${VERSION_LINE}\nUsage: cs-bridge ask -model=<name>`, '  -requestid=<uuid>'],
    [['ask', '-help'], `${VERSION_LINE}\nUsage: cs-bridge ask -model=<name>`, '  -quorum=<n>'],
    [['challenge', unreadable, '-help'], `${VERSION_LINE}\nUsage: cs-bridge challenge [options] <request_id>\n`, '  -bond=<coins>'],
    [['manifest', '-help'], `${VERSION_LINE}\nUsage: cs-bridge manifest [options] <gguf file>\n`, '  -tolerance=<n>'],
    [['manifest', '-version'], VERSION_LINE, null],
  ] as const) {
    const r = run(argv);
    assert.equal(r.status, 0, `${argv.join(' ')}: ${r.stderr}`);
    assert.ok(r.stdout.startsWith(start), `${argv.join(' ')}: ${r.stdout.slice(0, 300)}`);
    if (has === null) assert.equal(r.stdout, VERSION_LINE, argv.join(' '));
    else assert.ok(r.stdout.includes(`\n${has}\n`), `${argv.join(' ')} lists ${has}`);
  }
});

test('ask -help lists every option of the request in the new spelling', () => {
  const help = run(['ask', '-help']).stdout;
  for (const name of [
    'model',
    'maxtokens',
    'payment',
    'feepertoken',
    'requester',
    'requestid',
    'pollms',
    'bridgeurl',
    'apikey',
    'rpcurl',
    'rpcuser',
    'rpcpassword',
  ])
    assert.match(help, new RegExp(`\\n {2}-${name}=<[^>]+>\\n`), name);
});

test('a mistake prints one line naming the option and exits 1', () => {
  for (const [argv, line] of [
    [['-bogus'], 'cs-bridge: Invalid parameter -bogus\n'],
    [['ask', '--max-tokens=20'], 'cs-bridge: Invalid parameter -max-tokens\n'],
    [['ask', '-model=tiny', 'hi'], 'cs-bridge: ask needs -model=<name>, -maxtokens=<n>, -payment=<coins> and the prompt (cs-bridge ask -help)\n'],
    [['start'], "cs-bridge: unknown command 'start' (setup, ask, challenge, manifest; cs-bridge -help)\n"],
  ] as const) {
    const r = run(argv);
    assert.deepEqual([r.status, r.stdout, r.stderr], [1, '', line], argv.join(' '));
  }
});
