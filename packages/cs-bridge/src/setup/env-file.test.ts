// The environment file: .env.example is exactly the template the wizard writes, and writing keeps
// the values a file has, changes only the keys given, and leaves the file owner-only.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { VARIABLES, parseConfig, readEnvFile } from '../config/env.ts';
import { envText, writeEnvFile } from './env-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'cs-bridge-env-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('.env.example is the template with every variable', () => {
  const example = readFileSync(fileURLToPath(new URL('../../.env.example', import.meta.url)), 'utf8');
  assert.equal(example, envText({}), 'regenerate .env.example from envText({}) (docs/bridge.md)');
  for (const v of VARIABLES) assert.match(example, new RegExp(`^${v.name}=`, 'm'), `${v.name} is in .env.example`);
});

test('writing keeps existing values, changes only the given keys, and makes the file owner-only', () => {
  const path = join(dir, '.env');
  writeFileSync(path, 'CSD_RPC_USER=alice\nCSD_RPC_PASS="p a s s"\n', { mode: 0o644 });
  writeEnvFile(path, { OPOI_ADDRESSES: 'csrt1qexample', DATA_DIR: join(dir, 'data') });
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const values = readEnvFile(path);
  assert.deepEqual([values.CSD_RPC_USER, values.CSD_RPC_PASS, values.OPOI_ADDRESSES], ['alice', 'p a s s', 'csrt1qexample']);
  assert.throws(() => writeEnvFile(path, { CSD_RPC_PASS: 'a"b' }), /double quotes/);
  // The written file parses back into a configuration once the required values are there.
  writeEnvFile(path, { OPOI_REQUESTER_API_KEY: 'k'.repeat(16) });
  const config = parseConfig(path, readEnvFile(path));
  assert.deepEqual([config.rpcUser, config.listen.port, config.feeBasisPoints, config.minPayout], ['alice', 3532, 100, 1_000_000n]);
});
