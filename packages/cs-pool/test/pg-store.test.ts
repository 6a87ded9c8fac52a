// The PostgreSQL store's group commit, on a throwaway cluster: shares sent together from two
// front-ends get distinct sequence numbers, ascending in each front-end's order, and are stored as
// sent; no share commits ahead of another front-end's lower seq; a statement that fails rejects
// only its own shares; close() waits for queued shares; a database from before share weights is
// migrated once; a share retried with its hash is stored once; a paused server costs a statement
// its deadline, not the store.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, test } from 'node:test';
import { REGTEST } from '@cs/consensus';
import pg from 'pg';
import { TransientError } from '../src/accounting/pg-session.ts';
import { PgStore, SHARES_LOCK_KEY } from '../src/accounting/pg-store.ts';
import type { NewShare, StoredShare } from '../src/accounting/store.ts';
import { WEIGHT_SCALE } from '../src/accounting/weights.ts';
import { type Cluster, startCluster } from './postgres.ts';

let cluster: Cluster | string;

before(async () => {
  cluster = await startCluster();
});

after(() => {
  if (cluster && typeof cluster !== 'string') cluster.stop();
});

const share = (front: number, i: number): NewShare => ({
  address: `csrt1front${front}`,
  worker: `rig${i % 7}`,
  weight: 10n ** 20n + BigInt(i),
  difficulty: 0.5 + i / 1024,
  solo: i % 5 === 0,
  time: 1_700_000_000_000 + i,
});

async function stored(store: PgStore): Promise<Map<number, StoredShare>> {
  const all = new Map<number, StoredShare>();
  for await (const s of store.sharesInRange(0, Number.MAX_SAFE_INTEGER)) all.set(s.seq, s);
  return all;
}

test('shares from two front-ends at once: distinct ascending seqs, every field stored as sent', async (t) => {
  if (typeof cluster === 'string') return t.skip(cluster);
  const fronts = [await PgStore.open(cluster.url, REGTEST.powLimit), await PgStore.open(cluster.url, REGTEST.powLimit)];
  try {
    const PER_FRONT = 1500;
    // Interleaved and all in flight together, as two busy pools would send them.
    const sent: { front: number; share: NewShare; seq: Promise<number> }[] = [];
    for (let i = 0; i < PER_FRONT; i++) {
      for (const [front, store] of fronts.entries()) {
        const s = share(front, i);
        sent.push({ front, share: s, seq: store.addShare(s) });
      }
    }
    const seqs = await Promise.all(sent.map((x) => x.seq));
    assert.equal(new Set(seqs).size, seqs.length, 'every share has its own seq');
    for (const front of [0, 1]) {
      const mine = seqs.filter((_, k) => sent[k].front === front);
      assert.ok(
        mine.every((seq, k) => k === 0 || seq > mine[k - 1]),
        `front-end ${front}'s seqs ascend in the order it sent its shares`,
      );
    }
    const rows = await stored(fronts[0]);
    assert.equal(rows.size, seqs.length);
    sent.forEach((x, k) => assert.deepEqual(rows.get(seqs[k]), { seq: seqs[k], ...x.share }));
  } finally {
    for (const store of fronts) await store.close();
  }
});

test('a failed statement rejects only the shares it carried; close() waits for queued shares', async (t) => {
  if (typeof cluster === 'string') return t.skip(cluster);
  const store = await PgStore.open(cluster.url, REGTEST.powLimit);
  const before = (await stored(store)).size;
  // The first share goes alone into an INSERT; the next three wait for it and go together into
  // the second, which PostgreSQL refuses (text holds no NUL): only those three are rejected.
  const first = store.addShare(share(2, 0));
  const together = [store.addShare(share(2, 1)), store.addShare({ ...share(2, 2), address: 'csrt1\u0000' }), store.addShare(share(2, 3))];
  assert.equal(typeof (await first), 'number');
  const outcomes = await Promise.allSettled(together);
  assert.deepEqual(
    outcomes.map((o) => o.status),
    ['rejected', 'rejected', 'rejected'],
  );
  assert.equal(typeof (await store.addShare(share(2, 4))), 'number', 'the store goes on after a failed statement');
  // Queued and closed at once: close() lets them commit before it ends the connections.
  const last = Array.from({ length: 50 }, (_, i) => store.addShare(share(3, i)));
  await store.close();
  assert.equal((await Promise.all(last)).length, 50);
  const reopened = await PgStore.open(cluster.url, REGTEST.powLimit);
  try {
    assert.equal((await stored(reopened)).size, before + 2 + 50);
  } finally {
    await reopened.close();
  }
});

test('a share commits only after every lower seq, whichever front-end drew it', async (t) => {
  if (typeof cluster === 'string') return t.skip(cluster);
  const store = await PgStore.open(cluster.url, REGTEST.powLimit);
  // Another front-end in the middle of appending: it has drawn a seq and not yet committed.
  const other = new pg.Client({ connectionString: cluster.url });
  await other.connect();
  const observer = new pg.Client({ connectionString: cluster.url });
  await observer.connect();
  try {
    await other.query('BEGIN');
    await other.query('SELECT pg_advisory_xact_lock($1)', [SHARES_LOCK_KEY]);
    const drawn = await other.query<{ seq: string }>(
      "INSERT INTO shares (address, worker, weight, difficulty, solo, time) VALUES ('csrt1other', 'rig', 1, 1, false, 0) RETURNING seq",
    );
    const otherSeq = Number(drawn.rows[0].seq);
    // When this front-end's share is acknowledged, the other's lower seq must be visible already.
    const acknowledged = store.addShare(share(4, 0)).then(async (seq) => {
      const r = await observer.query('SELECT count(*)::int AS n FROM shares WHERE seq = $1', [otherSeq]);
      return { seq, otherVisible: r.rows[0].n === 1 };
    });
    // Long enough for an unserialized INSERT to have committed and been acknowledged meanwhile.
    await new Promise((resolve) => setTimeout(resolve, 300));
    await other.query('COMMIT');
    const { seq, otherVisible } = await acknowledged;
    assert.ok(seq > otherSeq, 'drawn after the other front-end');
    assert.ok(otherVisible, "acknowledged only once the other front-end's lower seq had committed");
  } finally {
    await other.end();
    await observer.end();
    await store.close();
  }
});

test('a database from before share weights: every share gets its weight from its work, once, and blocks read back', async (t) => {
  if (typeof cluster === 'string') return t.skip(cluster);
  const admin = new pg.Client({ connectionString: cluster.url.replace(/\/pool$/, '/postgres') });
  await admin.connect();
  await admin.query('CREATE DATABASE legacy');
  await admin.end();
  const url = cluster.url.replace(/\/pool$/, '/legacy');
  const old = new pg.Client({ connectionString: url });
  await old.connect();
  // The tables as the pool made them before: work in expected hashes, floor((2^256 - 1) / target).
  await old.query(`CREATE TABLE shares (seq BIGSERIAL PRIMARY KEY, address TEXT NOT NULL, worker TEXT NOT NULL,
    work NUMERIC(80, 0) NOT NULL, difficulty DOUBLE PRECISION NOT NULL, solo BOOLEAN NOT NULL, time BIGINT NOT NULL)`);
  await old.query(
    "INSERT INTO shares (address, worker, work, difficulty, solo, time) VALUES ('csrt1a', 'rig', 17, 1, false, 1), ('csrt1b', 'rig', 34, 2, true, 2)",
  );
  await old.query('CREATE TABLE blocks (hash TEXT PRIMARY KEY, share_seq BIGINT NOT NULL, record JSONB NOT NULL)');
  await old.query(`INSERT INTO blocks VALUES ('h', 2, '{"hash":"h","shareSeq":2,"networkWork":{"$big":"17"},"credits":{},"rounds":[]}')`);
  await old.end();
  for (let run = 0; run < 2; run++) {
    const store = await PgStore.open(url, REGTEST.powLimit);
    try {
      // Regtest: 2^256 / powLimit is 17 hashes per difficulty unit.
      assert.deepEqual(
        [...(await stored(store)).values()].slice(0, 2).map((s) => [s.address, s.weight, s.solo]),
        [
          ['csrt1a', WEIGHT_SCALE, false],
          ['csrt1b', 2n * WEIGHT_SCALE, true],
        ],
      );
      const [block] = await store.blocks();
      assert.equal(block.networkWeight, WEIGHT_SCALE);
      // New shares go in beside the migrated ones, and the second open finds nothing left to migrate.
      if (run === 0) assert.equal(await store.addShare(share(5, 1)), 3);
    } finally {
      await store.close();
    }
  }
});

test('a share sent again with its hash, as a batch retried after a lost answer sends it, is stored once and gets its seq back', async (t) => {
  if (typeof cluster === 'string') return t.skip(cluster);
  const store = await PgStore.open(cluster.url, REGTEST.powLimit);
  try {
    const again = { ...share(7, 0), hash: randomBytes(32) };
    const first = await store.addShare(again);
    // In one batch with new shares: the stored one is skipped, the new ones drawn after it.
    const [repeated, fresh] = await Promise.all([store.addShare(again), store.addShare({ ...share(7, 1), hash: randomBytes(32) })]);
    assert.equal(repeated, first, 'the seq it was stored with');
    assert.ok(fresh > first);
    const rows = [...(await stored(store)).values()].filter((s) => s.address === 'csrt1front7');
    assert.deepEqual(
      rows.map((s) => s.seq),
      [first, fresh],
      'stored once',
    );
  } finally {
    await store.close();
  }
});

test('a paused server: a statement gives up at the deadline instead of waiting, and the store works again once it resumes', async (t) => {
  if (typeof cluster === 'string') return t.skip(cluster);
  const db = cluster;
  const store = await PgStore.open(db.url, REGTEST.powLimit, { timeoutMs: 500 });
  try {
    db.pause();
    try {
      await assert.rejects(store.balances(), TransientError);
      await assert.rejects(store.apply({ meta: { stalled: 'yes' } }), TransientError);
    } finally {
      db.resume();
    }
    // The apply cut off by its deadline is settled first: done or not, never behind the next read.
    const seen = await store.meta('stalled');
    assert.ok(seen === null || seen === 'yes');
    await store.apply({ meta: { stalled: 'no' } });
    assert.equal(await store.meta('stalled'), 'no');
  } finally {
    await store.close();
  }
});
