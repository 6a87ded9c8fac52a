/**
 * The node's OPoI state, derived from the active chain and kept in the chain's database beside the
 * UTXO set: requests, commits with their reveals, stakes, the collateral they lock, the
 * requests due at each height and the registered model manifests. A block's OPoI changes are computed on an overlay (BlockOverlay)
 * by the consensus rules and written in the same database transaction as the block, with an undo
 * record of every value they replaced, so disconnecting the block restores the state exactly.
 */
import { createHash } from 'node:crypto';
import {
  type AuditRecord,
  type Block,
  type CommitRecord,
  type ManifestRecord,
  type OpoiEvent,
  type OpoiParams,
  type OpoiState,
  Reader,
  type RequestRecord,
  type StakeRecord,
  type TxOut,
  Writer,
  applyOpoiBlock,
  compactSizeLength,
  decodeRecord,
  encodeRecord,
  hashFromHex,
} from '@cs/consensus';
import { type ChainDatabase, type Table, readLargeInto } from '../storage/database.ts';

/** Tables in the order of their ids in undo records (and in the state digest). */
const TABLE_NAMES = ['opoirequest', 'opoicommit', 'opoistake', 'opoicollateral', 'opoidue', 'opoimanifest', 'opoiaudit', 'opoiserver'] as const;
type TableId = 0 | 1 | 2 | 3 | 4 | 5 | 6 | 7;
const REQUEST: TableId = 0;
const COMMIT: TableId = 1;
const STAKE: TableId = 2;
const COLLATERAL: TableId = 3;
const DUE: TableId = 4;
const MANIFEST: TableId = 5;
const AUDIT: TableId = 6;
const SERVER: TableId = 7;
const hexKey = (hex: string) => Buffer.from(hex, 'hex');
/** A manifest's key: its model id's ASCII bytes (in hex, the form the overlay keys tables by). */
const manifestHex = (modelId: string) => Buffer.from(modelId, 'latin1').toString('hex');
/** A server entry's key prefix: the model id's length and bytes, so that no id's entries run into a longer id's. */
const serverPrefixHex = (modelId: string) => modelId.length.toString(16).padStart(2, '0') + manifestHex(modelId);
const EMPTY = Buffer.alloc(0);

/**
 * A height's due record: key the height (4 bytes, big-endian), value the ids of the requests due
 * there (16 bytes each, ascending). One record per height rather than one per request: a block of
 * new requests, all due at the same height, changes one record instead of one per request.
 */
const heightHex = (height: number) => height.toString(16).padStart(8, '0');

const ID_BYTES = 16;

function encodeDue(ids: Iterable<string>): Buffer | null {
  const sorted = [...ids].sort();
  if (sorted.length === 0) return null;
  const value = Buffer.allocUnsafe(sorted.length * ID_BYTES);
  sorted.forEach((id, i) => value.write(id, i * ID_BYTES, ID_BYTES, 'hex'));
  return value;
}

function decodeDue(value: Uint8Array | null): Set<string> {
  const ids = new Set<string>();
  if (value === null) return ids;
  const b = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
  for (let at = 0; at < b.length; at += ID_BYTES) ids.add(b.toString('hex', at, at + ID_BYTES));
  return ids;
}

function collateralKey(txid: Uint8Array, vout: number): Buffer {
  const key = Buffer.alloc(36);
  key.set(txid, 0);
  key.writeUInt32BE(vout, 32);
  return key;
}

function stakeCollateralKey(s: StakeRecord): Buffer {
  return collateralKey(hashFromHex(s.collateralTxid), s.collateralVout);
}

/** The first four bytes of a txid as a number: a cheap first test before a collateral lookup. */
const txidPrefix = (txid: Uint8Array) => (txid[0] | (txid[1] << 8) | (txid[2] << 16) | (txid[3] << 24)) >>> 0;

interface Write {
  readonly table: TableId;
  readonly key: Buffer;
  readonly value: Buffer | null;
  /** The stored value before the block, when the overlay already read it (saves a read for the undo record). */
  readonly before?: Uint8Array | null;
  /** The record `value` encodes, when the write came from one (kept decoded in the store's cache). */
  readonly record?: AnyRecord;
}

/** Tables whose values are records (decoded by decodeRecord), and so kept decoded in the store's cache. */
const RECORD_TABLES: ReadonlySet<TableId> = new Set([REQUEST, COMMIT, STAKE, MANIFEST, AUDIT]);
/** Records kept decoded per table; past it the table's cache starts over. */
const HOT_RECORDS = 16_384;

type AnyRecord = RequestRecord | CommitRecord | StakeRecord | ManifestRecord | AuditRecord;

/** A block's OPoI changes, ready to be written with the block. */
export interface OpoiBlockChanges {
  readonly events: readonly OpoiEvent[];
  /** The block changed no OPoI record: the next block reads the same state whether this one is written or not. */
  readonly empty: boolean;
  /** Puts the changes and their undo record; call inside the block's database transaction. */
  write(blockHash: Uint8Array): void;
}

export class OpoiStore {
  private readonly tables: readonly Table[];
  /** Collateral coin key (latin1) → miner key, mirrored from the collateral table. */
  private collateral = new Map<string, string>();
  private prefixes = new Set<number>();
  /**
   * Per record table: key (hex) → the stored bytes and their decoded record, for the keys read or
   * written lately. A block's steps mostly touch records that recent blocks wrote (a PUBLISH its
   * request, commit and stake; a verdict its audit), so writes fill it, as decoded records, and a
   * reorg's restores fill it with the values they put back. Only committed values go in: a failed
   * write transaction empties it (ChainDatabase.onWriteFailure).
   */
  private readonly hot: Map<string, Read>[] = TABLE_NAMES.map(() => new Map());
  /** Commit lists by request id, as stored: RPC and REST read the same few requests over and over. */
  private readonly commitsCache = new Map<string, CommitRecord[]>();
  /** Servers by model id, as stored: every VERIFIABLE request counts them. Cleared by any server write. */
  private readonly serversCache = new Map<string, readonly string[]>();

  constructor(
    private readonly db: ChainDatabase,
    readonly params: OpoiParams,
  ) {
    this.tables = TABLE_NAMES.map((name) => db.tables[name]);
    db.onWriteFailure(() => this.clearCaches());
    this.reload();
  }

  /** Rebuilds the in-memory collateral index from the table (start-up, after -reindex cleared it). */
  reload(): void {
    this.clearCaches();
    this.collateral = new Map();
    this.prefixes = new Set();
    for (const { key, value } of this.tables[COLLATERAL].getRange({})) this.indexCollateral(key, value.toString('hex'));
  }

  private clearCaches(): void {
    for (const m of this.hot) m.clear();
    this.commitsCache.clear();
    this.serversCache.clear();
  }

  /** A record table's value for a key, decoded, from the cache or the database. */
  read(table: TableId, hex: string): Read {
    let r = this.hot[table].get(hex);
    if (!r) {
      const stored = this.raw(table, hexKey(hex)) ?? null;
      r = { stored, record: stored === null ? null : decodeRecord<AnyRecord>(stored) };
      this.remember(table, hex, r);
    }
    return r;
  }

  /** The cached value for a key, if any (a range read takes what it can from here). */
  cached(table: TableId, hex: string): Read | undefined {
    return this.hot[table].get(hex);
  }

  private remember(table: TableId, hex: string, r: Read): void {
    const cache = this.hot[table];
    if (cache.size >= HOT_RECORDS) cache.clear();
    cache.set(hex, r);
  }

  private indexCollateral(key: Buffer, miner: string | null): void {
    const k = key.toString('latin1');
    if (miner === null) {
      this.collateral.delete(k);
      return;
    }
    this.collateral.set(k, miner);
    this.prefixes.add(txidPrefix(key));
  }

  /** A stored value in Node's buffer pool: cheaper for these small records than get(), which allocates a Buffer each. */
  raw(table: TableId, key: Buffer): Buffer | undefined {
    return readLargeInto(this.tables[table], key, Buffer.allocUnsafe);
  }

  *rawRange(table: TableId, prefix: Buffer): Generator<{ key: Buffer; value: Buffer }> {
    for (const { key, value } of this.tables[table].getRange({ start: prefix })) {
      if (key.length < prefix.length || !key.subarray(0, prefix.length).equals(prefix)) return;
      yield { key, value };
    }
  }

  // ---- confirmed state ----

  request(id: string): RequestRecord | undefined {
    return (this.read(REQUEST, id).record as RequestRecord | null) ?? undefined;
  }

  /** Keeps the caches small: a node serves the requests of the moment, not all of history. */
  private cacheEntry<V>(cache: Map<string, V>, id: string, value: V): void {
    if (cache.size >= 4096) cache.clear();
    cache.set(id, value);
  }

  *requests(): Generator<RequestRecord> {
    for (const { value } of this.tables[REQUEST].getRange({})) yield decodeRecord<RequestRecord>(value);
  }

  /** Shared with later callers: not to be changed. */
  commitsOf(id: string): readonly CommitRecord[] {
    let list = this.commitsCache.get(id);
    if (!list) {
      list = [...this.rawRange(COMMIT, hexKey(id))].map(({ value }) => decodeRecord<CommitRecord>(value));
      this.cacheEntry(this.commitsCache, id, list);
    }
    return list;
  }

  *commits(): Generator<CommitRecord> {
    for (const { value } of this.tables[COMMIT].getRange({})) yield decodeRecord<CommitRecord>(value);
  }

  stake(miner: string): StakeRecord | undefined {
    return (this.read(STAKE, miner).record as StakeRecord | null) ?? undefined;
  }

  *stakes(): Generator<StakeRecord> {
    for (const { value } of this.tables[STAKE].getRange({})) yield decodeRecord<StakeRecord>(value);
  }

  manifest(modelId: string): ManifestRecord | undefined {
    return (this.read(MANIFEST, manifestHex(modelId)).record as ManifestRecord | null) ?? undefined;
  }

  /** In model id order (the table's key order). */
  *manifests(): Generator<ManifestRecord> {
    for (const { value } of this.tables[MANIFEST].getRange({})) yield decodeRecord<ManifestRecord>(value);
  }

  audit(requestId: string): AuditRecord | undefined {
    return (this.read(AUDIT, requestId).record as AuditRecord | null) ?? undefined;
  }

  /** Miner keys of the stakes serving a manifest, in key order. Shared with later callers: not to be changed. */
  servers(modelId: string): readonly string[] {
    let list = this.serversCache.get(modelId);
    if (!list) {
      const prefix = hexKey(serverPrefixHex(modelId));
      list = [...this.rawRange(SERVER, prefix)].map(({ key }) => key.toString('hex', prefix.length));
      this.cacheEntry(this.serversCache, modelId, list);
    }
    return list;
  }

  collateralOwner(txid: Uint8Array, vout: number): string | undefined {
    if (!this.prefixes.has(txidPrefix(txid))) return undefined;
    return this.collateral.get(collateralKey(txid, vout).toString('latin1'));
  }

  /** An overlay on the confirmed state for a block (or a mempool check) to change. */
  overlay(): BlockOverlay {
    return new BlockOverlay(this);
  }

  /**
   * The OPoI rules over a block on the active tip; throws the rule's ValidationError. Records are
   * encoded and the undo record built here, while the script threads still verify the block, so
   * that the serial write after them only puts bytes.
   */
  connectBlock(block: Block, spent: readonly (readonly TxOut[])[], height: number, blockHash: Uint8Array): OpoiBlockChanges {
    const overlay = this.overlay();
    const events = applyOpoiBlock(overlay, block, spent, height, blockHash, this.params);
    const writes = overlay.changes();
    // Most blocks carry no OPoI step: they keep no undo record (disconnectBlock reads none as no change).
    if (writes.length === 0 && events.length === 0) return { events, empty: true, write: () => {} };
    const undo = this.undoRecord(writes, events);
    return {
      events,
      empty: false,
      write: (hash) => {
        for (const w of writes) this.apply(w);
        this.db.tables.opoiundo.put(Buffer.from(hash), undo);
      },
    };
  }

  /** What the writes replace (one entry per changed key), then the block's events (for the reverse announcements). */
  private undoRecord(writes: readonly Write[], events: readonly OpoiEvent[]): Buffer {
    const olds = writes.map((w) => (w.before !== undefined ? w.before : (this.raw(w.table, w.key) ?? null)));
    const eventBytes = Buffer.from(JSON.stringify(events));
    // Sized up front: the record copies every replaced value, a few hundred KB for a full block.
    let size = compactSizeLength(writes.length) + compactSizeLength(eventBytes.length) + eventBytes.length;
    writes.forEach((w, i) => {
      size += 2 + compactSizeLength(w.key.length) + w.key.length;
      const old = olds[i];
      if (old) size += compactSizeLength(old.length) + old.length;
    });
    const undo = new Writer(size).compactSize(writes.length);
    writes.forEach((w, i) => {
      const old = olds[i];
      undo
        .u8(w.table)
        .varBytes(w.key)
        .u8(old ? 1 : 0);
      if (old) undo.varBytes(old);
    });
    const bytes = undo.varBytes(eventBytes).finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  private apply(w: Write): void {
    if (w.value === null) this.tables[w.table].remove(w.key);
    else this.tables[w.table].put(w.key, w.value);
    if (RECORD_TABLES.has(w.table)) {
      const record = w.value === null ? null : (w.record ?? decodeRecord<AnyRecord>(w.value));
      this.remember(w.table, w.key.toString('hex'), { stored: w.value, record });
    }
    if (w.table === COMMIT) this.commitsCache.delete(w.key.subarray(0, 16).toString('hex'));
    if (w.table === COLLATERAL) this.indexCollateral(w.key, w.value === null ? null : w.value.toString('hex'));
    if (w.table === SERVER) this.serversCache.clear();
  }

  /**
   * Restores what the block changed (inside the block's disconnect transaction) and returns the
   * events its connection announced, for the reverse announcements. A block without an undo record
   * changed nothing (blocks without OPoI steps, and blocks connected before csd knew OPoI).
   */
  disconnectBlock(blockHash: Uint8Array): OpoiEvent[] {
    const raw = this.db.tables.opoiundo.get(Buffer.from(blockHash));
    if (!raw) return [];
    const r = new Reader(raw);
    const entries: Write[] = [];
    for (let n = r.compactSize(); n > 0; n--) {
      const table = r.u8() as TableId;
      const key = Buffer.from(r.varBytes());
      entries.push({ table, key, value: r.u8() ? Buffer.from(r.varBytes()) : null });
    }
    const events = JSON.parse(Buffer.from(r.varBytes()).toString('utf8')) as OpoiEvent[];
    // Each changed key appears once, with its value before the block; restored last change first.
    for (let i = entries.length - 1; i >= 0; i--) this.apply(entries[i]);
    this.db.tables.opoiundo.remove(Buffer.from(blockHash));
    return events;
  }

  /**
   * SHA-256 over every record of the derived state in table and key order: two nodes (or one node
   * before and after a reorg and back) hold the same OPoI state exactly when the digests agree.
   */
  digest(): string {
    const h = createHash('sha256');
    this.tables.forEach((table, id) => {
      for (const { key, value } of table.getRange({})) {
        const len = Buffer.alloc(9);
        len[0] = id;
        len.writeUInt32BE(key.length, 1);
        len.writeUInt32BE(value.length, 5);
        h.update(len).update(key).update(value);
      }
    });
    return h.digest('hex');
  }
}

/** A pending write: the record (request, commit, stake, manifest tables) or raw bytes; null deletes. */
type Pending = AnyRecord | Buffer | null;

/** What the store held for a key the overlay read: its bytes and the decoded record. */
interface Read {
  readonly stored: Uint8Array | null;
  readonly record: AnyRecord | null;
}

/**
 * Pending OPoI changes over the confirmed state, read through: the consensus rules' view of the
 * state in the middle of a block. Keys stay hex strings (the form the rules hold ids in) until the
 * changes are written, in one map per table; records are decoded once and encoded once, when the
 * changes are written; nothing reaches the database until the store writes changes().
 */
export class BlockOverlay implements OpoiState {
  /** Per table: key (hex) → the pending write. */
  private readonly writes: Map<string, Pending>[] = TABLE_NAMES.map(() => new Map());
  /** Per table: key (hex) → what the store held, for keys read so far. */
  private readonly reads: Map<string, Read>[] = TABLE_NAMES.map(() => new Map());
  /** Due ids by height, for the heights read so far; turned into writes by changes(). */
  private readonly dues = new Map<number, Set<string>>();
  private readonly changedDue = new Set<number>();

  constructor(private readonly store: OpoiStore) {}

  /** Request, commit, stake and manifest records by their hex key, decoded once per block. */
  private record<T extends AnyRecord>(table: TableId, hex: string): T | undefined {
    const w = this.writes[table].get(hex);
    if (w !== undefined) return (w ?? undefined) as T | undefined;
    let r = this.reads[table].get(hex);
    if (!r) {
      r = this.store.read(table, hex);
      this.reads[table].set(hex, r);
    }
    return (r.record ?? undefined) as T | undefined;
  }

  private set(table: TableId, hex: string, value: Pending): void {
    this.writes[table].set(hex, value);
  }

  /** The records under a prefix (request, commit, stake tables), this overlay's writes laid over the store's. */
  private range<T extends AnyRecord>(table: TableId, prefixHex: string): T[] {
    const merged = new Map<string, T | null>();
    const reads = this.reads[table];
    for (const { key, value } of this.store.rawRange(table, hexKey(prefixHex))) {
      const hex = key.toString('hex');
      let r = reads.get(hex);
      if (!r) reads.set(hex, (r = this.store.cached(table, hex) ?? { stored: value, record: decodeRecord<AnyRecord>(value) }));
      merged.set(hex, r.record as T);
    }
    for (const [hex, w] of this.writes[table]) if (hex.startsWith(prefixHex)) merged.set(hex, w as T | null);
    return [...merged.entries()]
      .filter((e): e is [string, T] => e[1] !== null)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, v]) => v);
  }

  changes(): Write[] {
    for (const height of this.changedDue) this.set(DUE, heightHex(height), encodeDue(this.dues.get(height)!));
    this.changedDue.clear();
    const out: Write[] = [];
    this.writes.forEach((writes, table) => {
      const reads = this.reads[table];
      for (const [hex, w] of writes) {
        const record = w === null || Buffer.isBuffer(w) ? undefined : w;
        out.push({
          table: table as TableId,
          key: hexKey(hex),
          value: record === undefined ? (w as Buffer | null) : encodeRecord(record),
          before: reads.get(hex)?.stored,
          record,
        });
      }
    });
    return out;
  }

  request(id: string): RequestRecord | undefined {
    return this.record<RequestRecord>(REQUEST, id);
  }

  putRequest(r: RequestRecord): void {
    this.set(REQUEST, r.id, r);
  }

  commit(requestId: string, miner: string): CommitRecord | undefined {
    return this.record<CommitRecord>(COMMIT, requestId + miner);
  }

  commitsOf(requestId: string): CommitRecord[] {
    return this.range<CommitRecord>(COMMIT, requestId);
  }

  putCommit(c: CommitRecord): void {
    this.set(COMMIT, c.requestId + c.miner, c);
  }

  stake(miner: string): StakeRecord | undefined {
    return this.record<StakeRecord>(STAKE, miner);
  }

  putStake(s: StakeRecord): void {
    // A stake's collateral and served manifests are fixed by its STAKE: indexed when it is made,
    // not again at every renew, unstake or audit lock.
    const made = this.stake(s.miner) === undefined;
    this.set(STAKE, s.miner, s);
    if (!made) return;
    this.set(COLLATERAL, stakeCollateralKey(s).toString('hex'), hexKey(s.miner));
    for (const id of s.serves) this.set(SERVER, serverPrefixHex(id) + s.miner, EMPTY);
  }

  deleteStake(miner: string): void {
    const s = this.stake(miner);
    if (!s) return;
    this.set(STAKE, miner, null);
    this.set(COLLATERAL, stakeCollateralKey(s).toString('hex'), null);
    for (const id of s.serves) this.set(SERVER, serverPrefixHex(id) + miner, null);
  }

  servers(modelId: string): readonly string[] {
    const writes = this.writes[SERVER];
    // Most blocks change no stake's served manifests: the stored list, as it is.
    if (writes.size === 0) return this.store.servers(modelId);
    const prefix = serverPrefixHex(modelId);
    const keys = new Set(this.store.servers(modelId));
    for (const [hex, w] of writes) {
      if (!hex.startsWith(prefix) || hex.length !== prefix.length + 42) continue;
      if (w === null) keys.delete(hex.slice(prefix.length));
      else keys.add(hex.slice(prefix.length));
    }
    return [...keys].sort();
  }

  audit(requestId: string): AuditRecord | undefined {
    return this.record<AuditRecord>(AUDIT, requestId);
  }

  putAudit(a: AuditRecord): void {
    this.set(AUDIT, a.requestId, a);
  }

  manifest(modelId: string): ManifestRecord | undefined {
    return this.record<ManifestRecord>(MANIFEST, manifestHex(modelId));
  }

  putManifest(m: ManifestRecord): void {
    this.set(MANIFEST, manifestHex(m.modelId), m);
  }

  collateralOwner(txid: Uint8Array, vout: number): string | undefined {
    // Most blocks change no collateral, and every input of a block asks.
    const writes = this.writes[COLLATERAL];
    if (writes.size > 0) {
      const w = writes.get(collateralKey(txid, vout).toString('hex'));
      if (w !== undefined) return (w as Buffer | null)?.toString('hex');
    }
    return this.store.collateralOwner(txid, vout);
  }

  /** The ids due at a height, as this overlay changed them; read from the store on first use. */
  private dueIds(height: number): Set<string> {
    let ids = this.dues.get(height);
    if (!ids) {
      const key = heightHex(height);
      const stored = this.store.raw(DUE, hexKey(key)) ?? null;
      this.reads[DUE].set(key, { stored, record: null });
      ids = decodeDue(stored);
      this.dues.set(height, ids);
    }
    return ids;
  }

  due(height: number): string[] {
    return [...this.dueIds(height)].sort();
  }

  addDue(height: number, requestId: string): void {
    this.dueIds(height).add(requestId);
    this.changedDue.add(height);
  }

  removeDue(height: number, requestId: string): void {
    if (this.dueIds(height).delete(requestId)) this.changedDue.add(height);
  }
}
