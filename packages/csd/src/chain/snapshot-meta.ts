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
/** Records put per write transaction when a state table is filled. */
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

/** Empties `tables` (each in a transaction of its own; callers mark the step first). */
export function clearTables(tables: readonly Table[]): void {
  for (const t of tables) t.clearSync();
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

/** Every record of `tables`, tagged with its table's position. */
export function* tableRecords(tables: readonly Table[]): Generator<{ table: number; key: Uint8Array; value: Uint8Array }> {
  for (let table = 0; table < tables.length; table++) {
    for (const { key, value } of tables[table].getRange({})) yield { table, key, value };
  }
}
