/**
 * UTXO snapshots (Core's assumeutxo, docs/snapshots.md): dumping the chain state at a block,
 * loading a trusted one into a fresh node so that it is usable at the snapshot's base once its
 * headers reach it, validating the history below the base in a background chain state, and
 * settling the snapshot once that is done: kept when the hashes agree, dropped for the validated
 * chain when they do not.
 */
import { rename } from 'node:fs/promises';
import type { Logger } from 'pino';
import { type AssumeutxoEntry, type ChainParams, type ValidationError, hashToHex } from '@cs/consensus';
import type { ChainDatabase } from '../storage/database.ts';
import type { ActiveChain } from './active-chain.ts';
import { BackgroundChainstate } from './background-chainstate.ts';
import type { BlockIndexEntry } from './block-index.ts';
import type { BlockStore } from './block-store.ts';
import type { BlockTree } from './block-tree.ts';
import type { OpoiStore } from './opoi-store.ts';
import type { ScriptVerifier } from './script-verifier.ts';
import { type SnapshotHeader, readSnapshot, writeSnapshot } from './snapshot-format.ts';
import { SnapshotMeta, type SnapshotRecord, appendRecords, clearTables, fillTables, fillTablesNow, tableRecords } from './snapshot-meta.ts';
import type { UtxoSet } from './utxo-set.ts';

const PROGRESS_LOG_MS = 5000;
/** How long the background validation runs before giving the event loop a turn. */
const YIELD_MS = 20;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A snapshot refused, or a dump that cannot be made: the RPC layer answers it with its message. */
export class SnapshotError extends Error {
  override readonly name = 'SnapshotError';
}

/** What the chain hands the snapshot code of its own parts. */
export interface ChainParts {
  readonly db: ChainDatabase;
  readonly params: ChainParams;
  readonly trusted: readonly AssumeutxoEntry[];
  readonly verifier: ScriptVerifier;
  readonly log: Logger;
  readonly coinsCacheBytes?: number;
  readonly tree: BlockTree;
  readonly active: ActiveChain;
  readonly store: BlockStore;
  readonly utxo: UtxoSet;
  readonly opoi: OpoiStore;
  enqueue<T>(fn: () => Promise<T>): Promise<T>;
  disconnectTip(): void;
  activateBestChain(): Promise<void>;
  markFailed(entry: BlockIndexEntry, err: ValidationError): void;
  emitTip(): void;
}

/** One chain state as getchainstates reports it. */
export interface ChainstateInfo {
  readonly tip: BlockIndexEntry;
  readonly snapshotBase: BlockIndexEntry | null;
  readonly cacheBytes: number;
  readonly validated: boolean;
}

export interface DumpResult {
  readonly header: SnapshotHeader;
  readonly hash: string;
  readonly path: string;
}

export class Snapshots {
  private readonly meta: SnapshotMeta;
  private record: SnapshotRecord | null = null;
  private background: BackgroundChainstate | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private wake: (() => void) | null = null;
  /** The base of a snapshot loadtxoutset is about to load: blocks up to it are only stored meanwhile. */
  private pendingBase: BlockIndexEntry | null = null;

  constructor(private readonly c: ChainParts) {
    this.meta = new SnapshotMeta(c.db);
  }

  /** The snapshots loadtxoutset accepts. */
  get trusted(): readonly AssumeutxoEntry[] {
    return this.c.trusted;
  }

  /** The loaded snapshot, if any, and how its validation went. */
  get current(): SnapshotRecord | null {
    return this.record;
  }

  /** The lowest height the active chain can be rewound to: below an unvalidated snapshot's base there is no undo data. */
  get floor(): number {
    return this.record?.state === 'validating' ? this.record.baseHeight : 0;
  }

  /** What getblockchaininfo warns about. */
  get warnings(): string[] {
    const r = this.record;
    if (r?.state !== 'invalid') return [];
    return [
      `The UTXO snapshot at height ${r.baseHeight} (${r.baseHash}) failed background validation (${r.failure ?? `its hash ${r.hash}, the validated ${r.computed}`}); the node fell back to the fully validated chain.`,
    ];
  }

  /** The background chain state's blocks still to fetch: from its tip up to the base. */
  get download(): { readonly from: BlockIndexEntry; readonly target: BlockIndexEntry } | null {
    const bg = this.background;
    return bg && !bg.done ? { from: bg.tip, target: bg.target } : null;
  }

  /** The chain states, fully validated first (getchainstates). */
  chainstates(): ChainstateInfo[] {
    const active = { tip: this.c.active.tip, cacheBytes: this.c.utxo.cacheUsage.bytes };
    const r = this.record;
    const base = r && r.state !== 'invalid' ? (this.c.tree.get(r.baseHash) ?? null) : null;
    const bg = this.background;
    const states: ChainstateInfo[] = [];
    if (bg) states.push({ tip: bg.tip, snapshotBase: null, cacheBytes: bg.cacheBytes, validated: true });
    states.push({ ...active, snapshotBase: base, validated: r?.state !== 'validating' });
    return states;
  }

  /**
   * At load, once the block tree is read and before the stored tip is: finishes or undoes a step
   * a crash interrupted.
   */
  recover(): void {
    const bgTables = this.c.db.background().stateTables();
    if (this.meta.loading) {
      this.c.log.warn('a UTXO snapshot load was interrupted: going back to the chain state before it');
      this.undoLoad();
    }
    if (this.meta.fallingBack) this.replaceActiveState();
    this.record = this.meta.read();
    const unsettled =
      this.c.db.background().getMeta('tip') !== undefined || bgTables.some((t) => (t.getStats() as { entryCount: number }).entryCount > 0);
    // A settled snapshot whose background tables were not yet dropped when the process ended.
    if (this.record?.state !== 'validating' && unsettled) this.dropBackgroundTables();
  }

  /** The state before a load waits in the background tables, at the tip still stored: it comes back. */
  private undoLoad(): void {
    clearTables(this.c.db, this.c.db.stateTables());
    fillTablesNow(this.c.db, this.c.db.stateTables(), tableRecords(this.c.db.background().stateTables()));
    this.c.db.write(() => this.meta.setLoading(false));
    this.dropBackgroundTables();
  }

  /** At load, once the tip is set: an unvalidated snapshot's base is linked, so that the blocks after it can connect. */
  linkBase(): void {
    if (this.record?.state !== 'validating') return;
    const base = this.c.tree.get(this.record.baseHash);
    if (!base) throw new Error(`the UTXO snapshot's base block ${this.record.baseHash} is missing from the block index; run with -reindex`);
    this.c.tree.linkSnapshotBase(base);
  }

  /** Once the chain is loaded: the background validation resumes. */
  start(): void {
    const r = this.record;
    if (r?.state !== 'validating') return;
    const target = this.c.tree.get(r.baseHash)!;
    const bg = new BackgroundChainstate({
      db: this.c.db,
      params: this.c.params,
      verifier: this.c.verifier,
      log: this.c.log,
      coinsCacheBytes: this.c.coinsCacheBytes,
      target,
    });
    bg.resume((hashHex) => this.c.tree.get(hashHex));
    this.background = bg;
    this.c.log.info({ from: bg.tip.height, to: target.height }, 'background validation of the UTXO snapshot resumes');
    this.run(bg);
  }

  /**
   * Whether a block just stored waits instead of connecting: one below the base of a snapshot
   * about to load. A syncing node queues blocks faster than it connects them, and connecting them
   * would only delay the load (and grow the state it copies aside); the background chain state
   * validates them afterwards.
   */
  defers(entry: BlockIndexEntry): boolean {
    const base = this.pendingBase;
    return base !== null && entry.height <= base.height && base.ancestor(entry.height) === entry;
  }

  /** A block was stored: the background validation may be waiting for it. */
  blockStored(): void {
    this.wake?.();
  }

  /**
   * loadtxoutset: checks the file against the trusted table and the header chain, then writes its
   * state in place of the active one (which the background chain state keeps, to go on from)
   * and moves the tip to the base.
   */
  async load(path: string): Promise<{ header: SnapshotHeader; base: BlockIndexEntry }> {
    if (this.record?.state === 'validating') throw new SnapshotError("Can't activate a snapshot-based chainstate more than once");
    let file: Awaited<ReturnType<typeof readSnapshot>>;
    try {
      file = await readSnapshot(path, (h) => this.checkHeader(h));
    } catch (e) {
      // checkHeader may have stopped blocks from connecting while the rest was read.
      await this.stopDeferring();
      if (e instanceof SnapshotError) throw e;
      throw new SnapshotError(`Couldn't read snapshot file ${path}: ${(e as Error).message}`);
    }
    const h = file.header;
    const trusted = this.c.trusted.find((t) => t.height === h.baseHeight && t.blockHash === h.baseHash)!;
    if (file.hash !== trusted.hash) {
      await this.stopDeferring();
      throw new SnapshotError(`Bad snapshot content hash: expected ${trusted.hash}, got ${file.hash}.`);
    }
    try {
      return await this.c.enqueue(() => this.loadNow(file, h));
    } finally {
      await this.stopDeferring();
    }
  }

  /** Blocks connect again; those stored meanwhile connect now unless a snapshot was loaded over them. */
  private async stopDeferring(): Promise<void> {
    if (!this.pendingBase) return;
    this.pendingBase = null;
    if (!this.background) await this.c.enqueue(() => this.c.activateBestChain());
  }

  /** A snapshot's header, before its content is read: its network and a trusted base, which blocks stop connecting for. */
  private checkHeader(h: SnapshotHeader): void {
    if (h.genesis !== this.c.params.genesis.header.hashHex) throw new SnapshotError(`the snapshot is of another network (genesis ${h.genesis})`);
    const trusted = this.c.trusted.find((t) => t.height === h.baseHeight && t.blockHash === h.baseHash);
    if (!trusted) {
      const heights = this.c.trusted.map((t) => t.height).join(', ');
      throw new SnapshotError(
        `assumeutxo block hash in snapshot metadata not recognized (hash: ${h.baseHash}, height: ${h.baseHeight}). The following snapshot heights are available: ${heights}.`,
      );
    }
    const known = this.c.tree.get(h.baseHash);
    if (known && !known.isFailed() && !this.pendingBase) this.pendingBase = known;
  }

  private async loadNow(
    file: Awaited<ReturnType<typeof readSnapshot>>,
    h: SnapshotHeader,
  ): Promise<{ header: SnapshotHeader; base: BlockIndexEntry }> {
    const base = this.c.tree.get(h.baseHash);
    if (!base || base.height !== h.baseHeight) {
      throw new SnapshotError(
        `The base block header (${h.baseHash}) must appear in the headers chain. Make sure all headers are syncing, and call loadtxoutset again.`,
      );
    }
    if (base.isFailed()) throw new SnapshotError(`The base block header (${h.baseHash}) is part of an invalid chain.`);
    const tip = this.c.active.tip;
    if (tip.height >= base.height)
      throw new SnapshotError(
        `A forked headers-chain with more work than the chain with the snapshot base block header exists, or the chain is already at height ${tip.height}.`,
      );
    if (base.ancestor(tip.height) !== tip)
      throw new SnapshotError('The active chain is not an ancestor of the snapshot base block: invalidate its blocks first.');
    await this.write(file, base, tip);
    return { header: h, base };
  }

  private async write(file: Awaited<ReturnType<typeof readSnapshot>>, base: BlockIndexEntry, tip: BlockIndexEntry): Promise<void> {
    const { c } = this;
    const started = performance.now();
    c.utxo.flush(tip);
    // The state so far becomes the background chain state's starting point.
    this.dropBackgroundTables();
    const bg = c.db.background();
    await fillTables(c.db, bg.stateTables(), tableRecords(c.db.stateTables()), nextTurn);
    const h = file.header;
    c.log.info({ coins: h.coins, height: base.height, hash: base.hashHex }, 'loading a UTXO snapshot');
    // The marker and the emptied tables commit together: a crash sees either neither or both.
    clearTables(c.db, c.db.stateTables(), () => {
      bg.putMeta('tip', Buffer.from(tip.hash));
      bg.putMeta('coins', Buffer.from(tip.hash));
      this.meta.setLoading(true);
    });
    try {
      await appendRecords(c.db, c.db.stateTables(), file.records(), nextTurn);
      this.checkCounts(h);
    } catch (e) {
      this.undoLoad();
      throw new SnapshotError(`the snapshot could not be written: ${(e as Error).message}`);
    }
    const record: SnapshotRecord = {
      baseHash: base.hashHex,
      baseHeight: base.height,
      hash: file.hash,
      chainTxCount: h.chainTxCount,
      state: 'validating',
    };
    c.db.write(() => {
      c.utxo.markStoredAt(base);
      c.store.putTip(base);
      this.meta.put(record);
      this.meta.setLoading(false);
    });
    this.record = record;
    c.opoi.reload();
    c.tree.linkSnapshotBase(base);
    c.active.setTip(base);
    c.log.info(
      { coins: h.coins, height: base.height, hash: base.hashHex, seconds: Math.round(performance.now() - started) / 1000 },
      'UTXO snapshot loaded',
    );
    c.emitTip();
    this.start();
    await c.activateBestChain();
  }

  /**
   * The loaded tables hold as many records as the file's header says: append mode skips a record
   * out of key order (or a repeated key) instead of throwing.
   */
  private checkCounts(h: SnapshotHeader): void {
    const counts = this.c.db.stateTables().map((t) => (t.getStats() as { entryCount: number }).entryCount);
    const records = counts.reduce((a, b) => a + b, 0);
    if (counts[0] !== h.coins || records !== h.records)
      throw new Error(
        `${counts[0]} coins in ${records} records were stored, the file holds ${h.coins} in ${h.records}: its records are out of key order`,
      );
  }

  /** dumptxoutset: the active state at the tip, written to `path` (through `path`.incomplete). */
  dump(path: string): Promise<DumpResult> {
    return this.c.enqueue(async () => {
      const tip = this.c.active.tip;
      this.c.utxo.flush(tip);
      const incomplete = `${path}.incomplete`;
      const header = {
        genesis: this.c.params.genesis.header.hashHex,
        baseHash: tip.hashHex,
        baseHeight: tip.height,
        chainTxCount: this.chainTxCount(tip),
      };
      const written = await writeSnapshot(incomplete, header, this.c.db.stateTables(), nextTurn);
      await rename(incomplete, path);
      this.c.log.info({ coins: written.header.coins, height: tip.height, hash: written.hash, path }, 'UTXO snapshot written');
      return { ...written, path };
    });
  }

  /** Transactions in the chain up to `e`: counted from the blocks, or from a snapshot's base. */
  private chainTxCount(e: BlockIndexEntry): number {
    const r = this.record;
    let count = 0;
    for (let at: BlockIndexEntry | null = e; at; at = at.prev) {
      if (r && r.state !== 'invalid' && at.hashHex === r.baseHash && at.txCount === 0) return count + r.chainTxCount;
      count += at.txCount;
    }
    return count;
  }

  /** Connects the background chain state's blocks as they arrive, one per turn of the chain's queue. */
  private run(bg: BackgroundChainstate): void {
    const log = this.c.log;
    this.loop = (async () => {
      let lastLog = Date.now();
      let lastYield = performance.now();
      while (!this.stopped) {
        const step = await this.c.enqueue(async () => (this.stopped ? 'waiting' : bg.done ? this.settle(bg) : bg.connectNext()));
        if (step === 'done') return;
        if (step === 'waiting') {
          if (this.stopped) return;
          await new Promise<void>((resolve) => {
            this.wake = resolve;
          });
          this.wake = null;
        } else if (step !== 'connected') {
          await this.c.enqueue(() => this.fallBack(bg, step.failed, step.error));
          return;
        }
        if (performance.now() - lastYield > YIELD_MS) {
          await nextTurn();
          lastYield = performance.now();
        }
        if (Date.now() - lastLog > PROGRESS_LOG_MS) {
          lastLog = Date.now();
          log.info({ height: bg.tip.height, of: bg.target.height }, 'background validation of the UTXO snapshot');
        }
      }
    })().catch((err) => log.error({ err }, 'background validation of the UTXO snapshot stopped'));
  }

  /** The background chain state reached the base: compare the hashes. */
  private async settle(bg: BackgroundChainstate): Promise<'done'> {
    const computed = bg.hash();
    const r = this.record!;
    if (computed !== r.hash) {
      this.c.log.error({ height: r.baseHeight, snapshot: r.hash, computed }, 'UTXO snapshot hash mismatch: the snapshot is invalid');
      await this.fallBack(bg, null, null, computed);
      return 'done';
    }
    const record: SnapshotRecord = { ...r, state: 'valid', computed };
    this.c.db.write(() => this.meta.put(record));
    this.record = record;
    await bg.close();
    this.background = null;
    this.dropBackgroundTables();
    this.c.tree.considerAll();
    this.c.log.info({ height: r.baseHeight, hash: computed }, 'background validation complete: the UTXO snapshot is valid');
    return 'done';
  }

  /**
   * The snapshot is invalid (its hash differs from the validated state's, or a block below its
   * base is invalid): the active chain goes back to the base, the validated state replaces the
   * snapshot's, and the blocks after the base connect again on top of it.
   */
  private async fallBack(bg: BackgroundChainstate, failed: BlockIndexEntry | null, error: ValidationError | null, computed?: string): Promise<void> {
    const { c } = this;
    const r = this.record!;
    if (failed && error)
      c.log.error(
        { height: failed.height, hash: failed.hashHex, reason: error.reason },
        'a block below the UTXO snapshot base is invalid: the snapshot is invalid',
      );
    while (c.active.tip.height > r.baseHeight) c.disconnectTip();
    bg.hash();
    await bg.close();
    this.background = null;
    const failure = failed && error ? `block ${failed.hashHex} at height ${failed.height} is invalid: ${error.reason}` : undefined;
    const record: SnapshotRecord = { ...r, state: 'invalid', ...(computed ? { computed } : {}), ...(failure ? { failure } : {}) };
    c.db.write(() => {
      this.meta.put(record);
      this.meta.setFallingBack(true);
    });
    const tip = c.tree.get(hashToHex(this.replaceActiveState()))!;
    this.record = record;
    c.opoi.reload();
    c.active.setTip(tip);
    if (failed && error) c.markFailed(failed, error);
    c.tree.considerAll();
    c.log.warn({ height: tip.height, hash: tip.hashHex }, 'fell back to the fully validated chain');
    c.emitTip();
    await c.activateBestChain();
  }

  /** The background tables become the active state, at the background tip (answered); then they are dropped. */
  private replaceActiveState(): Buffer {
    const { c } = this;
    const bg = c.db.background();
    const at = bg.getMeta('tip')!;
    clearTables(c.db, c.db.stateTables());
    fillTablesNow(c.db, c.db.stateTables(), tableRecords(bg.stateTables()));
    c.db.write(() => {
      c.db.putMeta('coins', at);
      c.db.putMeta('tip', at);
      this.meta.setFallingBack(false);
    });
    this.dropBackgroundTables();
    return at;
  }

  private dropBackgroundTables(): void {
    const bg = this.c.db.background();
    clearTables(this.c.db, bg.stateTables(), () => {
      bg.removeMeta('tip');
      bg.removeMeta('coins');
    });
  }

  /** -reindex rebuilds from the stored blocks: the snapshot and the background state are forgotten. */
  dropForReindex(): void {
    this.dropBackgroundTables();
    this.c.db.write(() => this.meta.remove());
    this.record = null;
  }

  /** Stops the background validation after the block it is on, writing its cached coins. */
  async close(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    await this.background?.close();
  }

  /** Stops without writing anything more (Chain.halt). */
  async halt(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.background?.halt();
  }
}
