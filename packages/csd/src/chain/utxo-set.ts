import type { Logger } from 'pino';
import { type Block, hashToHex, isUnspendable } from '@cs/consensus';
import type { ChainDatabase } from '../storage/database.ts';
import type { ActiveChain } from './active-chain.ts';
import type { BlockIndexEntry } from './block-index.ts';
import { coinFromOutput, coinKey, decodeCoin, encodeCoin, latin1, type Coin } from './coins.ts';
import { CoinsCache } from './coins-cache.ts';
import { CoinsWriter, type WriteOutcome } from './coins-writer.ts';
import type { ConnectPlan } from './connect.ts';
import type { BlockUndo } from './undo.ts';

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

export interface UtxoSetOptions {
  /** Memory the unwritten UTXO changes may hold while catching up (-dbcache); 450 MiB when absent. */
  readonly cacheBytes?: number;
  /** The fewest cached coins written on a thread of their own rather than this one; 10,000 when absent. */
  readonly backgroundWriteCoins?: number;
}

/** How a connected block's coins and records are written. */
export interface ConnectWrite {
  /** The chain is catching up (-reindex, or blocks behind the best header): the coins may wait in the cache. */
  readonly catchingUp: boolean;
  /** The block's records may wait for a later block's commit (-reindex, when nothing reads them sooner). */
  readonly mayDefer: boolean;
}

/**
 * The UTXO set behind the active chain: the coin table, the cache of changes not yet written to
 * it, and the thread that writes large batches of them. It also keeps the block records whose
 * commit -reindex defers, because those must land no later than the coins that reflect them: a
 * stored UTXO set ahead of the stored tip could not be replayed.
 */
export class UtxoSet {
  private readonly cache: CoinsCache;
  private readonly writer: CoinsWriter;
  private readonly backgroundWriteCoins: number;
  /** -reindex: connected blocks' records not yet committed, in connect order. */
  private readonly pendingWrites: (() => void)[] = [];

  constructor(
    private readonly db: ChainDatabase,
    private readonly log: Logger,
    opts: UtxoSetOptions,
  ) {
    this.cache = new CoinsCache(db.tables.coins, opts.cacheBytes ?? DEFAULT_COINS_CACHE_BYTES);
    this.writer = new CoinsWriter(db.path, (outcome) => this.written(outcome), db.role);
    this.backgroundWriteCoins = opts.backgroundWriteCoins ?? DEFAULT_BACKGROUND_WRITE_COINS;
  }

  /** The coin stored under a coinKey. */
  get(key: Uint8Array): Coin | undefined {
    return this.cache.get(key);
  }

  /** The unwritten UTXO changes (the coins cache), for /metrics. */
  get cacheUsage(): { readonly coins: number; readonly bytes: number } {
    return { coins: this.cache.size, bytes: this.cache.bytes };
  }

  /**
   * Every coin, in key order, as of the moment of the first step: the walk reads one database
   * snapshot however long it takes and whatever connects meanwhile. `at` is the tip.
   */
  *all(at: BlockIndexEntry): Generator<{ key: Buffer; coin: Coin }> {
    this.flush(at);
    for (const { key, value } of this.db.tables.coins.getRange({})) yield { key, coin: decodeCoin(value) };
  }

  /** Records that the stored table reflects `at`; inside a write transaction. */
  markStoredAt(at: BlockIndexEntry): void {
    this.db.putMeta(COINS_KEY, Buffer.from(at.hash));
  }

  /**
   * Applies the coins of a block connected as `entry`, and commits its records (`writeRecords`,
   * run inside a write transaction) with them or, during -reindex, with a later block's.
   */
  connect(entry: BlockIndexEntry, plan: ConnectPlan, writeRecords: () => void, how: ConnectWrite): void {
    const t = this.db.tables;
    const writeCoins = !how.catchingUp || this.cache.full;
    // A large cache (the end of a sync, or a full one) goes to the writer thread after this block's
    // records commit; a small one (each block at the tip) is written with them.
    const background = writeCoins && this.cache.size >= this.backgroundWriteCoins;
    if (how.mayDefer && !writeCoins && this.pendingWrites.length < REINDEX_COMMIT_BLOCKS) {
      this.pendingWrites.push(writeRecords);
    } else {
      if (writeCoins && !background) this.writer.settle();
      this.db.write(() => {
        this.writePending();
        if (writeCoins && !background) {
          // The batch first: this block's changes go on top of the blocks before it.
          this.cache.write();
          for (const id of plan.spent) t.coins.remove(Buffer.from(id, 'latin1'));
          for (const [id, coin] of plan.created) t.coins.put(Buffer.from(id, 'latin1'), encodeCoin(coin));
          this.markStoredAt(entry);
        }
        writeRecords();
      });
    }
    // Only once the transaction committed: a failed write leaves the cache as the table's companion.
    if (writeCoins && !background) this.cache.clear();
    else {
      for (const id of plan.spent) this.cache.spend(id);
      for (const [id, coin] of plan.created) this.cache.add(id, coin);
    }
    if (background) this.flush(entry, true);
  }

  /**
   * Restores the coins a block spent and removes those it created, in the table; inside the write
   * transaction that disconnects it, after a flush (the undo data is read back against the table).
   */
  disconnect(block: Block, undo: BlockUndo, prev: BlockIndexEntry): void {
    const t = this.db.tables;
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
    this.markStoredAt(prev);
  }

  /**
   * At load, once the active chain is read: the stored table reflects the block in `coins`, the tip
   * or (after a crash while catching up) an ancestor of it. The blocks between are applied to it
   * again, without their checks: they were fully validated when they connected, and their undo
   * data is stored.
   */
  catchUp(active: ActiveChain, entry: (hashHex: string) => BlockIndexEntry | undefined, readBlock: (e: BlockIndexEntry) => Block | undefined): void {
    const at = this.db.getMeta(COINS_KEY);
    // A database from before the cache wrote coins with every block.
    if (!at) {
      this.db.write(() => this.markStoredAt(active.tip));
      return;
    }
    const from = entry(hashToHex(at));
    if (from === active.tip) return;
    if (!from || !active.contains(from)) {
      throw new Error(`the UTXO set in ${this.db.path} was written at block ${hashToHex(at)}, which is not on the active chain; run with -reindex`);
    }
    this.log.info({ from: from.height, to: active.height }, 'replaying blocks into the UTXO set after an unclean shutdown');
    for (let height = from.height + 1; height <= active.height; height++) {
      const e = active.at(height)!;
      const block = readBlock(e);
      if (!block) throw new Error(`block ${e.hashHex} is on the active chain but missing from the database; run with -reindex`);
      this.replay(block, e);
    }
    this.flush(active.tip);
  }

  /** Applies a block to the cache as connecting it did, writing the cache when it fills. */
  private replay(block: Block, entry: BlockIndexEntry): void {
    const height = entry.height;
    for (const tx of block.txs) {
      const coinbase = tx.isCoinbase();
      if (!coinbase) for (const input of tx.inputs) this.cache.spend(latin1(coinKey(input.prevout)));
      tx.outputs.forEach((out, vout) => {
        if (!isUnspendable(out.scriptPubKey)) this.cache.add(latin1(coinKey({ txid: tx.txid, vout })), coinFromOutput(out, height, coinbase));
      });
    }
    if (this.cache.full) this.flush(entry);
  }

  /**
   * -reindex: drops the cached changes, then `clearDatabase` drops the table; the cache is sized
   * once for the set being rebuilt, which is about as large as the one stored.
   */
  reset(clearDatabase: () => void): void {
    // A batch still being written would land in the cleared table.
    this.writer.settle();
    this.cache.clear();
    const storedCoins = (this.db.tables.coins.getStats() as { entryCount: number }).entryCount;
    clearDatabase();
    this.cache.reserve(storedCoins);
  }

  /** Puts the records of blocks whose commit was deferred; inside a write transaction. */
  writePending(): void {
    for (const write of this.pendingWrites) write();
    this.pendingWrites.length = 0;
  }

  /**
   * Writes the cached UTXO changes (and any deferred block records), recording that the table now
   * reflects `at`.
   */
  flush(at: BlockIndexEntry, background = false): void {
    // A caller that goes on to read or change the table needs the batch in flight landed; one that
    // lets the writer thread write does not wait for it, even with nothing to write.
    if (!background) this.writer.settle();
    if (this.cache.size === 0 && this.pendingWrites.length === 0) return;
    // Nothing is written over the batch in flight; a batch that failed comes back to be written now.
    this.writer.settle();
    const started = performance.now();
    const coins = this.cache.size;
    if (background && coins >= this.backgroundWriteCoins) {
      // Deferred block records commit first, so that the stored UTXO set never runs ahead of them.
      if (this.pendingWrites.length > 0) this.db.write(() => this.writePending());
      this.writer.start(this.cache.detach(), { key: COINS_KEY, value: at.hash }, at.height);
      this.log.debug({ coins, height: at.height }, 'writing the coins cache on the writer thread');
      return;
    }
    this.db.write(() => {
      this.writePending();
      this.cache.write();
      this.markStoredAt(at);
    });
    this.cache.clear();
    this.logWritten({ coins, height: at.height, ms: Math.round(performance.now() - started) });
  }

  private logWritten(fields: { coins: number; height: number; ms: number; thread?: 'writer' }): void {
    // A large write is a pause an operator may notice; small ones happen with every block at the tip.
    if (fields.coins >= 100_000) this.log.info(fields, 'coins cache written');
    else this.log.debug(fields, 'coins cache written');
  }

  /** A batch of coins from `flush` landed, or failed and is cached again to be written later. */
  private written({ coins, height, ms, error }: WriteOutcome): void {
    if (error !== null) {
      this.cache.restore();
      this.log.error({ coins, height, err: error }, 'writing the coins cache failed; it is kept and written again');
      return;
    }
    this.cache.written();
    this.db.resetReadTxn();
    this.logWritten({ coins, height, ms, thread: 'writer' });
  }

  /** Stops the writer thread once the batch in flight (if any) committed, writing nothing more. */
  halt(): Promise<void> {
    return this.writer.close();
  }

  /** Writes the cache as of `at` (the tip), then stops the writer thread. */
  async close(at: BlockIndexEntry): Promise<void> {
    this.flush(at);
    await this.writer.close();
  }
}
