/**
 * The PostgreSQL store, for several cs-pool front-ends sharing one database: each appends its own
 * shares and found blocks; exactly one runs the payout processor, the one holding a session-level
 * advisory lock (released by PostgreSQL when that process or its connection dies, so another
 * front-end takes over at its next tick). Balance changes are deltas applied with
 * `x = x + delta` under CHECK (x >= 0), in one transaction per step, like the LMDB store.
 */
import pg from 'pg';
import { blockFromRecord, decodeRecord, encodeRecord, type Json } from './records.ts';
import {
  ZERO_BALANCE,
  type AccountingStore,
  type Balance,
  type BlockRecord,
  type LedgerChange,
  type NewShare,
  type PaymentRecord,
  type StoredShare,
} from './store.ts';
import { WEIGHT_SCALE } from './weights.ts';

/** pg_try_advisory_lock's key: "csp" + 1, a constant every cs-pool agrees on. */
const PAYOUT_LOCK_KEY = 0x63737001;
const PAGE = 1000;
/** pg_advisory_xact_lock's key for appending shares (the DDL's is PAYOUT_LOCK_KEY + 1); whatever else appends shares takes it too. */
export const SHARES_LOCK_KEY = PAYOUT_LOCK_KEY + 2;
/** Most shares one INSERT carries (its six array parameters stay far below PostgreSQL's limits). */
const MAX_SHARE_BATCH = 2000;

/**
 * Appends shares in one statement, rows in the arrays' order (WITH ORDINALITY ... ORDER BY), so the
 * sequence numbers it draws ascend in that order too.
 */
const INSERT_SHARES = `
INSERT INTO shares (address, worker, weight, difficulty, solo, time)
SELECT address, worker, weight, difficulty, solo, time
FROM unnest($1::text[], $2::text[], $3::numeric[], $4::float8[], $5::bool[], $6::int8[])
  WITH ORDINALITY AS u(address, worker, weight, difficulty, solo, time, n)
ORDER BY n
RETURNING seq`;

interface QueuedShare {
  readonly share: NewShare;
  readonly resolve: (seq: number) => void;
  readonly reject: (e: unknown) => void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS shares (
  seq BIGSERIAL PRIMARY KEY,
  address TEXT NOT NULL,
  worker TEXT NOT NULL,
  weight NUMERIC(120, 0) NOT NULL,
  difficulty DOUBLE PRECISION NOT NULL,
  solo BOOLEAN NOT NULL,
  time BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS blocks (hash TEXT PRIMARY KEY, share_seq BIGINT NOT NULL, record JSONB NOT NULL);
CREATE TABLE IF NOT EXISTS balances (
  address TEXT PRIMARY KEY,
  immature NUMERIC(30, 0) NOT NULL DEFAULT 0 CHECK (immature >= 0),
  pending NUMERIC(30, 0) NOT NULL DEFAULT 0 CHECK (pending >= 0),
  paid NUMERIC(30, 0) NOT NULL DEFAULT 0 CHECK (paid >= 0)
);
CREATE TABLE IF NOT EXISTS payments (id INTEGER PRIMARY KEY, record JSONB NOT NULL);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
`;

/**
 * Tables made before share weights hold `work` (expected hashes) instead: each row gets its weight
 * from it (weights.ts, weightOfLegacyWork, in exact NUMERIC arithmetic: div is integer division),
 * then the column goes. Runs once, inside open()'s DDL transaction.
 */
async function migrateWorkToWeight(client: pg.PoolClient, powLimit: bigint): Promise<void> {
  const r = await client.query(
    "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'shares' AND column_name = 'work'",
  );
  if (r.rows.length === 0) return;
  await client.query('ALTER TABLE shares ADD COLUMN IF NOT EXISTS weight NUMERIC(120, 0)');
  await client.query('UPDATE shares SET weight = div(work * $1::numeric + $2::numeric, $3::numeric) WHERE weight IS NULL', [
    (2n * powLimit * WEIGHT_SCALE).toString(),
    (1n << 256n).toString(),
    (1n << 257n).toString(),
  ]);
  await client.query('ALTER TABLE shares DROP COLUMN work');
  await client.query('ALTER TABLE shares ALTER COLUMN weight SET NOT NULL');
}

interface ShareRow {
  seq: string;
  address: string;
  worker: string;
  weight: string;
  difficulty: number;
  solo: boolean;
  time: string;
}

function shareFromRow(r: ShareRow): StoredShare {
  return {
    seq: Number(r.seq),
    address: r.address,
    worker: r.worker,
    weight: BigInt(r.weight),
    difficulty: r.difficulty,
    solo: r.solo,
    time: Number(r.time),
  };
}

function balanceFromRow(r: { immature: string; pending: string; paid: string }): Balance {
  return { immature: BigInt(r.immature), pending: BigInt(r.pending), paid: BigInt(r.paid) };
}

export class PgStore implements AccountingStore {
  private lockClient: pg.Client | null = null;
  /** Shares waiting for the next INSERT. */
  private queued: QueuedShare[] = [];
  /** The INSERTs running until the queue is empty; null when none runs. */
  private inserting: Promise<void> | null = null;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly powLimit: bigint,
  ) {}

  /** `powLimit` converts what was stored before share weights (work in hashes). */
  static async open(url: string, powLimit: bigint): Promise<PgStore> {
    const pool = new pg.Pool({ connectionString: url, max: 8 });
    // Two front-ends starting together both run the DDL: serialize them on a transaction lock.
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [PAYOUT_LOCK_KEY + 1]);
      await client.query(SCHEMA);
      await migrateWorkToWeight(client, powLimit);
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK');
      throw e;
    } finally {
      client.release();
    }
    return new PgStore(pool, url, powLimit);
  }

  /**
   * Group commit, as the LMDB store does it: the shares that arrive while one INSERT runs go
   * together into the next, and each resolves once its statement has committed. A statement (and
   * its commit) per share held a busy pool to what a few connections' round trips allowed.
   */
  addShare(share: NewShare): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queued.push({ share, resolve, reject });
      this.inserting ??= this.insertQueued();
    });
  }

  private async insertQueued(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0, MAX_SHARE_BATCH);
      try {
        const seqs = await this.insertShares(batch.map((q) => q.share));
        batch.forEach((q, i) => q.resolve(seqs[i]));
      } catch (e) {
        for (const q of batch) q.reject(e);
      }
    }
    this.inserting = null;
  }

  /**
   * One transaction that draws the shares' sequence numbers under a lock every front-end takes
   * and holds until it commits: a committed seq then means that every lower one is committed too
   * (or rolled back, never to appear), across front-ends, which is the order the payout
   * processor's PPLNS windows and PROP rounds read shares in. Without it, a front-end's batch
   * could hold low seqs uncommitted while another's higher seq, a block's share say, committed.
   */
  private async insertShares(shares: readonly NewShare[]): Promise<number[]> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [SHARES_LOCK_KEY]);
      const r = await client.query<{ seq: string }>(INSERT_SHARES, [
        shares.map((s) => s.address),
        shares.map((s) => s.worker),
        shares.map((s) => s.weight.toString()),
        shares.map((s) => s.difficulty),
        shares.map((s) => s.solo),
        shares.map((s) => s.time),
      ]);
      await client.query('COMMIT');
      // Ascending in the rows' order whatever order RETURNING lists them in.
      return r.rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
    } catch (e) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw e;
    } finally {
      client.release();
    }
  }

  async addBlock(block: BlockRecord): Promise<void> {
    await this.pool.query('INSERT INTO blocks (hash, share_seq, record) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING', [
      block.hash,
      block.shareSeq,
      encodeRecord(block),
    ]);
  }

  async *sharesDescending(fromSeq: number): AsyncIterable<StoredShare> {
    let start = fromSeq;
    for (;;) {
      const r = await this.pool.query<ShareRow>('SELECT * FROM shares WHERE seq <= $1 ORDER BY seq DESC LIMIT $2', [start, PAGE]);
      for (const row of r.rows) yield shareFromRow(row);
      if (r.rows.length < PAGE) return;
      start = Number(r.rows[r.rows.length - 1].seq) - 1;
    }
  }

  async *sharesInRange(after: number, upTo: number): AsyncIterable<StoredShare> {
    let from = after;
    for (;;) {
      const r = await this.pool.query<ShareRow>('SELECT * FROM shares WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3', [from, upTo, PAGE]);
      for (const row of r.rows) yield shareFromRow(row);
      if (r.rows.length < PAGE) return;
      from = Number(r.rows[r.rows.length - 1].seq);
    }
  }

  async blocks(): Promise<BlockRecord[]> {
    const r = await this.pool.query<{ record: Json }>('SELECT record FROM blocks ORDER BY share_seq');
    return r.rows.map((row) => blockFromRecord(row.record, this.powLimit));
  }

  async balance(address: string): Promise<Balance> {
    const r = await this.pool.query('SELECT immature, pending, paid FROM balances WHERE address = $1', [address]);
    return r.rows.length === 0 ? ZERO_BALANCE : balanceFromRow(r.rows[0]);
  }

  async balances(): Promise<Map<string, Balance>> {
    const r = await this.pool.query('SELECT address, immature, pending, paid FROM balances');
    return new Map(r.rows.map((row) => [row.address as string, balanceFromRow(row)]));
  }

  async payments(): Promise<PaymentRecord[]> {
    const r = await this.pool.query<{ record: Json }>('SELECT record FROM payments ORDER BY id');
    return r.rows.map((row) => decodeRecord<PaymentRecord>(row.record));
  }

  async meta(key: string): Promise<string | null> {
    const r = await this.pool.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key]);
    return r.rows[0]?.value ?? null;
  }

  async apply(change: LedgerChange): Promise<void> {
    const client = await this.pool.connect();
    try {
      await client.query('BEGIN');
      for (const d of change.balances ?? []) {
        // The row first (zeros), then the delta: a CHECK sees the inserted row before ON CONFLICT would merge it.
        await client.query('INSERT INTO balances (address) VALUES ($1) ON CONFLICT (address) DO NOTHING', [d.address]);
        await client.query('UPDATE balances SET immature = immature + $2, pending = pending + $3, paid = paid + $4 WHERE address = $1', [
          d.address,
          (d.immature ?? 0n).toString(),
          (d.pending ?? 0n).toString(),
          (d.paid ?? 0n).toString(),
        ]);
      }
      for (const b of change.blocks ?? []) {
        await client.query(
          'INSERT INTO blocks (hash, share_seq, record) VALUES ($1, $2, $3) ON CONFLICT (hash) DO UPDATE SET record = EXCLUDED.record',
          [b.hash, b.shareSeq, encodeRecord(b)],
        );
      }
      for (const p of change.payments ?? []) {
        await client.query('INSERT INTO payments (id, record) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record', [
          p.id,
          encodeRecord(p),
        ]);
      }
      for (const [k, v] of Object.entries(change.meta ?? {})) {
        await client.query('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [k, v]);
      }
      await client.query('COMMIT');
    } catch (e) {
      await client.query('ROLLBACK');
      throw e;
    } finally {
      client.release();
    }
  }

  /** The advisory lock lives on a connection of its own: holding it means that connection is alive. */
  async acquirePayoutLock(): Promise<boolean> {
    if (this.lockClient) return true;
    const client = new pg.Client({ connectionString: this.url });
    await client.connect();
    const r = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [PAYOUT_LOCK_KEY]);
    if (!r.rows[0].locked) {
      await client.end();
      return false;
    }
    // A lost connection loses the lock: forget it, and try again at the next tick.
    client.on('error', () => {
      this.lockClient = null;
    });
    this.lockClient = client;
    return true;
  }

  async close(): Promise<void> {
    await this.inserting;
    await this.lockClient?.end();
    await this.pool.end();
  }
}
