/**
 * The PostgreSQL store, for several cs-pool front-ends sharing one database: each appends its own
 * shares and found blocks; exactly one runs the payout processor, the one holding a session-level
 * advisory lock (released by PostgreSQL when that process or its connection dies, so another
 * front-end takes over at its next tick). Balance changes are deltas applied with
 * `x = x + delta` under CHECK (x >= 0), in one transaction per step, like the LMDB store. Every
 * statement has a deadline and a lost answer is settled before anything else runs (pg-session.ts);
 * shares carry their hash, unique in the table, so a batch retried after a lost answer stores each
 * share once.
 */
import pg from 'pg';
import { PgSession, type Query, TransientError, isTransient } from './pg-session.ts';
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
/** Most shares one INSERT carries (its seven array parameters stay far below PostgreSQL's limits). */
const MAX_SHARE_BATCH = 2000;
/** Shares waiting while the database does not answer; beyond, new shares are refused at once (they were never sent). */
const MAX_QUEUED_SHARES = 100_000;
/** Waits between tries of a batch the database did not take: doubling from the first to the last. */
const RETRY_FIRST_MS = 100;
const RETRY_MAX_MS = 2000;

/**
 * Appends shares in one statement, rows in the arrays' order (WITH ORDINALITY ... ORDER BY), so the
 * sequence numbers it draws ascend in that order too. A share whose hash is stored already (the
 * batch is a retry of one whose answer was lost) is skipped; its seq is read back apart.
 */
const INSERT_SHARES = `
INSERT INTO shares (address, worker, weight, difficulty, solo, time, hash)
SELECT address, worker, weight, difficulty, solo, time, decode(hash, 'hex')
FROM unnest($1::text[], $2::text[], $3::numeric[], $4::float8[], $5::bool[], $6::int8[], $7::text[])
  WITH ORDINALITY AS u(address, worker, weight, difficulty, solo, time, hash, n)
ORDER BY n
ON CONFLICT (hash) DO NOTHING
RETURNING seq, encode(hash, 'hex') AS hash`;

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
ALTER TABLE shares ADD COLUMN IF NOT EXISTS hash BYTEA;
CREATE UNIQUE INDEX IF NOT EXISTS shares_hash ON shares (hash);
`;

/**
 * Tables made before share weights hold `work` (expected hashes) instead: each row gets its weight
 * from it (weights.ts, weightOfLegacyWork, in exact NUMERIC arithmetic: div is integer division),
 * then the column goes. Runs once, inside open()'s DDL transaction.
 */
async function migrateWorkToWeight(q: Query, powLimit: bigint): Promise<void> {
  const r = await q(
    "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'shares' AND column_name = 'work'",
  );
  if (r.rows.length === 0) return;
  await q('ALTER TABLE shares ADD COLUMN IF NOT EXISTS weight NUMERIC(120, 0)');
  await q('UPDATE shares SET weight = div(work * $1::numeric + $2::numeric, $3::numeric) WHERE weight IS NULL', [
    (2n * powLimit * WEIGHT_SCALE).toString(),
    (1n << 256n).toString(),
    (1n << 257n).toString(),
  ]);
  await q('ALTER TABLE shares DROP COLUMN work');
  await q('ALTER TABLE shares ALTER COLUMN weight SET NOT NULL');
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

export interface PgOptions {
  /** The longest one statement may take, and connecting (ms): -dbtimeout. */
  readonly timeoutMs: number;
  /** Told each time a batch of shares is tried again, with why. */
  readonly onRetry?: (shares: number, e: unknown) => void;
  /** Told when connections whose last statement had an unknown outcome were settled (pg-session.ts). */
  readonly onSettled?: (backends: number) => void;
}

export class PgStore implements AccountingStore {
  private lockClient: pg.Client | null = null;
  /** Shares waiting for the next INSERT. */
  private queued: QueuedShare[] = [];
  /** The INSERTs running until the queue is empty; null when none runs. */
  private inserting: Promise<void> | null = null;
  private closing = false;

  private constructor(
    private readonly session: PgSession,
    private readonly powLimit: bigint,
    private readonly options: PgOptions,
  ) {}

  /** `powLimit` converts what was stored before share weights (work in hashes). */
  static async open(url: string, powLimit: bigint, options: PgOptions = { timeoutMs: 10_000 }): Promise<PgStore> {
    const session = new PgSession(url, options.timeoutMs, options.onSettled);
    // Two front-ends starting together both run the DDL: serialize them on a transaction lock.
    await session.run(async (q) => {
      await q('BEGIN');
      try {
        await q('SELECT pg_advisory_xact_lock($1)', [PAYOUT_LOCK_KEY + 1]);
        await q(SCHEMA);
        await migrateWorkToWeight(q, powLimit);
        await q('COMMIT');
      } catch (e) {
        await q('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
    return new PgStore(session, powLimit, options);
  }

  /**
   * Group commit, as the LMDB store does it: the shares that arrive while one INSERT runs go
   * together into the next, and each resolves once its statement has committed. A statement (and
   * its commit) per share held a busy pool to what a few connections' round trips allowed.
   */
  addShare(share: NewShare): Promise<number> {
    if (this.queued.length >= MAX_QUEUED_SHARES) return Promise.reject(new TransientError('the database is not answering: too many shares waiting'));
    return new Promise<number>((resolve, reject) => {
      this.queued.push({ share, resolve, reject });
      this.inserting ??= this.insertQueued();
    });
  }

  /**
   * A batch the database did not take for a passing reason (unreachable, stalled past the
   * timeout, restarting) is tried again, the same shares with the same hashes, until it is
   * stored: a lost answer may hide a commit, and refusing the miner a share that was in fact
   * stored is what this avoids. Only a failure of the statement itself, or one while closing,
   * refuses its shares.
   */
  private async insertQueued(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0, MAX_SHARE_BATCH);
      const retriable = batch.every((q) => q.share.hash !== undefined);
      for (let attempt = 0; ; attempt++) {
        try {
          const seqs = await this.insertShares(batch.map((q) => q.share));
          batch.forEach((q, i) => q.resolve(seqs[i]));
          break;
        } catch (e) {
          if (!retriable || !isTransient(e) || this.closing) {
            for (const q of batch) q.reject(e);
            break;
          }
          this.options.onRetry?.(batch.length, e);
          await new Promise((r) => setTimeout(r, Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** attempt)));
        }
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
  private insertShares(shares: readonly NewShare[]): Promise<number[]> {
    // The hash as block hashes are shown (byte-reversed), hex.
    const hexes = shares.map((s) => (s.hash ? Buffer.from(s.hash).reverse().toString('hex') : null));
    return this.session.run(async (q) => {
      try {
        await q('BEGIN');
        await q('SELECT pg_advisory_xact_lock($1)', [SHARES_LOCK_KEY]);
        const r = await q<{ seq: string; hash: string | null }>(INSERT_SHARES, [
          shares.map((s) => s.address),
          shares.map((s) => s.worker),
          shares.map((s) => s.weight.toString()),
          shares.map((s) => s.difficulty),
          shares.map((s) => s.solo),
          shares.map((s) => s.time),
          hexes,
        ]);
        // Ascending in the rows' order whatever order RETURNING lists them in.
        const inserted = r.rows.map((row) => Number(row.seq)).sort((a, b) => a - b);
        if (inserted.length === shares.length) {
          await q('COMMIT');
          return inserted;
        }
        // A retry: some were stored by the try whose answer was lost. Each share's own seq, by hash.
        const stored = await q<{ seq: string; hash: string }>(
          "SELECT seq, encode(hash, 'hex') AS hash FROM shares WHERE hash IN (SELECT decode(h, 'hex') FROM unnest($1::text[]) AS h)",
          [hexes],
        );
        await q('COMMIT');
        const seqOf = new Map(stored.rows.map((row) => [row.hash, Number(row.seq)]));
        return hexes.map((h) => seqOf.get(h!)!);
      } catch (e) {
        await q('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  async addBlock(block: BlockRecord): Promise<void> {
    await this.session.run((q) =>
      q('INSERT INTO blocks (hash, share_seq, record) VALUES ($1, $2, $3) ON CONFLICT (hash) DO NOTHING', [
        block.hash,
        block.shareSeq,
        encodeRecord(block),
      ]),
    );
  }

  private rows<R extends pg.QueryResultRow>(text: string, values?: unknown[]): Promise<R[]> {
    return this.session.run(async (q) => (await q<R>(text, values)).rows);
  }

  async *sharesDescending(fromSeq: number): AsyncIterable<StoredShare> {
    let start = fromSeq;
    for (;;) {
      const rows = await this.rows<ShareRow>(
        'SELECT seq, address, worker, weight, difficulty, solo, time FROM shares WHERE seq <= $1 ORDER BY seq DESC LIMIT $2',
        [start, PAGE],
      );
      for (const row of rows) yield shareFromRow(row);
      if (rows.length < PAGE) return;
      start = Number(rows[rows.length - 1].seq) - 1;
    }
  }

  async *sharesInRange(after: number, upTo: number): AsyncIterable<StoredShare> {
    let from = after;
    for (;;) {
      const rows = await this.rows<ShareRow>(
        'SELECT seq, address, worker, weight, difficulty, solo, time FROM shares WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3',
        [from, upTo, PAGE],
      );
      for (const row of rows) yield shareFromRow(row);
      if (rows.length < PAGE) return;
      from = Number(rows[rows.length - 1].seq);
    }
  }

  async blocks(): Promise<BlockRecord[]> {
    const rows = await this.rows<{ record: Json }>('SELECT record FROM blocks ORDER BY share_seq');
    return rows.map((row) => blockFromRecord(row.record, this.powLimit));
  }

  async balance(address: string): Promise<Balance> {
    const rows = await this.rows<{ immature: string; pending: string; paid: string }>(
      'SELECT immature, pending, paid FROM balances WHERE address = $1',
      [address],
    );
    return rows.length === 0 ? ZERO_BALANCE : balanceFromRow(rows[0]);
  }

  async balances(): Promise<Map<string, Balance>> {
    const rows = await this.rows<{ address: string; immature: string; pending: string; paid: string }>(
      'SELECT address, immature, pending, paid FROM balances',
    );
    return new Map(rows.map((row) => [row.address, balanceFromRow(row)]));
  }

  async payments(): Promise<PaymentRecord[]> {
    const rows = await this.rows<{ record: Json }>('SELECT record FROM payments ORDER BY id');
    return rows.map((row) => decodeRecord<PaymentRecord>(row.record));
  }

  async meta(key: string): Promise<string | null> {
    const rows = await this.rows<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key]);
    return rows[0]?.value ?? null;
  }

  /**
   * One step of the payout processor in one transaction. When its answer is lost the step's
   * outcome is settled (pg-session.ts) before the processor reads again: it then sees the step
   * done or not done, never one that commits behind its back, so a retried step cannot credit a
   * block or record a payment twice.
   */
  async apply(change: LedgerChange): Promise<void> {
    await this.session.run(async (q) => {
      try {
        await q('BEGIN');
        for (const d of change.balances ?? []) {
          // The row first (zeros), then the delta: a CHECK sees the inserted row before ON CONFLICT would merge it.
          await q('INSERT INTO balances (address) VALUES ($1) ON CONFLICT (address) DO NOTHING', [d.address]);
          await q('UPDATE balances SET immature = immature + $2, pending = pending + $3, paid = paid + $4 WHERE address = $1', [
            d.address,
            (d.immature ?? 0n).toString(),
            (d.pending ?? 0n).toString(),
            (d.paid ?? 0n).toString(),
          ]);
        }
        for (const b of change.blocks ?? []) {
          await q('INSERT INTO blocks (hash, share_seq, record) VALUES ($1, $2, $3) ON CONFLICT (hash) DO UPDATE SET record = EXCLUDED.record', [
            b.hash,
            b.shareSeq,
            encodeRecord(b),
          ]);
        }
        for (const p of change.payments ?? []) {
          await q('INSERT INTO payments (id, record) VALUES ($1, $2) ON CONFLICT (id) DO UPDATE SET record = EXCLUDED.record', [
            p.id,
            encodeRecord(p),
          ]);
        }
        for (const [k, v] of Object.entries(change.meta ?? {})) {
          await q('INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [k, v]);
        }
        await q('COMMIT');
      } catch (e) {
        await q('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  /** The advisory lock lives on a connection of its own: holding it means that connection is alive. */
  async acquirePayoutLock(): Promise<boolean> {
    if (this.lockClient) return true;
    const client = new pg.Client({ connectionString: this.session.url, ...this.session.clientOptions() });
    // A lost connection loses the lock: forget it, and try again at the next tick.
    client.on('error', () => {
      if (this.lockClient === client) this.lockClient = null;
    });
    try {
      await client.connect();
    } catch (e) {
      throw new TransientError(`cannot reach the database: ${(e as Error).message}`);
    }
    const r = await this.session.query<{ locked: boolean }>(client, 'SELECT pg_try_advisory_lock($1) AS locked', [PAYOUT_LOCK_KEY]);
    if (!r.rows[0].locked) {
      await client.end();
      return false;
    }
    client.on('end', () => {
      if (this.lockClient === client) this.lockClient = null;
    });
    this.lockClient = client;
    return true;
  }

  /** Waits for the queued shares (tried until the database takes them, or one last time once closing), then closes. */
  async close(): Promise<void> {
    this.closing = true;
    await this.inserting;
    await this.lockClient?.end().catch(() => undefined);
    await this.session.close();
  }
}
