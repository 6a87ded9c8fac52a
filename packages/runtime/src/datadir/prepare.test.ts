import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultDataDir, networkDataDir } from './paths.ts';
import { DataDirError, prepareDataDir } from './prepare.ts';

const root = mkdtempSync(join(tmpdir(), 'cs-datadir-'));
after(() => {
  chmodSync(join(root, 'readonly'), 0o700);
  rmSync(root, { recursive: true, force: true });
});

test('layout: ~/.cs, with test and regtest data in subfolders', () => {
  assert.equal(defaultDataDir({ HOME: '/home/alice' }), '/home/alice/.cs');
  assert.equal(defaultDataDir({}), '/.cs');
  assert.equal(networkDataDir('/d', 'main'), '/d');
  assert.equal(networkDataDir('/d', 'test'), '/d/testnet');
  assert.equal(networkDataDir('/d', 'regtest'), '/d/regtest');
});

test('missing folders are created owner-only; existing ones are left as they are', () => {
  const dataDir = join(root, 'new', 'cs');
  prepareDataDir({ dataDir, networkDir: join(dataDir, 'regtest') });
  assert.equal(statSync(dataDir).mode & 0o777, 0o700);
  assert.equal(statSync(join(dataDir, 'regtest')).mode & 0o777, 0o700);
  const existing = join(root, 'existing');
  mkdirSync(existing, { mode: 0o755 });
  chmodSync(existing, 0o755);
  prepareDataDir({ dataDir: existing, networkDir: existing });
  assert.equal(statSync(existing).mode & 0o777, 0o755);
});

test('a file in the way, or a folder that cannot be created, is an error naming it', () => {
  const file = join(root, 'file');
  writeFileSync(file, '');
  assert.throws(() => prepareDataDir({ dataDir: file, networkDir: join(file, 'regtest') }), {
    name: 'DataDirError',
    message: `Specified data directory "${file}" is not a directory.`,
  });
  const dataDir = join(root, 'with-file');
  mkdirSync(dataDir);
  writeFileSync(join(dataDir, 'testnet'), '');
  assert.throws(() => prepareDataDir({ dataDir, networkDir: join(dataDir, 'testnet') }), DataDirError);
  const readonly = join(root, 'readonly');
  mkdirSync(readonly, { mode: 0o500 });
  chmodSync(readonly, 0o500);
  // root ignores directory permissions; the refusal can only be observed as another user.
  if (process.getuid?.() !== 0) {
    assert.throws(() => prepareDataDir({ dataDir: join(readonly, 'cs'), networkDir: join(readonly, 'cs') }), {
      message: new RegExp(`^Cannot create data directory "${join(readonly, 'cs')}": EACCES`),
    });
  }
});
