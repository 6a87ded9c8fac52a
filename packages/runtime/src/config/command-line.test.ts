import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NETWORK_DEFAULTS } from '@cs/consensus/network-defaults';
import { readCommandLine } from './command-line.ts';
import { INFO_OPTIONS } from './common-options.ts';
import { flag, integer, list, text } from './spec.ts';

const category = 'general';
const TABLE = {
  ...INFO_OPTIONS,
  name: text({ category, description: 'd', default: 'x' }),
  port: integer({ category, description: 'd', default: (net) => net.p2pPort, min: 1, max: 65535 }),
  quiet: flag({ category, description: 'd', default: false }),
  item: list({ category, description: 'd', default: [] }),
};

test('the last occurrence wins, what was set is known, and positional arguments start at the first word', () => {
  const cl = readCommandLine(TABLE, ['-name=a', '--name=b', '-item=1', '-item=2', 'ask', '-quiet', 'words']);
  assert.deepEqual([cl.values.name, cl.values.item, cl.values.quiet], ['b', ['1', '2'], false]);
  assert.deepEqual([cl.isSet('name'), cl.isSet('quiet'), cl.isSet('port')], [true, false, false]);
  assert.deepEqual(cl.positional, ['ask', '-quiet', 'words']);
});

test('per-network defaults come from the network given, regtest otherwise', () => {
  assert.equal(readCommandLine(TABLE, []).values.port, NETWORK_DEFAULTS.regtest.p2pPort);
  assert.equal(readCommandLine(TABLE, [], NETWORK_DEFAULTS.main).values.port, NETWORK_DEFAULTS.main.p2pPort);
});

test("mistakes read as csd's, and double negatives are warned about", () => {
  assert.throws(() => readCommandLine(TABLE, ['-bogus']), { message: 'Invalid parameter -bogus' });
  assert.throws(() => readCommandLine(TABLE, ['-port=0']), { message: "Invalid value for -port: '0' (expected an integer 1..65535)" });
  assert.throws(() => readCommandLine(TABLE, ['-noport']), { message: 'Negating of -port is meaningless and therefore forbidden' });
  assert.deepEqual(readCommandLine(TABLE, ['-noquiet=0']).warnings, ['Parsed potentially confusing double-negative -noquiet=0']);
});
