import assert from 'node:assert/strict';
import { test } from 'node:test';
import { tempDatabase } from '../../test/chain-harness.ts';

test('a failed write transaction lands nothing and tells the caches that took its values', (t) => {
  const db = tempDatabase(t, 'csd-db-');
  let failures = 0;
  db.onWriteFailure(() => failures++);
  const key = Buffer.from('k');
  db.write(() => db.putMeta('k', Buffer.from('kept')));
  assert.throws(
    () =>
      db.write(() => {
        db.putMeta('k', Buffer.from('lost'));
        throw new Error('disk full');
      }),
    /disk full/,
  );
  assert.equal(failures, 1);
  assert.equal(db.tables.meta.get(key)?.toString(), 'kept');
  db.write(() => db.putMeta('k', Buffer.from('next')));
  assert.equal(failures, 1, 'a write that commits calls no handler');
  assert.equal(db.getMeta('k')?.toString(), 'next');
});
