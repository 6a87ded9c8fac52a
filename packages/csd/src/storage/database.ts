import { open, type Database as LmdbDatabase, type RootDatabase } from 'lmdb';

/** The node's embedded database: one LMDB environment, one named table per kind of record. */
export interface Tables {
  /** block hash → block index record (chain/block-index.ts). */
  readonly index: Table;
  /** block hash → raw block. */
  readonly blocks: Table;
  /** block hash → undo data of the block's connection (chain/undo.ts). */
  readonly undo: Table;
  /** txid ‖ be32(vout) → coin (chain/coins.ts). */
  readonly coins: Table;
  /** small named values: the tip, the schema version, index markers. */
  readonly meta: Table;
}

export type Table = LmdbDatabase<Buffer, Buffer>;

/** Bumped when a stored format changes; a mismatch refuses to start rather than misread data. */
export const SCHEMA_VERSION = 1;

export class ChainDatabase {
  readonly tables: Tables;

  private constructor(
    private readonly root: RootDatabase<Buffer, Buffer>,
    readonly path: string,
  ) {
    const table = (name: string): Table => root.openDB<Buffer, Buffer>({ name, keyEncoding: 'binary', encoding: 'binary' });
    this.tables = {
      index: table('index'),
      blocks: table('blocks'),
      undo: table('undo'),
      coins: table('coins'),
      meta: table('meta'),
    };
  }

  static open(path: string): ChainDatabase {
    // Committed transactions survive a killed process (the OS keeps the pages); `noSync: false`
    // keeps them across power loss too, at the cost of an fsync per block.
    const root = open<Buffer, Buffer>({ path, maxDbs: 32, keyEncoding: 'binary', encoding: 'binary', compression: false });
    const db = new ChainDatabase(root, path);
    db.checkSchema();
    return db;
  }

  private checkSchema(): void {
    const stored = this.getMeta('schema');
    if (!stored) {
      this.write(() => this.putMeta('schema', Buffer.from(String(SCHEMA_VERSION))));
      return;
    }
    if (Number(stored.toString()) !== SCHEMA_VERSION) {
      throw new Error(`database ${this.path} has schema ${stored.toString()}, this csd expects ${SCHEMA_VERSION}; run with -reindex`);
    }
  }

  /** Runs `fn` as one atomic write transaction: all of its puts and removes land, or none do. */
  write<T>(fn: () => T): T {
    return this.root.transactionSync(fn);
  }

  getMeta(key: string): Buffer | undefined {
    return this.tables.meta.get(Buffer.from(key));
  }

  putMeta(key: string, value: Buffer): void {
    this.tables.meta.put(Buffer.from(key), value);
  }

  /**
   * Drops everything derived from blocks (for -reindex); the stored blocks themselves stay. The
   * `reindex` marker is set first and cleared by the caller when the rebuild completes, so an
   * interrupted reindex resumes at the next start.
   */
  clearDerived(): void {
    this.write(() => this.putMeta('reindex', Buffer.from('1')));
    for (const t of [this.tables.index, this.tables.undo, this.tables.coins]) t.clearSync();
    this.write(() => this.tables.meta.remove(Buffer.from('tip')));
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
