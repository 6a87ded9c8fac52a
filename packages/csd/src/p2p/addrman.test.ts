import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { AddressManager, BUCKET_SIZE } from './addrman.ts';

const NOW = 1_795_000_000;

function withDir(fn: (dir: string) => Promise<void>): () => Promise<void> {
  return async () => {
    const dir = mkdtempSync(join(tmpdir(), 'addrman-'));
    try {
      await fn(dir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

test('only routable addresses are kept, each once', () => {
  const m = new AddressManager('/nonexistent/peers.json', () => NOW);
  assert.equal(m.add({ services: 9n, host: '127.0.0.1', port: 16125 }, '8.8.8.8'), false);
  assert.equal(m.add({ services: 9n, host: '10.1.2.3', port: 16125 }, '8.8.8.8'), false);
  assert.equal(m.add({ services: 9n, host: '1.2.3.4', port: 16125 }, '8.8.8.8'), true);
  assert.equal(m.add({ services: 9n, host: '1.2.3.4', port: 16125 }, '8.8.8.8'), false);
  assert.equal(m.size, 1);
});

test('one source cannot fill the table: its addresses from one group share one new bucket', () => {
  const m = new AddressManager('/nonexistent/peers.json', () => NOW);
  // 10,000 addresses of one /16 group announced by one peer land in a single bucket of 64 slots.
  for (let i = 0; i < 10_000; i++) m.add({ services: 1n, host: `44.55.${i >> 8}.${i & 0xff}`, port: 16125 }, '9.9.9.9');
  assert.ok(m.size <= BUCKET_SIZE, `${m.size} addresses kept`);
});

test(
  'the table, its key and tried addresses survive a save and load',
  withDir(async (dir) => {
    const path = join(dir, 'peers.json');
    const m = new AddressManager(path, () => NOW);
    for (let i = 1; i <= 50; i++) m.add({ services: 9n, host: `${i}.20.30.40`, port: 16125 }, `${i}.1.1.1`);
    m.good('7.20.30.40', 16125);
    await m.save();
    const loaded = new AddressManager(path, () => NOW);
    assert.equal(await loaded.load(), null);
    assert.equal(loaded.size, m.size);
    const sample = loaded.sample();
    assert.ok(sample.length > 0 && sample.length <= Math.ceil(m.size * 0.23), `getaddr sample of ${sample.length} from ${m.size}`);
    assert.ok(loaded.select(() => false) !== null, 'the reloaded manager has no address to select');
  }),
);

test(
  'a corrupt peers.json is reported and the table starts empty',
  withDir(async (dir) => {
    const path = join(dir, 'peers.json');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(path, '{not json');
    const m = new AddressManager(path, () => NOW);
    assert.match((await m.load()) ?? '', /peers.json ignored/);
    assert.equal(m.size, 0);
  }),
);
