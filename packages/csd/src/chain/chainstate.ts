import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from 'pino';
import {
  Block,
  BlockHeader,
  Reader,
  MANDATORY_SCRIPT_VERIFY_FLAGS,
  ValidationError,
  checkBlock,
  checkBlockHeader,
  contextualCheckBlock,
  contextualCheckBlockHeader,
  hashToHex,
  isUnspendable,
  type ChainParams,
  type OutPoint,
} from '@cs/consensus';
import { type OpoiBlockChanges, OpoiStore } from './opoi-store.ts';
import { type ChainDatabase, readLarge, readLargeInto } from '../storage/database.ts';
import { BlockIndexEntry, BlockStatus, FAILED_MASK, betterTip, decodeIndexRecord, findFork } from './block-index.ts';
import { coinFromOutput, coinKey, decodeCoin, encodeCoin, latin1, writeCoinKey, type Coin } from './coins.ts';
import { CoinsCache } from './coins-cache.ts';
import { CoinsWriter, type WriteOutcome } from './coins-writer.ts';
import { type ConnectPlan, planConnect } from './connect.ts';
import { nextWorkRequired } from './difficulty.ts';
import { ChainEvents, type ConnectTiming } from './events.ts';
import { type Lookahead, PlannedCoins, type ReadBlock } from './lookahead.ts';
import { describeScriptFailure } from './script-check.ts';
import type { ScriptVerifier } from './script-verifier.ts';
import { decodeUndo, encodeUndo, type BlockUndo } from './undo.ts';

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
}

export interface ChainTip {
  readonly entry: BlockIndexEntry;
  readonly branchLength: number;
  readonly status: 'active' | 'valid-fork' | 'valid-headers' | 'headers-only' | 'invalid';
}

const TIP_KEY = 'tip';
/** The block the stored UTXO set reflects: the tip, or an ancestor whose successors are replayed at load. */
const COINS_KEY = 'coins';
const DEFAULT_COINS_CACHE_BYTES = 450 * 1024 * 1024;
/**
 * Writing takes about 5 µs a coin on this thread and handing a batch to the writer thread about
 * 0.5 µs: below this many, the handover and the wait it may cause the next write are not worth it.
 */
const DEFAULT_BACKGROUND_WRITE_COINS = 10_000;
/**
 * During -reindex, blocks' own records (undo data, index status, tip) are committed together, this
 * many at most: an interrupted reindex starts over anyway, and a commit per block took 5-7 ms of
 * a large chain's reindex (measured), more than the block's records themselves.
 */
const REINDEX_COMMIT_BLOCKS = 64;
/** How long a measured database size is reused. */
const DISK_SIZE_TTL_MS = 1000;
/**
 * Blocks announced by expectBlock that may wait for their turn: a sync's downloads queue a few per
 * peer; the oldest announcements go first.
 */
const MAX_WAITING_BLOCKS = 16;
/** How long -reindex runs before giving the event loop a turn (RPC warmup answers, signals). */
const REINDEX_YIELD_MS = 20;

/**
 * The block tree and the active chain over the UTXO set. Every connect and disconnect is one
 * atomic database transaction (undo data, OPoI records, index status and tip together). At the
 * tip the coins go into that same transaction. While catching up (-reindex, or blocks behind the
 * best header) they collect in a cache and are written in batches, each batch with the block it
 * reaches (`coins` in meta); after a crash, load() replays the blocks past that one into the UTXO
 * set, so a killed process restarts on a consistent tip. Mutations are serialized through one queue.
 */
export class Chain {
  readonly events: ChainEvents;
  /** The OPoI state of the active chain, written with each block (opoi/store.ts). */
  readonly opoi: OpoiStore;
  private readonly byHash = new Map<string, BlockIndexEntry>();
  private active: BlockIndexEntry[] = [];
  /** Entries with data that may become the tip: more work than the tip, not known invalid. */
  private readonly candidates = new Set<BlockIndexEntry>();
  /**
   * Entries whose block and every ancestor's block are stored (Core's nChainTx != 0): only these
   * can be connected. Blocks downloaded out of order wait in `unlinked` under their parent.
   */
  private readonly linked = new Set<BlockIndexEntry>();
  private readonly unlinked = new Map<BlockIndexEntry, BlockIndexEntry[]>();
  private sequence = 0;
  private queue: Promise<unknown> = Promise.resolve();
  /** Why the most recent connect of a block failed (for the submitter's answer). */
  private readonly connectFailures = new Map<BlockIndexEntry, ValidationError>();
  private diskSize: { bytes: number; at: number } | null = null;
  /** Cached; recomputed when it turns out invalid, extended as better headers arrive. */
  private bestHeaderEntry: BlockIndexEntry | null = null;
  private readonly coinsCache: CoinsCache;
  private readonly coinsWriter: CoinsWriter;
  private readonly backgroundWriteCoins: number;
  private reindexing = false;
  /** -reindex: reads the block likely to follow the one being connected, for a lookahead. */
  private readAhead: (() => ReadBlock | null) | null = null;
  /** The next block, planned while the tip's scripts were checked (lookahead.ts). */
  private lookahead: Lookahead | null = null;
  /** Blocks announced to come (expectBlock), by parent hash: a lookahead may plan one. */
  private readonly waiting = new Map<string, ReadBlock>();
  /** The block processBlock is validating and connecting now. */
  private processing: Block | null = null;
  /** -reindex: connected blocks' records not yet committed, in connect order. */
  private readonly pendingWrites: (() => void)[] = [];
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
    this.coinsCache = new CoinsCache(opts.db.tables.coins, opts.coinsCacheBytes ?? DEFAULT_COINS_CACHE_BYTES);
    this.coinsWriter = new CoinsWriter(opts.db.path, (outcome) => this.coinsWritten(outcome));
    this.backgroundWriteCoins = opts.backgroundWriteCoins ?? DEFAULT_BACKGROUND_WRITE_COINS;
    this.opoi = new OpoiStore(opts.db, opts.params.opoi);
    this.events = new ChainEvents((event, err) => this.log.error({ event, err }, 'chain event listener failed'));
  }

  /** Loads the block tree from the database (creating the genesis block on first start). */
  async load(): Promise<void> {
    const t = this.db.tables;
    const records = [];
    for (const { key, value } of t.index.getRange({})) records.push({ key, rec: decodeIndexRecord(value) });
    if (records.length === 0) {
      this.initGenesis();
    } else {
      records.sort((a, b) => a.rec.height - b.rec.height);
      for (const { rec } of records) {
        const prev = rec.height === 0 ? null : (this.byHash.get(hashToHex(rec.header.prevHash)) ?? null);
        if (rec.height > 0 && !prev) {
          this.log.warn({ hash: rec.header.hashHex }, 'block index entry without parent ignored');
          continue;
        }
        const e = BlockIndexEntry.child(rec.header, prev, rec.sequence);
        e.status = rec.status;
        e.txCount = rec.txCount;
        this.byHash.set(e.hashHex, e);
        this.sequence = Math.max(this.sequence, rec.sequence + 1);
      }
      const genesis = this.byHash.get(this.params.genesis.header.hashHex);
      if (genesis?.height !== 0) {
        throw new Error(`the database at ${this.db.path} belongs to another network (genesis mismatch)`);
      }
      const tipHash = this.db.getMeta(TIP_KEY);
      const tip = tipHash ? this.byHash.get(hashToHex(tipHash)) : genesis;
      this.setActive(tip ?? genesis);
      this.catchUpCoins();
    }
    // In height order (the map's insertion order), so parents are linked before their children.
    for (const e of this.byHash.values()) {
      if (e.hasData()) this.linkData(e);
      this.considerCandidate(e);
    }
    this.log.info({ height: this.tip.height, hash: this.tip.hashHex, blocks: this.byHash.size }, 'block index loaded');
    await this.enqueue(() => this.activateBestChain());
  }

  /**
   * -reindex: drops the block index, UTXO set and undo data, then validates and connects every
   * stored block again from genesis, logging progress. The database keeps a marker until the
   * rebuild completes, so an interrupted reindex (a crash, or `stop` aborting it between two
   * blocks) runs again at the next start. The event loop gets a turn every few milliseconds, so RPC
   * keeps answering (-28 while warming up) and signals are seen.
   */
  async reindex(stop?: AbortSignal): Promise<void> {
    const t = this.db.tables;
    const headers = new Map<string, Uint8Array>();
    const children = new Map<string, string[]>();
    for (const key of t.blocks.getKeys({})) {
      // The header is the block's prefix, read in place (the view lasts until the next read): the
      // first pass copies no block, where reading the values would copy every stored block once.
      const header = BlockHeader.read(new Reader(t.blocks.getBinaryFast(key)!));
      headers.set(header.hashHex, key);
      const prev = hashToHex(header.prevHash);
      const list = children.get(prev);
      if (list) list.push(header.hashHex);
      else children.set(prev, [header.hashHex]);
    }
    // A batch still being written would land in the cleared table.
    this.coinsWriter.settle();
    this.coinsCache.clear();
    // The set being rebuilt is about as large as the one stored: the cache is sized for it once.
    const storedCoins = (t.coins.getStats() as { entryCount: number }).entryCount;
    this.db.clearDerived();
    this.coinsCache.reserve(storedCoins);
    this.opoi.reload();
    this.byHash.clear();
    this.candidates.clear();
    this.linked.clear();
    this.unlinked.clear();
    this.active = [];
    this.initGenesis();
    const total = headers.size;
    let done = 1;
    let lastLog = Date.now();
    // Breadth first from genesis, so every block comes after its parent. A read cursor instead of
    // shift(), which would make a long chain quadratic.
    const queue = [...(children.get(this.params.genesis.header.hashHex) ?? [])];
    let lastYield = performance.now();
    const read = (hashHex: string): ReadBlock | null => {
      const raw = readLarge(t.blocks, Buffer.from(headers.get(hashHex)!));
      if (!raw) return null;
      const block = Block.decode(raw);
      // The transaction hashes are the bulk of the block's own checks; they are cached once made.
      for (const tx of block.txs) {
        void tx.txid;
        void tx.wtxid;
      }
      return { hashHex, raw, block };
    };
    const prefetched: { next: ReturnType<typeof read> } = { next: null };
    this.reindexing = true;
    try {
      for (let next = 0; next < queue.length; next++) {
        if (performance.now() - lastYield > REINDEX_YIELD_MS) {
          await new Promise((resolve) => setImmediate(resolve));
          lastYield = performance.now();
          if (stop?.aborted) {
            this.log.info({ blocks: done, of: total, height: this.height }, 'reindex interrupted; it runs again at the next start');
            return;
          }
        }
        const hashHex = queue[next];
        const current = prefetched.next?.hashHex === hashHex ? prefetched.next : read(hashHex);
        if (!current) continue;
        // While the script threads check this block, this thread reads the one most likely next:
        // a sibling already queued, or else its first child.
        this.readAhead = () => {
          const likely = queue[next + 1] ?? children.get(hashHex)?.[0];
          prefetched.next = likely === undefined ? null : read(likely);
          return prefetched.next;
        };
        const result = await this.processBlockNow(current.block, current.raw, true);
        if (result.status === 'rejected') this.log.warn({ hash: hashHex, reason: result.reason }, 'stored block rejected during reindex');
        else queue.push(...(children.get(hashHex) ?? []));
        done++;
        if (Date.now() - lastLog > 5000) {
          lastLog = Date.now();
          this.log.info({ progress: `${((100 * done) / total).toFixed(1)}%`, blocks: done, of: total, height: this.height }, 'reindexing');
        }
      }
    } finally {
      this.reindexing = false;
      this.readAhead = null;
    }
    // The rebuilt records first; the coins follow from the writer thread. A crash before they land
    // leaves the stored UTXO set behind the tip, and the next start replays the blocks between.
    this.db.write(() => {
      this.writePending();
      this.db.tables.meta.remove(Buffer.from('reindex'));
    });
    this.flushCoins(this.tip, true);
    this.log.info({ blocks: done, height: this.height, hash: this.tip.hashHex }, 'reindex complete');
  }

  /** Whether a reindex was started and did not finish (it resumes on the next start). */
  get reindexPending(): boolean {
    return this.db.getMeta('reindex') !== undefined;
  }

  private initGenesis(): void {
    const block = this.params.genesis;
    const e = BlockIndexEntry.child(block.header, null, this.sequence++);
    e.status = BlockStatus.VALID_HEADER | BlockStatus.HAVE_DATA | BlockStatus.VALID_SCRIPTS;
    e.txCount = block.txs.length;
    // The genesis outputs are never spendable (as Bitcoin's): no coins are added.
    this.db.write(() => {
      this.db.tables.blocks.put(Buffer.from(e.hash), Buffer.from(block.encode()));
      this.db.tables.index.put(Buffer.from(e.hash), e.encode());
      this.db.putMeta(TIP_KEY, Buffer.from(e.hash));
      this.db.putMeta(COINS_KEY, Buffer.from(e.hash));
    });
    this.byHash.set(e.hashHex, e);
    this.linked.add(e);
    this.active = [e];
  }

  // ---- queries ----

  get tip(): BlockIndexEntry {
    return this.active[this.active.length - 1];
  }

  get height(): number {
    return this.active.length - 1;
  }

  /** The active chain's block at `height`. */
  atHeight(height: number): BlockIndexEntry | undefined {
    return this.active[height];
  }

  entry(hashHex: string): BlockIndexEntry | undefined {
    return this.byHash.get(hashHex);
  }

  contains(e: BlockIndexEntry): boolean {
    return this.active[e.height] === e;
  }

  /** The active-chain successor of an active-chain entry. */
  next(e: BlockIndexEntry): BlockIndexEntry | undefined {
    return this.contains(e) ? this.active[e.height + 1] : undefined;
  }

  get blockCount(): number {
    return this.byHash.size;
  }

  readBlock(e: BlockIndexEntry): Block | undefined {
    const raw = this.readRawBlock(e);
    return raw ? Block.decode(raw) : undefined;
  }

  /** The stored block in a buffer of its own, or in one `allocate` gives for its length. */
  readRawBlock(e: BlockIndexEntry, allocate: (length: number) => Buffer = Buffer.allocUnsafeSlow): Buffer | undefined {
    return readLargeInto(this.db.tables.blocks, Buffer.from(e.hash), allocate);
  }

  /**
   * The coins a block's transactions spent (getblock verbosity 2/3 fees and prevouts). Only blocks
   * on the active chain have undo data: disconnecting a block deletes it.
   */
  readUndo(e: BlockIndexEntry): BlockUndo | undefined {
    const raw = readLarge(this.db.tables.undo, Buffer.from(e.hash));
    return raw ? decodeUndo(raw) : undefined;
  }

  /** Bytes of the database files (blocks, undo data, index and UTXO set share one LMDB environment). */
  sizeOnDisk(): number {
    // Polled by getblockchaininfo; a directory scan per call would dominate that method's cost.
    const now = Date.now();
    if (!this.diskSize || now - this.diskSize.at > DISK_SIZE_TTL_MS) {
      const bytes = readdirSync(this.db.path, { withFileTypes: true })
        .filter((f) => f.isFile())
        .reduce((sum, f) => sum + statSync(join(this.db.path, f.name)).size, 0);
      this.diskSize = { bytes, at: now };
    }
    return this.diskSize.bytes;
  }

  /** The most-work block header not known to be invalid (getblockchaininfo's `headers`). */
  get bestHeader(): BlockIndexEntry {
    if (!this.bestHeaderEntry || this.bestHeaderEntry.isFailed()) {
      let best = this.tip;
      for (const e of this.byHash.values()) if (!e.isFailed() && betterTip(e, best)) best = e;
      this.bestHeaderEntry = best;
    }
    return this.bestHeaderEntry;
  }

  /** An unspent output of the active chain's UTXO set. */
  getCoin(p: OutPoint): Coin | undefined {
    return this.getCoinByKey(writeCoinKey(p, lookupKey));
  }

  /** The coin stored under a coinKey. */
  getCoinByKey(key: Uint8Array): Coin | undefined {
    return this.coinsCache.get(key);
  }

  /** The unwritten UTXO changes (the coins cache), for /metrics. */
  get coinsCacheUsage(): { readonly coins: number; readonly bytes: number } {
    return { coins: this.coinsCache.size, bytes: this.coinsCache.bytes };
  }

  /**
   * Every coin of the UTXO set, in key order (gettxoutsetinfo), as of the moment of the first
   * step: the walk reads one database snapshot however long it takes and whatever connects meanwhile.
   */
  *coins(): Generator<{ key: Buffer; coin: Coin }> {
    this.flushCoins();
    for (const { key, value } of this.db.tables.coins.getRange({})) yield { key, coin: decodeCoin(value) };
  }

  nextWorkRequired(prev: BlockIndexEntry): number {
    return nextWorkRequired(prev, this.params);
  }

  /** Every branch tip, as getchaintips reports them. */
  chainTips(): ChainTip[] {
    const hasChild = new Set<BlockIndexEntry>();
    for (const e of this.byHash.values()) if (e.prev) hasChild.add(e.prev);
    const tips: ChainTip[] = [];
    for (const e of this.byHash.values()) {
      if (hasChild.has(e) && e !== this.tip) continue;
      const fork = findFork(e, this.tip);
      let status: ChainTip['status'];
      if (this.contains(e)) status = 'active';
      else if (e.isFailed()) status = 'invalid';
      else if (!e.hasData()) status = 'headers-only';
      else if (e.status & BlockStatus.VALID_SCRIPTS) status = 'valid-fork';
      else status = 'valid-headers';
      tips.push({ entry: e, branchLength: e.height - fork.height, status });
    }
    return tips.sort((a, b) => b.entry.height - a.entry.height);
  }

  // ---- for peer-to-peer sync ----

  /** Whether `e`'s block and all its ancestors' blocks are stored, so it can be connected. */
  hasChainData(e: BlockIndexEntry): boolean {
    return this.linked.has(e);
  }

  /**
   * A block locator (Core's GetLocator): the hashes of `from` and its ancestors, dense for the
   * last ten, then doubling the step back to genesis.
   */
  locator(from: BlockIndexEntry = this.tip): Uint8Array[] {
    const hashes: Uint8Array[] = [];
    let step = 1;
    for (let e: BlockIndexEntry | null = from; e; ) {
      hashes.push(e.hash);
      if (e.height === 0) break;
      const height = Math.max(0, e.height - step);
      e = this.contains(e) ? this.active[height] : e.ancestor(height);
      if (hashes.length > 10) step *= 2;
    }
    return hashes;
  }

  /** The first locator hash on the active chain, or genesis (Core's FindForkInGlobalIndex). */
  findLocatorFork(locator: readonly Uint8Array[]): BlockIndexEntry {
    for (const hash of locator) {
      const e = this.byHash.get(hashToHex(hash));
      if (e && this.contains(e)) return e;
    }
    return this.active[0];
  }

  /**
   * Headers from a peer (Core's ProcessNewBlockHeaders): each is checked as a block's header is
   * (proof of work, known valid parent, difficulty, time) and stored as a header-only entry, so
   * its block can be downloaded. Stops at the first failure; the headers before it stay.
   */
  acceptHeaders(headers: readonly BlockHeader[]): { readonly last: BlockIndexEntry | null; readonly error: ValidationError | null } {
    const added: BlockIndexEntry[] = [];
    let last: BlockIndexEntry | null = null;
    let error: ValidationError | null = null;
    for (const header of headers) {
      const known = this.byHash.get(header.hashHex);
      if (known) {
        if (known.isFailed()) {
          error = new ValidationError('duplicate-invalid', `header ${header.hashHex} is of a block known to be invalid`);
          break;
        }
        last = known;
        continue;
      }
      try {
        checkBlockHeader(header, this.params);
        const prev = this.byHash.get(hashToHex(header.prevHash));
        if (!prev) throw new ValidationError('prev-blk-not-found', 'previous block is unknown');
        if (prev.isFailed()) throw new ValidationError('bad-prevblk', 'previous block is invalid');
        contextualCheckBlockHeader(
          header,
          { expectedBits: this.nextWorkRequired(prev), medianTimePast: prev.medianTimePast(), now: this.now() },
          this.params,
        );
        const entry = BlockIndexEntry.child(header, prev, this.sequence++);
        entry.status = BlockStatus.VALID_HEADER;
        this.byHash.set(entry.hashHex, entry);
        this.considerCandidate(entry);
        added.push(entry);
        last = entry;
      } catch (e) {
        if (!(e instanceof ValidationError)) throw e;
        error = e;
        break;
      }
    }
    if (added.length > 0) {
      this.db.write(() => {
        for (const e of added) this.db.tables.index.put(Buffer.from(e.hash), e.encode());
      });
    }
    return { last, error };
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
      const parentHex = hashToHex(block.header.prevHash);
      if (this.waiting.get(parentHex)?.block === block) this.waiting.delete(parentHex);
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
    const parentHex = hashToHex(block.header.prevHash);
    if (this.waiting.has(parentHex)) return;
    if (this.waiting.size >= MAX_WAITING_BLOCKS) this.waiting.delete(this.waiting.keys().next().value!);
    this.waiting.set(parentHex, { hashHex: block.header.hashHex, block, raw, unchecked: true });
  }

  /**
   * `stored`: the block is read from the database (-reindex) in a buffer of its own, so it is not
   * written again and its decoded form can be connected as it is.
   */
  private async processBlockNow(block: Block, raw?: Uint8Array, stored = false): Promise<ProcessResult> {
    const hashHex = block.header.hashHex;
    const known = this.byHash.get(hashHex);
    // As Core's submitblock: a block known to be invalid is not validated again.
    if (known?.isFailed()) return { status: 'duplicate-invalid', entry: known };
    if (known?.hasData()) return { status: 'duplicate', entry: known };
    let entry: BlockIndexEntry;
    try {
      entry = this.acceptBlock(block, raw, known, stored);
    } catch (e) {
      if (e instanceof ValidationError) return { status: 'rejected', reason: e.reason, debug: e.debug };
      throw e;
    }
    await this.activateBestChain(this.tip, stored && raw ? { hashHex, block, raw } : undefined);
    // A stored block's record waits for its connect, which writes it; unless it did not connect.
    if (stored && !this.contains(entry) && !entry.isFailed()) this.db.write(() => this.db.tables.index.put(Buffer.from(entry.hash), entry.encode()));
    const failure = this.connectFailures.get(entry);
    this.connectFailures.clear();
    if (failure) return { status: 'rejected', reason: failure.reason, debug: failure.debug };
    // An ancestor failed to connect during the reorg this block set off: the block itself was
    // never checked, so Core's submitblock answers inconclusive (and the block is now known bad).
    if (entry.isFailed()) return { status: 'inconclusive', entry };
    return { status: this.contains(entry) ? 'accepted' : 'inconclusive', entry };
  }

  /**
   * Core's AcceptBlockHeader + AcceptBlock: header checks (proof of work, parent, difficulty,
   * time), then the block's own checks, then store. A valid header whose block breaks a rule is
   * remembered as invalid, as Core does: submitting it again answers duplicate-invalid without
   * validating it again, getchaintips lists it as invalid and its children are bad-prevblk. Not
   * when the failure may be corruption in transit (a mutated merkle tree or witness): the same
   * header with its real transactions must still be accepted.
   */
  private acceptBlock(block: Block, raw: Uint8Array | undefined, known: BlockIndexEntry | undefined, stored = false): BlockIndexEntry {
    checkBlockHeader(block.header, this.params);
    const prev = this.byHash.get(hashToHex(block.header.prevHash));
    if (!prev) throw new ValidationError('prev-blk-not-found', 'previous block is unknown');
    if (prev.isFailed()) throw new ValidationError('bad-prevblk', 'previous block is invalid');
    contextualCheckBlockHeader(
      block.header,
      { expectedBits: this.nextWorkRequired(prev), medianTimePast: prev.medianTimePast(), now: this.now() },
      this.params,
    );
    const entry = known ?? BlockIndexEntry.child(block.header, prev, this.sequence++);
    try {
      checkBlock(block, this.params, { checkPoW: false });
      contextualCheckBlock(block, prev.height + 1, prev.medianTimePast());
    } catch (e) {
      if (e instanceof ValidationError && !e.corruptionPossible) {
        entry.status |= BlockStatus.VALID_HEADER | BlockStatus.FAILED_VALID;
        this.db.write(() => this.db.tables.index.put(Buffer.from(entry.hash), entry.encode()));
        this.byHash.set(entry.hashHex, entry);
      }
      throw e;
    }

    entry.status |= BlockStatus.VALID_HEADER | BlockStatus.HAVE_DATA;
    entry.txCount = block.txs.length;
    // A block read back from the database (-reindex) is not written again, and its index record
    // goes into the transaction that connects it: a commit per block less.
    if (!stored) {
      const bytes = raw ?? block.encode();
      this.db.write(() => {
        this.db.tables.blocks.put(Buffer.from(entry.hash), Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
        this.db.tables.index.put(Buffer.from(entry.hash), entry.encode());
      });
    }
    this.byHash.set(entry.hashHex, entry);
    this.linkData(entry);
    this.considerCandidate(entry);
    return entry;
  }

  /** Records that `e`'s block is stored, and links the waiting descendants it completes. */
  private linkData(e: BlockIndexEntry): void {
    if (e.prev && !this.linked.has(e.prev)) {
      const waiting = this.unlinked.get(e.prev);
      if (waiting) waiting.push(e);
      else this.unlinked.set(e.prev, [e]);
      return;
    }
    const stack = [e];
    while (stack.length > 0) {
      const next = stack.pop()!;
      this.linked.add(next);
      this.considerCandidate(next);
      const children = this.unlinked.get(next);
      if (children) {
        this.unlinked.delete(next);
        stack.push(...children);
      }
    }
  }

  private considerCandidate(e: BlockIndexEntry): void {
    if (this.bestHeaderEntry && !e.isFailed() && betterTip(e, this.bestHeaderEntry)) this.bestHeaderEntry = e;
    if (this.linked.has(e) && !e.isFailed() && betterTip(e, this.tip)) this.candidates.add(e);
  }

  private bestCandidate(): BlockIndexEntry | undefined {
    let best: BlockIndexEntry | undefined;
    for (const e of this.candidates) {
      if (e.isFailed() || !betterTip(e, this.tip)) {
        this.candidates.delete(e);
        continue;
      }
      if (!best || betterTip(e, best)) best = e;
    }
    return best;
  }

  /**
   * Core's ActivateBestChain: move the tip to the most-work valid block, reorganizing as needed.
   * `accepted` is a block just read and decoded, connected as it is when its turn comes.
   */
  private async activateBestChain(startTip = this.tip, accepted?: ReadBlock): Promise<void> {
    for (;;) {
      const best = this.bestCandidate();
      if (!best) break;
      const fork = findFork(this.tip, best);
      while (this.tip !== fork) this.disconnectTip();
      const path: BlockIndexEntry[] = [];
      for (let e: BlockIndexEntry | null = best; e && e !== fork; e = e.prev) path.push(e);
      path.reverse();
      for (let i = 0; i < path.length; i++) {
        const e = path[i];
        const following = path[i + 1];
        const readNext = following ? () => this.readStored(following) : (this.readAhead ?? (() => this.waiting.get(e.hashHex) ?? null));
        if (!(await this.connectTip(e, accepted?.hashHex === e.hashHex ? accepted : undefined, readNext))) break;
      }
    }
    // A failed block can leave the tip short of the best header with coins still unwritten.
    if (!this.catchingUp(this.tip)) this.flushCoins(this.tip, true);
    if (this.tip !== startTip) this.events.emit('tip', this.tip);
  }

  /**
   * Connects `entry`'s block to the tip. `readNext` reads the block expected to follow it, which
   * is planned while this one's scripts are checked (a lookahead).
   */
  private async connectTip(entry: BlockIndexEntry, decoded?: ReadBlock, readNext?: (() => ReadBlock | null) | null): Promise<boolean> {
    const started = performance.now();
    const ahead = await this.takeLookahead(entry);
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
    if (next) await this.planAhead(entry, plan, next);
    const aheadPlanned = performance.now();
    const scriptFailure = await checks.finish();
    const verified = performance.now();
    if (scriptFailure) {
      await this.dropLookahead();
      this.markFailed(
        entry,
        new ValidationError(describeScriptFailure(scriptFailure), `tx ${block.txs[scriptFailure.txIndex].txidHex} input ${scriptFailure.input}`),
      );
      return false;
    }
    entry.status |= BlockStatus.VALID_SCRIPTS;
    const t = this.db.tables;
    const writeCoins = !this.catchingUp(entry) || this.coinsCache.full;
    // A large cache (the end of a sync, or a full one) goes to the writer thread after this block's
    // records commit; a small one (each block at the tip) is written with them.
    const background = writeCoins && this.coinsCache.size >= this.backgroundWriteCoins;
    const writeRecords = this.recordsWriter(entry, encodeUndo(plan.undo), opoi);
    // The next block's OPoI rules read the stored OPoI state, so a block that changed it commits.
    if (this.reindexing && !writeCoins && opoi.empty && this.pendingWrites.length < REINDEX_COMMIT_BLOCKS) {
      this.pendingWrites.push(writeRecords);
    } else {
      if (writeCoins && !background) this.coinsWriter.settle();
      this.db.write(() => {
        this.writePending();
        if (writeCoins && !background) {
          // The batch first: this block's changes go on top of the blocks before it.
          this.coinsCache.write();
          for (const id of plan.spent) t.coins.remove(Buffer.from(id, 'latin1'));
          for (const [id, coin] of plan.created) t.coins.put(Buffer.from(id, 'latin1'), encodeCoin(coin));
          this.db.putMeta(COINS_KEY, Buffer.from(entry.hash));
        }
        writeRecords();
      });
    }
    // Only once the transaction committed: a failed write leaves the cache as the table's companion.
    if (writeCoins && !background) this.coinsCache.clear();
    else {
      for (const id of plan.spent) this.coinsCache.spend(id);
      for (const [id, coin] of plan.created) this.coinsCache.add(id, coin);
    }
    if (background) this.flushCoins(entry, true);
    const written = performance.now();
    this.active[entry.height] = entry;
    this.active.length = entry.height + 1;
    this.candidates.delete(entry);
    const inputs = plan.undo.reduce((n, spent) => n + spent.length, 0);
    // A block planned ahead counts that planning in its own plan phase, not in its parent's scripts.
    const planSeconds = (planned - started) / 1000 + (ahead?.planSeconds ?? 0);
    const timing: ConnectTiming = {
      inputs,
      seconds: planSeconds + (verified - aheadPlanned) / 1000 + (written - verified) / 1000,
      phases: { plan: planSeconds, scripts: (verified - aheadPlanned) / 1000, write: (written - verified) / 1000 },
      plannedAhead: ahead !== null,
    };
    if (entry.height % 1000 === 0) this.log.info({ height: entry.height, hash: entry.hashHex }, 'connected block');
    const ms = (s: number) => Math.round(s * 1e6) / 1000;
    this.log.debug(
      {
        height: entry.height,
        inputs,
        ms: ms(timing.seconds),
        planMs: ms(timing.phases.plan),
        scriptsMs: ms(timing.phases.scripts),
        writeMs: ms(timing.phases.write),
        plannedAhead: timing.plannedAhead,
      },
      'connect timing',
    );
    this.events.emit('connect', { block, entry, undo: plan.undo, opoi: opoi.events, timing });
    return true;
  }

  /**
   * Writes the records of a connected block: its undo data, OPoI changes, index entry and the tip.
   * Made apart from connectTip, whose closures share one context with everything it decoded: a
   * writer held for the next batched commit keeps alive only what it writes.
   */
  private recordsWriter(entry: BlockIndexEntry, undo: Buffer, opoi: OpoiBlockChanges): () => void {
    const index = entry.encode();
    return () => {
      const t = this.db.tables;
      t.undo.put(Buffer.from(entry.hash), undo);
      opoi.write(entry.hash);
      t.index.put(Buffer.from(entry.hash), index);
      this.db.putMeta(TIP_KEY, Buffer.from(entry.hash));
    };
  }

  /**
   * The lookahead planned for `entry`, if it is the one planned on top of the tip; any other is
   * dropped, its script checks abandoned.
   */
  private async takeLookahead(entry: BlockIndexEntry): Promise<Lookahead | null> {
    const ahead = this.lookahead;
    if (!ahead) return null;
    this.lookahead = null;
    // The same hash means the same parent entry: the tip check covers both.
    const same = ahead.hashHex === entry.hashHex && (!ahead.unchecked || ahead.block === this.processing);
    if (same && ahead.parent === this.tip) return ahead;
    await ahead.checks.abort();
    return null;
  }

  private async dropLookahead(): Promise<void> {
    const ahead = this.lookahead;
    this.lookahead = null;
    await ahead?.checks.abort();
  }

  /**
   * Plans `next` on top of `entry` (being connected, with `plan`) and hands its inputs to the
   * script threads. A block that fails a rule here is left alone: it fails again, and is marked
   * failed, when it is connected for real.
   */
  private async planAhead(entry: BlockIndexEntry, plan: ConnectPlan, next: ReadBlock): Promise<void> {
    const started = performance.now();
    if (hashToHex(next.block.header.prevHash) !== entry.hashHex) return;
    const checks = this.verifier.session(next.raw, MANDATORY_SCRIPT_VERIFY_FLAGS);
    try {
      const place = { height: entry.height + 1, prev: entry };
      const coins = new PlannedCoins(plan, this);
      const nextPlan = planConnect(next.block, place, coins, this.params, MANDATORY_SCRIPT_VERIFY_FLAGS, (tx, t, spent) => checks.add(tx, t, spent));
      checks.flush();
      this.lookahead = { ...next, parent: entry, plan: nextPlan, checks, planSeconds: (performance.now() - started) / 1000 };
    } catch (e) {
      await checks.abort();
      if (!(e instanceof ValidationError)) throw e;
    }
  }

  /** A stored block, decoded (for a lookahead); null when it is not stored. */
  private readStored(e: BlockIndexEntry): ReadBlock | null {
    const raw = this.readRawBlock(e);
    return raw ? { hashHex: e.hashHex, raw, block: Block.decode(raw) } : null;
  }

  private disconnectTip(): void {
    void this.dropLookahead();
    const entry = this.tip;
    if (!entry.prev) throw new Error('cannot disconnect the genesis block');
    // The undo data is read back and restores coins in the table: both must first be at this tip.
    this.flushCoins();
    const block = this.readBlock(entry);
    const rawUndo = readLarge(this.db.tables.undo, Buffer.from(entry.hash));
    if (!block || !rawUndo) throw new Error(`block ${entry.hashHex} cannot be disconnected: its data or undo data is missing`);
    const undo = decodeUndo(rawUndo);
    const t = this.db.tables;
    const opoi = this.db.write(() => {
      // Reverse order, so an output created and spent inside the block ends up absent.
      for (let i = block.txs.length - 1; i >= 0; i--) {
        const tx = block.txs[i];
        tx.outputs.forEach((out, vout) => {
          if (!isUnspendable(out.scriptPubKey)) t.coins.remove(coinKey({ txid: tx.txid, vout }));
        });
        if (i === 0) continue;
        const spent = undo[i - 1];
        tx.inputs.forEach((input, j) => t.coins.put(coinKey(input.prevout), encodeCoin(spent[j])));
      }
      t.undo.remove(Buffer.from(entry.hash));
      this.db.putMeta(TIP_KEY, Buffer.from(entry.prev!.hash));
      this.db.putMeta(COINS_KEY, Buffer.from(entry.prev!.hash));
      return this.opoi.disconnectBlock(entry.hash);
    });
    this.active.length = entry.height;
    // A disconnected block can become the tip again (e.g. after reconsiderblock elsewhere).
    this.considerCandidate(entry);
    this.events.emit('disconnect', { block, entry, undo, opoi });
  }

  /** Marks a block invalid and every descendant as having an invalid ancestor (persisted). */
  private markFailed(entry: BlockIndexEntry, err: ValidationError): void {
    this.log.warn({ hash: entry.hashHex, height: entry.height, reason: err.reason, debug: err.debug }, 'block failed to connect');
    this.connectFailures.set(entry, err);
    this.setFailure(entry);
  }

  private setFailure(entry: BlockIndexEntry): void {
    entry.status |= BlockStatus.FAILED_VALID;
    const changed = [entry];
    for (const e of this.descendants(entry)) {
      if (e.status & FAILED_MASK) continue;
      e.status |= BlockStatus.FAILED_CHILD;
      changed.push(e);
    }
    this.db.write(() => {
      for (const e of changed) this.db.tables.index.put(Buffer.from(e.hash), e.encode());
    });
    for (const e of changed) this.candidates.delete(e);
  }

  /** invalidateblock: treat the block as invalid, leaving the active chain if it is on it. */
  invalidateBlock(hashHex: string): Promise<void> {
    return this.enqueue(async () => {
      const entry = this.requireEntry(hashHex);
      if (entry.height === 0) throw new ValidationError('genesis', 'the genesis block cannot be invalidated');
      const startTip = this.tip;
      while (this.contains(entry)) this.disconnectTip();
      this.setFailure(entry);
      // With the tip lowered, other branches (less work than the old tip) may now be the best.
      for (const e of this.byHash.values()) this.considerCandidate(e);
      await this.activateBestChain(startTip);
    });
  }

  /** reconsiderblock: clear failure marks of the block, its ancestors and its descendants. */
  reconsiderBlock(hashHex: string): Promise<void> {
    return this.enqueue(async () => {
      const entry = this.requireEntry(hashHex);
      const changed: BlockIndexEntry[] = [];
      const related: BlockIndexEntry[] = [...this.descendants(entry)];
      for (let e: BlockIndexEntry | null = entry; e; e = e.prev) related.push(e);
      for (const e of related) {
        if (e.status & FAILED_MASK) {
          e.status &= ~FAILED_MASK;
          changed.push(e);
        }
      }
      this.db.write(() => {
        for (const e of changed) this.db.tables.index.put(Buffer.from(e.hash), e.encode());
      });
      for (const e of this.byHash.values()) this.considerCandidate(e);
      await this.activateBestChain();
    });
  }

  /** Every entry that has `entry` as a proper ancestor. */
  private descendants(entry: BlockIndexEntry): BlockIndexEntry[] {
    const children = new Map<BlockIndexEntry, BlockIndexEntry[]>();
    for (const e of this.byHash.values()) {
      if (!e.prev || e.height <= entry.height) continue;
      const list = children.get(e.prev);
      if (list) list.push(e);
      else children.set(e.prev, [e]);
    }
    const out: BlockIndexEntry[] = [];
    const stack = [entry];
    while (stack.length) {
      for (const child of children.get(stack.pop()!) ?? []) {
        out.push(child);
        stack.push(child);
      }
    }
    return out;
  }

  private requireEntry(hashHex: string): BlockIndexEntry {
    const e = this.byHash.get(hashHex);
    if (!e) throw new ValidationError('block-not-found', 'Block not found');
    return e;
  }

  private setActive(tip: BlockIndexEntry): void {
    const chain: BlockIndexEntry[] = new Array(tip.height + 1);
    for (let e: BlockIndexEntry | null = tip; e; e = e.prev) chain[e.height] = e;
    this.active = chain;
  }

  /**
   * Whether the coins of a block connected as `entry` may wait in the cache: during -reindex, or
   * while more blocks are known to follow (a sync). At the tip every block writes its coins.
   */
  private catchingUp(entry: BlockIndexEntry): boolean {
    return this.reindexing || this.bestHeader !== entry;
  }

  /** Puts the records of blocks whose commit was deferred; inside a write transaction. */
  private writePending(): void {
    for (const write of this.pendingWrites) write();
    this.pendingWrites.length = 0;
  }

  /**
   * Writes the cached UTXO changes (and any deferred block records), recording that the table now
   * reflects `at`.
   */
  private flushCoins(at: BlockIndexEntry = this.tip, background = false): void {
    // A caller that goes on to read or change the table needs the batch in flight landed; one that
    // lets the writer thread write does not wait for it, even with nothing to write.
    if (!background) this.coinsWriter.settle();
    if (this.coinsCache.size === 0 && this.pendingWrites.length === 0) return;
    // Nothing is written over the batch in flight; a batch that failed comes back to be written now.
    this.coinsWriter.settle();
    const started = performance.now();
    const coins = this.coinsCache.size;
    if (background && coins >= this.backgroundWriteCoins) {
      // Deferred block records commit first, so that the stored UTXO set never runs ahead of them.
      if (this.pendingWrites.length > 0) this.db.write(() => this.writePending());
      this.coinsWriter.start(this.coinsCache.detach(), { key: COINS_KEY, value: at.hash }, at.height);
      this.log.debug({ coins, height: at.height }, 'writing the coins cache on the writer thread');
      return;
    }
    this.db.write(() => {
      this.writePending();
      this.coinsCache.write();
      this.db.putMeta(COINS_KEY, Buffer.from(at.hash));
    });
    this.coinsCache.clear();
    this.logCoinsWritten({ coins, height: at.height, ms: Math.round(performance.now() - started) });
  }

  private logCoinsWritten(fields: { coins: number; height: number; ms: number; thread?: 'writer' }): void {
    // A large write is a pause an operator may notice; small ones happen with every block at the tip.
    if (fields.coins >= 100_000) this.log.info(fields, 'coins cache written');
    else this.log.debug(fields, 'coins cache written');
  }

  /**
   * At load: the stored UTXO set reflects the block in `coins`, the tip or (after a crash while
   * catching up) an ancestor of it. The blocks between are applied to it again, without their
   * checks: they were fully validated when they connected, and their undo data is stored.
   */
  private catchUpCoins(): void {
    const at = this.db.getMeta(COINS_KEY);
    // A database from before the cache wrote coins with every block.
    if (!at) {
      this.db.write(() => this.db.putMeta(COINS_KEY, Buffer.from(this.tip.hash)));
      return;
    }
    const from = this.byHash.get(hashToHex(at));
    if (from === this.tip) return;
    if (!from || !this.contains(from)) {
      throw new Error(`the UTXO set in ${this.db.path} was written at block ${hashToHex(at)}, which is not on the active chain; run with -reindex`);
    }
    this.log.info({ from: from.height, to: this.height }, 'replaying blocks into the UTXO set after an unclean shutdown');
    for (let height = from.height + 1; height <= this.height; height++) {
      const entry = this.active[height];
      const block = this.readBlock(entry);
      if (!block) throw new Error(`block ${entry.hashHex} is on the active chain but missing from the database; run with -reindex`);
      for (const tx of block.txs) {
        const coinbase = tx.isCoinbase();
        if (!coinbase) for (const input of tx.inputs) this.coinsCache.spend(latin1(coinKey(input.prevout)));
        tx.outputs.forEach((out, vout) => {
          if (!isUnspendable(out.scriptPubKey)) this.coinsCache.add(latin1(coinKey({ txid: tx.txid, vout })), coinFromOutput(out, height, coinbase));
        });
      }
      if (this.coinsCache.full) this.flushCoins(entry);
    }
    this.flushCoins();
  }

  /** A batch of coins from `flushCoins` landed, or failed and is cached again to be written later. */
  private coinsWritten({ coins, height, ms, error }: WriteOutcome): void {
    if (error !== null) {
      this.coinsCache.restore();
      this.log.error({ coins, height, err: error }, 'writing the coins cache failed; it is kept and written again');
      return;
    }
    this.coinsCache.written();
    this.db.resetReadTxn();
    this.logCoinsWritten({ coins, height, ms, thread: 'writer' });
  }

  /**
   * Stops the threads without writing anything more, as if the process were killed once the batch
   * in flight (if any) committed: for tests of what a crash leaves.
   */
  async halt(): Promise<void> {
    await this.coinsWriter.close();
    await this.verifier.close();
  }

  /** Waits for queued mutations, writes the coins cache, then stops the script workers and the writer thread. */
  async close(): Promise<void> {
    await this.queue;
    await this.dropLookahead();
    this.flushCoins();
    await this.coinsWriter.close();
    await this.verifier.close();
  }
}
