/**
 * What the database records of a loaded UTXO snapshot (docs/snapshots.md): the snapshot itself and
 * how far its validation got, and the markers of the two steps that rewrite whole state tables,
 * so that a process killed in the middle of one finishes or undoes it at the next start.
 */
import type { ChainDatabase, Table } from '../storage/database.ts';

const SNAPSHOT_KEY = 'snapshot';
/** Set while a snapshot is written into the state tables; holds the base block's hash. */
const LOADING_KEY = 'snapshotload';
/** Set while the background chain state's tables replace the active ones (a snapshot found invalid). */
const FALLBACK_KEY = 'snapshotfallback';
/**
 * Records put per write transaction when a state table is filled: each commit writes its pages
 * and syncs, and a transaction's dirty pages are tracked in memory. Filling the million coins of
 * the bench snapshot in append mode took 0.70 s at 50,000, 0.85 s at 250,000 and 1.6 s in one
 * transaction (measured 2026-12-02, docs/snapshots.md "Benchmark").
 */
const BATCH_RECORDS = 50_000;

export type SnapshotState = 'validating' | 'valid' | 'invalid';

export interface SnapshotRecord {
  readonly baseHash: string;
  readonly baseHeight: number;
  /** The hash of the loaded state, which the trusted table listed. */
  readonly hash: string;
  readonly chainTxCount: number;
  readonly state: SnapshotState;
  /** The hash the background validation computed, once it finished; or why it failed. */
  readonly computed?: string;
  readonly failure?: string;
}

export class SnapshotMeta {
  constructor(private readonly db: ChainDatabase) {}

  read(): SnapshotRecord | null {
    const raw = this.db.getMeta(SNAPSHOT_KEY);
    return raw ? (JSON.parse(raw.toString('utf8')) as SnapshotRecord) : null;
  }

  /** Inside a write transaction. */
  put(record: SnapshotRecord): void {
    this.db.putMeta(SNAPSHOT_KEY, Buffer.from(JSON.stringify(record)));
  }

  get loading(): boolean {
    return this.db.getMeta(LOADING_KEY) !== undefined;
  }

  get fallingBack(): boolean {
    return this.db.getMeta(FALLBACK_KEY) !== undefined;
  }

  /** Inside a write transaction. */
  setLoading(on: boolean): void {
    if (on) this.db.putMeta(LOADING_KEY, Buffer.from('1'));
    else this.db.removeMeta(LOADING_KEY);
  }

  /** Inside a write transaction. */
  setFallingBack(on: boolean): void {
    if (on) this.db.putMeta(FALLBACK_KEY, Buffer.from('1'));
    else this.db.removeMeta(FALLBACK_KEY);
  }

  /** -reindex: forgets the snapshot and both markers; inside a write transaction. */
  remove(): void {
    for (const key of [SNAPSHOT_KEY, LOADING_KEY, FALLBACK_KEY]) this.db.removeMeta(key);
  }
}

/**
 * Empties `tables` in one write transaction (callers mark the step first, or inside `also`'s
 * transaction): one commit and its fsync instead of one per table.
 */
export function clearTables(db: ChainDatabase, tables: readonly Table[], also: () => void = () => {}): void {
  db.write(() => {
    also();
    for (const t of tables) t.clearSync();
  });
}

type AnyRecord = { readonly table: number; readonly key: Uint8Array; readonly value: Uint8Array };

/** Puts records into state tables (indexed by each record's table), BATCH_RECORDS per write transaction. */
class BatchPutter {
  private batch: AnyRecord[] = [];
  count = 0;

  constructor(
    private readonly db: ChainDatabase,
    private readonly tables: readonly Table[],
  ) {}

  /** Whether a batch was written (a moment to give the event loop a turn). */
  add(r: AnyRecord): boolean {
    // Copies: a range iterator may hand out the next record in the same memory.
    this.batch.push({ table: r.table, key: Buffer.from(r.key), value: Buffer.from(r.value) });
    if (this.batch.length < BATCH_RECORDS) return false;
    this.end();
    return true;
  }

  end(): number {
    const batch = this.batch;
    this.db.write(() => {
      for (const r of batch) this.tables[r.table].put(r.key as Buffer, r.value as Buffer);
    });
    this.count += batch.length;
    this.batch = [];
    return this.count;
  }
}

/** Puts `records` into `tables`, with `pause` between batches so that the event loop keeps turning. */
export async function fillTables(
  db: ChainDatabase,
  tables: readonly Table[],
  records: Iterable<AnyRecord>,
  pause: () => Promise<void>,
): Promise<number> {
  const putter = new BatchPutter(db, tables);
  for (const r of records) if (putter.add(r)) await pause();
  return putter.end();
}

/** fillTables in one go, for the steps of start-up and of a fallback, which nothing may interleave with. */
export function fillTablesNow(db: ChainDatabase, tables: readonly Table[], records: Iterable<AnyRecord>): number {
  const putter = new BatchPutter(db, tables);
  for (const r of records) putter.add(r);
  return putter.end();
}

/**
 * Puts the records of a snapshot file into emptied `tables` in LMDB's append mode, BATCH_RECORDS
 * per write transaction, with `pause` between them. The file holds each table's records in key
 * order, so each put goes to the end of the last page instead of searching the tree, and pages
 * fill up instead of splitting in half. The records are put as they come, not gathered first:
 * their bytes are views into the file's buffer, which outlives the load. Answers how many were
 * put; a record out of key order is refused by LMDB without a throw, so callers compare the
 * tables' counts with the file's.
 */
export async function appendRecords(
  db: ChainDatabase,
  tables: readonly Table[],
  records: Iterator<AnyRecord>,
  pause: () => Promise<void>,
): Promise<number> {
  let count = 0;
  for (let done = false; !done; ) {
    db.write(() => {
      for (let i = 0; i < BATCH_RECORDS; i++) {
        const next = records.next();
        if (next.done) {
          done = true;
          return;
        }
        const r = next.value;
        // Inside the transaction putSync is a put; its typing is the one that takes options.
        tables[r.table].putSync(r.key as Buffer, r.value as Buffer, APPEND);
        count++;
      }
    });
    if (!done) await pause();
  }
  return count;
}

const APPEND = { append: true };

/** Every record of `tables`, tagged with its table's position. */
export function* tableRecords(tables: readonly Table[]): Generator<{ table: number; key: Uint8Array; value: Uint8Array }> {
  for (let table = 0; table < tables.length; table++) {
    for (const { key, value } of tables[table].getRange({})) yield { table, key, value };
  }
}
