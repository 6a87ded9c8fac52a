import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDatabase } from '../../test/chain-harness.ts';
import type { ChainDatabase } from '../storage/database.ts';
import { appendRecords, clearTables } from './snapshot-meta.ts';

const record = (table: number, key: number) => ({ table, key: Uint8Array.of(0, key), value: Uint8Array.of(key, key) });
const entries = (db: ChainDatabase) => db.stateTables().map((t) => (t.getStats() as { entryCount: number }).entryCount);

test('appendRecords lands records in key order across tables and batches, and skips, without throwing, one out of order', async (t) => {
  const db = tempDatabase(t, 'csd-snapmeta-');
  let pauses = 0;
  const pause = async () => {
    pauses++;
  };
  // More than one batch of 50,000: keys of two bytes, table 0 then table 1.
  const sorted = [
    ...Array.from({ length: 60_000 }, (_, i) => ({ table: 0, key: Uint8Array.of(i >> 8, i & 255), value: Uint8Array.of(1) })),
    record(1, 5),
  ];
  assert.equal(await appendRecords(db, db.stateTables(), sorted.values(), pause), sorted.length);
  assert.deepEqual(entries(db).slice(0, 2), [60_000, 1]);
  assert.equal(pauses, 1, 'a turn between the two transactions');
  assert.deepEqual(db.tables.coins.get(Buffer.of(1, 2)), Buffer.of(1));

  clearTables(db, db.stateTables());
  assert.deepEqual(
    entries(db),
    db.stateTables().map(() => 0),
  );
  // The count of what landed is how the caller finds out (Snapshots.checkCounts).
  await appendRecords(db, db.stateTables(), [record(0, 2), record(0, 1), record(0, 3)].values(), pause);
  assert.deepEqual([...db.tables.coins.getKeys({})], [Buffer.of(0, 2), Buffer.of(0, 3)]);
});
