import type { Logger } from 'pino';
import {
  type AssumeutxoEntry,
  Block,
  type BlockHeader,
  MANDATORY_SCRIPT_VERIFY_FLAGS,
  ValidationError,
  hashToHex,
  type ChainParams,
  type OutPoint,
} from '@cs/consensus';
import type { ChainDatabase } from '../storage/database.ts';
import { ActiveChain } from './active-chain.ts';
import { BlockAcceptor } from './block-acceptor.ts';
import { type BlockIndexEntry, BlockStatus, findFork } from './block-index.ts';
import { BlockStore } from './block-store.ts';
import { BlockTree, type ChainTip } from './block-tree.ts';
import { type Coin, writeCoinKey } from './coins.ts';
import { type ConnectPlan, planConnect } from './connect.ts';
import { connectTiming, logConnected } from './connect-timing.ts';
import { nextWorkRequired } from './difficulty.ts';
import { ChainEvents } from './events.ts';
import { LookaheadPlanner, type ReadBlock } from './lookahead.ts';
import { type OpoiBlockChanges, OpoiStore } from './opoi-store.ts';
import { ReindexOrder, connectStoredBlocks } from './reindex.ts';
import { describeScriptFailure } from './script-check.ts';
import type { ScriptVerifier } from './script-verifier.ts';
import { Snapshots } from './snapshot-chainstate.ts';
import { encodeUndo, type BlockUndo } from './undo.ts';
import { UtxoSet } from './utxo-set.ts';

/** Scratch key for coin reads (LMDB copies the key into its own buffer). */
const lookupKey = new Uint8Array(36);

/** Outcome of offering a block, in submitblock's terms (BIP22). */
export type ProcessResult =
  | { readonly status: 'accepted'; readonly entry: BlockIndexEntry }
  /** Stored on a side branch that is not (yet) the most-work chain. */
  | { readonly status: 'inconclusive'; readonly entry: BlockIndexEntry }
  | { readonly status: 'duplicate' | 'duplicate-invalid'; readonly entry: BlockIndexEntry }
  | { readonly status: 'rejected'; readonly reason: string; readonly debug: string };

export interface ChainOptions {
  readonly db: ChainDatabase;
  readonly params: ChainParams;
  readonly verifier: ScriptVerifier;
  readonly log: Logger;
  /** Adjusted network time in Unix seconds (mocktime on regtest). */
  readonly now: () => number;
  /** Memory the unwritten UTXO changes may hold while catching up (-dbcache); 450 MiB when absent. */
  readonly coinsCacheBytes?: number;
  /** The fewest cached coins written on a thread of their own rather than this one; 10,000 when absent. */
  readonly backgroundWriteCoins?: number;
  /** The UTXO snapshots loadtxoutset accepts; the network's (params.assumeutxo) when absent. */
  readonly assumeutxo?: readonly AssumeutxoEntry[];
}

/**
 * The block tree and the active chain over the UTXO set. Every connect and disconnect is one
 * atomic database transaction (undo data, OPoI records, index status and tip together). At the
 * tip the coins go into that same transaction. While catching up (-reindex, or blocks behind the
 * best header) they collect in a cache and are written in batches, each batch with the block it
 * reaches (utxo-set.ts); after a crash, load() replays the blocks past that one into the UTXO
 * set, so a killed process restarts on a consistent tip. Mutations are serialized through one queue.
 */
export class Chain {
  readonly events: ChainEvents;
  /** The OPoI state of the active chain, written with each block (chain/opoi-store.ts). */
  readonly opoi: OpoiStore;
  /** UTXO snapshots: dump, load, and the background validation of a loaded one (snapshot-chainstate.ts). */
  readonly snapshots: Snapshots;
  private readonly active = new ActiveChain();
  private readonly tree = new BlockTree(this.active);
  private readonly store: BlockStore;
  private readonly utxo: UtxoSet;
  private readonly acceptor: BlockAcceptor;
  private readonly lookahead: LookaheadPlanner;
  private queue: Promise<unknown> = Promise.resolve();
  /** Why the most recent connect of a block failed (for the submitter's answer). */
  private readonly connectFailures = new Map<BlockIndexEntry, ValidationError>();
  private reindexing = false;
  /** -reindex: reads the block likely to follow the one being connected, for a lookahead. */
  private readAhead: (() => ReadBlock | null) | null = null;
  /** The block processBlock is validating and connecting now. */
  private processing: Block | null = null;
  private readonly db: ChainDatabase;
  readonly params: ChainParams;
  private readonly verifier: ScriptVerifier;
  private readonly log: Logger;
  readonly now: () => number;

  constructor(opts: ChainOptions) {
    this.db = opts.db;
    this.params = opts.params;
    this.verifier = opts.verifier;
    this.log = opts.log;
    this.now = opts.now;
    this.store = new BlockStore(opts.db);
    this.acceptor = new BlockAcceptor(opts.db, this.store, this.tree, opts.params, opts.now);
    this.utxo = new UtxoSet(opts.db, opts.log, { cacheBytes: opts.coinsCacheBytes, backgroundWriteCoins: opts.backgroundWriteCoins });
    this.lookahead = new LookaheadPlanner(opts.verifier, opts.params);
    this.opoi = new OpoiStore(opts.db, opts.params.opoi);
    this.events = new ChainEvents((event, err) => this.log.error({ event, err }, 'chain event listener failed'));
    this.snapshots = new Snapshots({
      db: opts.db,
      params: opts.params,
      trusted: opts.assumeutxo ?? opts.params.assumeutxo,
      verifier: opts.verifier,
      log: opts.log,
      coinsCacheBytes: opts.coinsCacheBytes,
      tree: this.tree,
      active: this.active,
      store: this.store,
      utxo: this.utxo,
      opoi: this.opoi,
      enqueue: (fn) => this.enqueue(fn),
      disconnectTip: () => this.disconnectTip(),
      activateBestChain: () => this.activateBestChain(),
      markFailed: (entry, err) => this.markFailed(entry, err),
      emitTip: () => this.events.emit('tip', this.tip),
    });
  }

  /** Loads the block tree from the database (creating the genesis block on first start). */
  async load(): Promise<void> {
    const records = this.store.indexRecords();
    if (records.length === 0) {
      this.initGenesis();
    } else {
      for (const rec of records) if (!this.tree.restore(rec)) this.log.warn({ hash: rec.header.hashHex }, 'block index entry without parent ignored');
      const genesis = this.tree.get(this.params.genesis.header.hashHex);
      if (genesis?.height !== 0) {
        throw new Error(`the database at ${this.db.path} belongs to another network (genesis mismatch)`);
      }
      this.snapshots.recover();
      const tipHash = this.store.storedTip();
      const tip = tipHash ? this.tree.get(hashToHex(tipHash)) : genesis;
      this.active.setTip(tip ?? genesis);
      this.snapshots.linkBase();
      this.utxo.catchUp(
        this.active,
        (hashHex) => this.tree.get(hashHex),
        (e) => this.readBlock(e),
      );
    }
    this.tree.indexLoaded();
    this.log.info({ height: this.tip.height, hash: this.tip.hashHex, blocks: this.tree.size }, 'block index loaded');
    await this.enqueue(() => this.activateBestChain());
    this.snapshots.start();
  }

  /**
   * -reindex: drops the block index, UTXO set and undo data, then validates and connects every
   * stored block again from genesis, logging progress. The database keeps a marker until the
   * rebuild completes, so an interrupted reindex (a crash, or `stop` aborting it between two
   * blocks) runs again at the next start.
   */
  async reindex(stop?: AbortSignal): Promise<void> {
    const order = new ReindexOrder(this.db.tables.blocks, this.params.genesis.header.hashHex);
    this.snapshots.dropForReindex();
    this.utxo.reset(() => this.db.clearDerived());
    this.opoi.reload();
    this.tree.clear();
    this.active.clear();
    this.initGenesis();
    this.reindexing = true;
    let done: number | null;
    try {
      done = await connectStoredBlocks(order, {
        connect: async (current) => {
          // While the script threads check this block, this thread reads the one most likely next.
          this.readAhead = () => order.readAhead();
          const result = await this.processBlockNow(current.block, current.raw, true);
          if (result.status !== 'rejected') return true;
          this.log.warn({ hash: current.hashHex, reason: result.reason }, 'stored block rejected during reindex');
          return false;
        },
        height: () => this.height,
        log: this.log,
        stop,
      });
    } finally {
      this.reindexing = false;
      this.readAhead = null;
    }
    if (done === null) return;
    // The rebuilt records first; the coins follow from the writer thread. A crash before they land
    // leaves the stored UTXO set behind the tip, and the next start replays the blocks between.
    this.db.write(() => {
      this.utxo.writePending();
      this.store.removeReindexMarker();
    });
    this.utxo.flush(this.tip, true);
    this.log.info({ blocks: done, height: this.height, hash: this.tip.hashHex }, 'reindex complete');
  }

  /** Whether a reindex was started and did not finish (it resumes on the next start). */
  get reindexPending(): boolean {
    return this.store.reindexPending;
  }

  private initGenesis(): void {
    const block = this.params.genesis;
    const e = this.tree.child(block.header, null);
    e.status = BlockStatus.VALID_HEADER | BlockStatus.HAVE_DATA | BlockStatus.VALID_SCRIPTS;
    e.txCount = block.txs.length;
    // The genesis outputs are never spendable (as Bitcoin's): no coins are added.
    this.db.write(() => {
      this.store.putBlock(e, block.encode());
      this.store.putIndex(e);
      this.store.putTip(e);
      this.utxo.markStoredAt(e);
    });
    this.tree.addGenesis(e);
    this.active.setTip(e);
  }

  // ---- queries ----

  get tip(): BlockIndexEntry {
    return this.active.tip;
  }

  get height(): number {
    return this.active.height;
  }

  /** The active chain's block at `height`. */
  atHeight(height: number): BlockIndexEntry | undefined {
    return this.active.at(height);
  }

  entry(hashHex: string): BlockIndexEntry | undefined {
    return this.tree.get(hashHex);
  }

  contains(e: BlockIndexEntry): boolean {
    return this.active.contains(e);
  }

  /** The active-chain successor of an active-chain entry. */
  next(e: BlockIndexEntry): BlockIndexEntry | undefined {
    return this.active.next(e);
  }

  get blockCount(): number {
    return this.tree.size;
  }

  readBlock(e: BlockIndexEntry): Block | undefined {
    return this.store.readBlock(e);
  }

  /** The stored block in a buffer of its own, or in one `allocate` gives for its length. */
  readRawBlock(e: BlockIndexEntry, allocate?: (length: number) => Buffer): Buffer | undefined {
    return this.store.readRawBlock(e, allocate);
  }

  /**
   * The coins a block's transactions spent (getblock verbosity 2/3 fees and prevouts). Only blocks
   * on the active chain have undo data: disconnecting a block deletes it.
   */
  readUndo(e: BlockIndexEntry): BlockUndo | undefined {
    return this.store.readUndo(e);
  }

  /** Bytes of the database files (blocks, undo data, index and UTXO set share one LMDB environment). */
  sizeOnDisk(): number {
    return this.store.sizeOnDisk();
  }

  /** The most-work block header not known to be invalid (getblockchaininfo's `headers`). */
  get bestHeader(): BlockIndexEntry {
    return this.tree.bestHeader;
  }

  /** An unspent output of the active chain's UTXO set. */
  getCoin(p: OutPoint): Coin | undefined {
    return this.getCoinByKey(writeCoinKey(p, lookupKey));
  }

  /** The coin stored under a coinKey. */
  getCoinByKey(key: Uint8Array): Coin | undefined {
    return this.utxo.get(key);
  }

  /** The unwritten UTXO changes (the coins cache), for /metrics. */
  get coinsCacheUsage(): { readonly coins: number; readonly bytes: number } {
    return this.utxo.cacheUsage;
  }

  /**
   * Every coin of the UTXO set, in key order (gettxoutsetinfo), as of the moment of the first
   * step: the walk reads one database snapshot however long it takes and whatever connects meanwhile.
   */
  coins(): Generator<{ key: Buffer; coin: Coin }> {
    return this.utxo.all(this.tip);
  }

  nextWorkRequired(prev: BlockIndexEntry): number {
    return nextWorkRequired(prev, this.params);
  }

  /** Every branch tip, as getchaintips reports them. */
  chainTips(): ChainTip[] {
    return this.tree.chainTips();
  }

  // ---- for peer-to-peer sync ----

  /** Whether `e`'s block and all its ancestors' blocks are stored, so it can be connected. */
  hasChainData(e: BlockIndexEntry): boolean {
    return this.tree.hasChainData(e);
  }

  /**
   * A block locator (Core's GetLocator): the hashes of `from` and its ancestors, dense for the
   * last ten, then doubling the step back to genesis.
   */
  locator(from: BlockIndexEntry = this.tip): Uint8Array[] {
    return this.active.locator(from);
  }

  /** The first locator hash on the active chain, or genesis (Core's FindForkInGlobalIndex). */
  findLocatorFork(locator: readonly Uint8Array[]): BlockIndexEntry {
    for (const hash of locator) {
      const e = this.tree.get(hashToHex(hash));
      if (e && this.contains(e)) return e;
    }
    return this.active.at(0)!;
  }

  /**
   * Headers from a peer (Core's ProcessNewBlockHeaders): each is checked as a block's header is
   * (proof of work, known valid parent, difficulty, time) and stored as a header-only entry, so
   * its block can be downloaded. Stops at the first failure; the headers before it stay.
   */
  acceptHeaders(headers: readonly BlockHeader[]): { readonly last: BlockIndexEntry | null; readonly error: ValidationError | null } {
    return this.acceptor.acceptHeaders(headers);
  }

  // ---- mutations ----

  /** Runs `fn` after every earlier mutation has finished (one writer at a time). */
  private enqueue<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Validates, stores and (when it leads to the most work) connects a block. */
  processBlock(block: Block, raw?: Uint8Array): Promise<ProcessResult> {
    if (raw) this.expectBlock(block, raw);
    return this.enqueue(async () => {
      this.lookahead.started(block);
      this.processing = block;
      try {
        return await this.processBlockNow(block, raw);
      } finally {
        this.processing = null;
      }
    });
  }

  /**
   * Announces a block that will be handed to processBlock soon (a sync reads blocks off the wire
   * faster than they connect), so that it can be planned while its parent's scripts are checked.
   * Only a hint: the block is checked when its turn comes, and a plan made from it is used only if
   * this very object is the one that connects.
   */
  expectBlock(block: Block, raw: Uint8Array): void {
    this.lookahead.expect(block, raw);
  }

  /**
   * `stored`: the block is read from the database (-reindex) in a buffer of its own, so it is not
   * written again and its decoded form can be connected as it is.
   */
  private async processBlockNow(block: Block, raw?: Uint8Array, stored = false): Promise<ProcessResult> {
    const hashHex = block.header.hashHex;
    const known = this.tree.get(hashHex);
    // As Core's submitblock: a block known to be invalid is not validated again.
    if (known?.isFailed()) return { status: 'duplicate-invalid', entry: known };
    if (known?.hasData()) return { status: 'duplicate', entry: known };
    let entry: BlockIndexEntry;
    try {
      entry = this.acceptor.acceptBlock(block, raw, known, stored);
    } catch (e) {
      if (e instanceof ValidationError) return { status: 'rejected', reason: e.reason, debug: e.debug };
      throw e;
    }
    this.snapshots.blockStored();
    if (this.snapshots.defers(entry)) return { status: 'inconclusive', entry };
    await this.activateBestChain(this.tip, stored && raw ? { hashHex, block, raw } : undefined);
    // A stored block's record waits for its connect, which writes it; unless it did not connect.
    if (stored && !this.contains(entry) && !entry.isFailed()) this.store.writeIndex([entry]);
    const failure = this.connectFailures.get(entry);
    this.connectFailures.clear();
    if (failure) return { status: 'rejected', reason: failure.reason, debug: failure.debug };
    // An ancestor failed to connect during the reorg this block set off: the block itself was
    // never checked, so Core's submitblock answers inconclusive (and the block is now known bad).
    if (entry.isFailed()) return { status: 'inconclusive', entry };
    return { status: this.contains(entry) ? 'accepted' : 'inconclusive', entry };
  }

  /**
   * Core's ActivateBestChain: move the tip to the most-work valid block, reorganizing as needed.
   * `accepted` is a block just read and decoded, connected as it is when its turn comes.
   */
  private async activateBestChain(startTip = this.tip, accepted?: ReadBlock): Promise<void> {
    for (;;) {
      const best = this.tree.bestCandidate();
      if (!best) break;
      const fork = findFork(this.tip, best);
      if (fork.height < this.snapshots.floor) {
        // No undo data below an unvalidated snapshot's base: considered again once it is validated.
        this.log.warn({ hash: best.hashHex, fork: fork.height }, 'a chain forking below the UTXO snapshot base waits for its validation');
        this.tree.dropCandidate(best);
        continue;
      }
      while (this.tip !== fork) this.disconnectTip();
      const path: BlockIndexEntry[] = [];
      for (let e: BlockIndexEntry | null = best; e && e !== fork; e = e.prev) path.push(e);
      path.reverse();
      for (let i = 0; i < path.length; i++) {
        const e = path[i];
        const following = path[i + 1];
        const readNext = following ? () => this.store.readStored(following) : (this.readAhead ?? (() => this.lookahead.waitingOn(e.hashHex)));
        if (!(await this.connectTip(e, accepted?.hashHex === e.hashHex ? accepted : undefined, readNext))) break;
      }
    }
    // A failed block can leave the tip short of the best header with coins still unwritten.
    if (!this.catchingUp(this.tip)) this.utxo.flush(this.tip, true);
    if (this.tip !== startTip) this.events.emit('tip', this.tip);
  }

  /**
   * Connects `entry`'s block to the tip. `readNext` reads the block expected to follow it, which
   * is planned while this one's scripts are checked (a lookahead).
   */
  private async connectTip(entry: BlockIndexEntry, decoded?: ReadBlock, readNext?: (() => ReadBlock | null) | null): Promise<boolean> {
    const started = performance.now();
    const ahead = await this.lookahead.take(entry, this.tip, this.processing);
    const raw = ahead?.raw ?? decoded?.raw ?? this.readRawBlock(entry);
    if (!raw) throw new Error(`block ${entry.hashHex} is indexed as stored but missing from the database`);
    const flags = MANDATORY_SCRIPT_VERIFY_FLAGS;
    // Workers start decoding their copy of the block while this thread decodes its own.
    const checks = ahead?.checks ?? this.verifier.session(raw, flags);
    let block: Block;
    let plan: ConnectPlan;
    let opoi: OpoiBlockChanges;
    try {
      block = ahead?.block ?? decoded?.block ?? Block.decode(raw);
      plan = ahead?.plan ?? planConnect(block, entry, this, this.params, flags, (tx, t, spent) => checks.add(tx, t, spent));
      checks.flush();
      // Not planned ahead: the OPoI rules read the stored OPoI state, which the parent may change.
      opoi = this.opoi.connectBlock(block, plan.undo, entry.height, entry.hash);
    } catch (e) {
      await checks.abort();
      if (!(e instanceof ValidationError)) throw e;
      this.markFailed(entry, e);
      return false;
    }
    const planned = performance.now();
    const next = readNext?.();
    if (next) await this.lookahead.plan(entry, plan, this, next);
    const aheadPlanned = performance.now();
    const scriptFailure = await checks.finish();
    const verified = performance.now();
    if (scriptFailure) {
      await this.lookahead.drop();
      this.markFailed(
        entry,
        new ValidationError(describeScriptFailure(scriptFailure), `tx ${block.txs[scriptFailure.txIndex].txidHex} input ${scriptFailure.input}`),
      );
      return false;
    }
    entry.status |= BlockStatus.VALID_SCRIPTS;
    // The next block's OPoI rules read the stored OPoI state, so a block that changed it commits.
    this.utxo.connect(entry, plan, this.store.connectedRecords(entry, encodeUndo(plan.undo), opoi), {
      catchingUp: this.catchingUp(entry),
      mayDefer: this.reindexing && opoi.empty,
    });
    const written = performance.now();
    this.active.extend(entry);
    this.tree.dropCandidate(entry);
    const timing = connectTiming(plan, ahead?.planSeconds, { started, planned, aheadPlanned, verified, written });
    logConnected(this.log, entry, timing);
    this.events.emit('connect', { block, entry, undo: plan.undo, opoi: opoi.events, timing });
    return true;
  }

  private disconnectTip(): void {
    void this.lookahead.drop();
    const entry = this.tip;
    const prev = entry.prev;
    if (!prev) throw new Error('cannot disconnect the genesis block');
    // The undo data is read back and restores coins in the table: both must first be at this tip.
    this.utxo.flush(this.tip);
    const block = this.readBlock(entry);
    const undo = this.readUndo(entry);
    if (!block || !undo) throw new Error(`block ${entry.hashHex} cannot be disconnected: its data or undo data is missing`);
    const opoi = this.db.write(() => {
      this.utxo.disconnect(block, undo, prev);
      this.store.removeUndo(entry);
      this.store.putTip(prev);
      return this.opoi.disconnectBlock(entry.hash);
    });
    this.active.dropTip();
    // A disconnected block can become the tip again (e.g. after reconsiderblock elsewhere).
    this.tree.considerCandidate(entry);
    this.events.emit('disconnect', { block, entry, undo, opoi });
  }

  /** Marks a block invalid and every descendant as having an invalid ancestor (persisted). */
  private markFailed(entry: BlockIndexEntry, err: ValidationError): void {
    this.log.warn({ hash: entry.hashHex, height: entry.height, reason: err.reason, debug: err.debug }, 'block failed to connect');
    this.connectFailures.set(entry, err);
    this.store.writeIndex(this.tree.fail(entry));
  }

  /** invalidateblock: treat the block as invalid, leaving the active chain if it is on it. */
  invalidateBlock(hashHex: string): Promise<void> {
    return this.enqueue(async () => {
      const entry = this.requireEntry(hashHex);
      if (entry.height === 0) throw new ValidationError('genesis', 'the genesis block cannot be invalidated');
      if (entry.height <= this.snapshots.floor)
        throw new ValidationError('snapshot-base', 'blocks up to an unvalidated UTXO snapshot base cannot be invalidated');
      const startTip = this.tip;
      while (this.contains(entry)) this.disconnectTip();
      this.store.writeIndex(this.tree.fail(entry));
      // With the tip lowered, other branches (less work than the old tip) may now be the best.
      this.tree.considerAll();
      await this.activateBestChain(startTip);
    });
  }

  /** reconsiderblock: clear failure marks of the block, its ancestors and its descendants. */
  reconsiderBlock(hashHex: string): Promise<void> {
    return this.enqueue(async () => {
      this.store.writeIndex(this.tree.clearFailures(this.requireEntry(hashHex)));
      this.tree.considerAll();
      await this.activateBestChain();
    });
  }

  private requireEntry(hashHex: string): BlockIndexEntry {
    const e = this.tree.get(hashHex);
    if (!e) throw new ValidationError('block-not-found', 'Block not found');
    return e;
  }

  /**
   * Whether the coins of a block connected as `entry` may wait in the cache: during -reindex, or
   * while more blocks are known to follow (a sync). At the tip every block writes its coins.
   */
  private catchingUp(entry: BlockIndexEntry): boolean {
    return this.reindexing || this.bestHeader !== entry;
  }

  /**
   * Stops the threads without writing anything more, as if the process were killed once the batch
   * in flight (if any) committed: for tests of what a crash leaves.
   */
  async halt(): Promise<void> {
    await this.snapshots.halt();
    await this.utxo.halt();
    await this.verifier.close();
  }

  /** Waits for queued mutations, writes the coins cache, then stops the script workers and the writer thread. */
  async close(): Promise<void> {
    await this.snapshots.close();
    await this.queue;
    await this.lookahead.drop();
    await this.utxo.close(this.tip);
    await this.verifier.close();
  }
}
