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
  /** txid → where the transaction sits in the active chain (indexes/tx-index.ts); marker `txindex`. */
  readonly txindex: Table;
  /** address key ‖ be32(height) ‖ be32(position) → txid: an address's confirmed history (indexes/address-store.ts). */
  readonly addrindex: Table;
  /** address key → confirmed totals received and sent and the count of transactions (indexes/address-store.ts). */
  readonly addrsummary: Table;
  /** block hash → what the address index added for that block, so it can be taken out again (indexes/address-store.ts); marker `addrindex`. */
  readonly addrundo: Table;
  /** The wallet's records, keyed by a one-byte record type (wallet/records.ts). Never derived from blocks. */
  readonly wallet: Table;
  /** OPoI request id (16 bytes) → request record (chain/opoi-store.ts). */
  readonly opoirequest: Table;
  /** request id ‖ miner actor (21 bytes) → commit record with its reveal. */
  readonly opoicommit: Table;
  /** miner actor → stake record. */
  readonly opoistake: Table;
  /** collateral coin key (as `coins`) → miner actor. */
  readonly opoicollateral: Table;
  /** be32(height) ‖ request id → nothing: requests that resolve or expire at the end of that block. */
  readonly opoidue: Table;
  /** model id (its ASCII bytes) → model manifest record. */
  readonly opoimanifest: Table;
  /** request id → the audit record of a published VERIFIABLE answer. */
  readonly opoiaudit: Table;
  /** length byte ‖ model id ‖ miner actor → nothing: the stakes that serve each manifest. */
  readonly opoiserver: Table;
  /** block hash → the OPoI records the block changed, as they were before, and its lifecycle events. */
  readonly opoiundo: Table;
  /** request id ‖ response hash → published response content. Not derived from blocks: kept across -reindex. */
  readonly opoicontent: Table;
}

export type Table = LmdbDatabase<Buffer, Buffer>;

/** Which chain state a database handle's state tables hold (chain/background-chainstate.ts). */
export type ChainstateRole = 'active' | 'background';

/**
 * The tables that make up one chain state, in the order a UTXO snapshot serializes them
 * (chain/snapshot-format.ts): the coins, then the OPoI state. A background chain state (history
 * validated from genesis under a loaded snapshot) keeps its own copy of these under a `bg` prefix;
 * blocks, their index, undo data and everything else are shared.
 */
export const STATE_TABLES = [
  'coins',
  'opoirequest',
  'opoicommit',
  'opoistake',
  'opoicollateral',
  'opoidue',
  'opoimanifest',
  'opoiaudit',
  'opoiserver',
] as const;
const BACKGROUND_PREFIX = 'bg';

/**
 * A large stored value (a block, its undo data) in a Buffer of its own. lmdb-js's get() returns
 * values over 32 KiB through a path that costs about 0.8 ms per MB (measured with 1 MB values:
 * 770 µs a read against 210 µs here); getBinaryFast hands out a view that stays valid only until
 * the next read, and is copied here once.
 */
export function readLarge(table: Table, key: Buffer): Buffer | undefined {
  return readLargeInto(table, key, Buffer.allocUnsafeSlow);
}

/** readLarge into a buffer of `length` bytes that `allocate` provides (from Node's pool for small values, say). */
export function readLargeInto(table: Table, key: Buffer, allocate: (length: number) => Buffer): Buffer | undefined {
  const view = table.getBinaryFast(key);
  if (view === undefined) return undefined;
  // The view's `length` is the value's; its buffer may extend past it (lmdb-js's shared buffer).
  const owned = allocate(view.length);
  owned.set(new Uint8Array(view.buffer, view.byteOffset, view.length));
  return owned;
}

/**
 * Bumped when a stored format changes; a mismatch refuses to start rather than misread data.
 * 2: OPoI records are binary (opoi/records.ts) instead of JSON, and the due table holds one record
 *    per height (the ids due there) instead of one per request.
 * 3: a request record holds its executor (after the requester), so a schema-2 record reads as damaged.
 * 4: model manifests (table opoimanifest), and a stake record holds the manifests it serves.
 * 5: verifiable requests: audit records (opoiaudit), the stakes serving each manifest (opoiserver),
 *    and request and stake records with their audit fields.
 */
export const SCHEMA_VERSION = 5;

/** Earlier schemas that differ only in tables -reindex rebuilds: -reindex upgrades them in place. */
const REBUILDABLE_SCHEMAS: readonly number[] = [1, 2, 3, 4];

/** Meta keys holding the hash of the last block each optional index covers (indexes/sync.ts). */
export const TX_INDEX_MARKER = 'txindex';
export const ADDRESS_INDEX_MARKER = 'addrindex';

export class ChainDatabase {
  readonly tables: Tables;
  private readonly writeFailureHandlers: (() => void)[] = [];

  private backgroundView: ChainDatabase | null = null;

  private constructor(
    private readonly root: RootDatabase<Buffer, Buffer>,
    readonly path: string,
    readonly role: ChainstateRole = 'active',
  ) {
    const own = (name: string) => role === 'background' && (STATE_TABLES as readonly string[]).includes(name);
    const table = (name: string): Table =>
      root.openDB<Buffer, Buffer>({ name: own(name) ? BACKGROUND_PREFIX + name : name, keyEncoding: 'binary', encoding: 'binary' });
    this.tables = {
      index: table('index'),
      blocks: table('blocks'),
      undo: table('undo'),
      coins: table('coins'),
      meta: table('meta'),
      txindex: table('txindex'),
      addrindex: table('addrindex'),
      addrsummary: table('addrsummary'),
      addrundo: table('addrundo'),
      wallet: table('wallet'),
      opoirequest: table('opoirequest'),
      opoicommit: table('opoicommit'),
      opoistake: table('opoistake'),
      opoicollateral: table('opoicollateral'),
      opoidue: table('opoidue'),
      opoimanifest: table('opoimanifest'),
      opoiaudit: table('opoiaudit'),
      opoiserver: table('opoiserver'),
      opoiundo: table('opoiundo'),
      opoicontent: table('opoicontent'),
    };
  }

  /**
   * `reindex`: the caller rebuilds the derived tables (-reindex), so a rebuildable older schema is
   * accepted; so it is while an interrupted reindex is pending, which the node resumes at start.
   */
  static open(path: string, opts: { reindex?: boolean } = {}): ChainDatabase {
    const db = ChainDatabase.attach(path);
    db.checkSchema(opts.reindex ?? false);
    return db;
  }

  /**
   * The database at `path` without the schema check: for a worker thread of the process that
   * opened it (lmdb-js shares one environment between the threads of a process).
   */
  static attach(path: string, role: ChainstateRole = 'active'): ChainDatabase {
    // Committed transactions survive a killed process (the OS keeps the pages); `noSync: false`
    // keeps them across power loss too, at the cost of an fsync per block.
    const db = new ChainDatabase(open<Buffer, Buffer>({ path, maxDbs: 32, keyEncoding: 'binary', encoding: 'binary', compression: false }), path);
    return role === 'background' ? db.background() : db;
  }

  /**
   * The same environment with the background chain state's tables in place of the state tables
   * and its own meta keys (prefixed), for the chain code that runs over it unchanged.
   */
  background(): ChainDatabase {
    if (this.role === 'background') return this;
    this.backgroundView ??= new ChainDatabase(this.root, this.path, 'background');
    return this.backgroundView;
  }

  /** This handle's state tables, in STATE_TABLES order. */
  stateTables(): Table[] {
    return STATE_TABLES.map((name) => this.tables[name]);
  }

  private checkSchema(reindex: boolean): void {
    const stored = this.getMeta('schema');
    if (!stored) {
      this.write(() => this.putMeta('schema', Buffer.from(String(SCHEMA_VERSION))));
      return;
    }
    const version = Number(stored.toString());
    if (version === SCHEMA_VERSION) return;
    if (!REBUILDABLE_SCHEMAS.includes(version)) {
      throw new Error(`database ${this.path} has schema ${stored.toString()}, which this csd (schema ${SCHEMA_VERSION}) cannot read or upgrade`);
    }
    // clearDerived() writes the new version once the old derived tables are gone.
    const rebuilding = reindex || this.getMeta('reindex') !== undefined;
    if (!rebuilding)
      throw new Error(`database ${this.path} has schema ${version}, this csd expects ${SCHEMA_VERSION}; start once with -reindex to upgrade it`);
  }

  /** Runs `fn` as one atomic write transaction: all of its puts and removes land, or none do. */
  write<T>(fn: () => T): T {
    try {
      return this.root.transactionSync(fn);
    } catch (e) {
      for (const f of this.writeFailureHandlers) f();
      throw e;
    }
  }

  /**
   * Calls `f` whenever a write transaction fails and is rolled back: a cache that took values
   * while the transaction ran must drop them, since none of them landed.
   */
  onWriteFailure(f: () => void): void {
    this.writeFailureHandlers.push(f);
  }

  /** Makes the next read see what another thread committed (reads otherwise keep one snapshot per turn). */
  resetReadTxn(): void {
    this.root.resetReadTxn();
  }

  getMeta(key: string): Buffer | undefined {
    return this.tables.meta.get(this.metaKey(key));
  }

  putMeta(key: string, value: Buffer): void {
    this.tables.meta.put(this.metaKey(key), value);
  }

  removeMeta(key: string): void {
    this.tables.meta.remove(this.metaKey(key));
  }

  private metaKey(key: string): Buffer {
    return Buffer.from(this.role === 'background' ? `${BACKGROUND_PREFIX}.${key}` : key);
  }

  /**
   * Drops everything derived from blocks (for -reindex); the stored blocks themselves stay. The
   * `reindex` marker is set first and cleared by the caller when the rebuild completes, so an
   * interrupted reindex resumes at the next start. The optional indexes are dropped too and
   * rebuild in the background afterwards, as Core's -reindex rebuilds its active indexes.
   */
  clearDerived(): void {
    this.write(() => this.putMeta('reindex', Buffer.from('1')));
    const t = this.tables;
    const derived = [t.index, t.undo, t.coins, t.txindex, t.addrindex, t.addrsummary, t.addrundo];
    const opoi = [t.opoirequest, t.opoicommit, t.opoistake, t.opoicollateral, t.opoidue, t.opoimanifest, t.opoiaudit, t.opoiserver, t.opoiundo];
    for (const table of [...derived, ...opoi]) table.clearSync();
    this.write(() => {
      for (const key of ['tip', TX_INDEX_MARKER, ADDRESS_INDEX_MARKER]) t.meta.remove(Buffer.from(key));
      this.putMeta('schema', Buffer.from(String(SCHEMA_VERSION)));
    });
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
