/**
 * Keeps an optional index (transactions, addresses) in step with the active chain, as Core's
 * BaseIndex does: the index stores, beside its records, a marker naming the last block it covers,
 * and every change to the records is written in the same database transaction as the marker. So
 * whatever happens (a kill at any moment, the index switched off for a while, a reorg it missed),
 * at the next start the marker says exactly what the records contain, and the index walks from
 * there to the active tip: back along its own branch while the marker is off the active chain,
 * then forward.
 *
 * Two drivers move the marker, never both at once:
 * - the chain's connect/disconnect events, applied on the spot while the marker is at the tip
 *   (one transaction per block, before anything else can read the chain);
 * - a background loop, started when the marker is elsewhere (a fresh index on an existing chain,
 *   a restart after blocks connected without it, an event that did not fit). It writes a few
 *   blocks per transaction, yields to the event loop between transactions so RPC and REST keep
 *   answering, and logs its progress.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Logger } from 'pino';
import { hashToHex, type Block } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Chain } from '../chain/chainstate.ts';
import type { ChainBlockEvent } from '../chain/events.ts';
import type { BlockUndo } from '../chain/undo.ts';
import type { ChainDatabase } from '../storage/database.ts';

/** What one index stores per block. Both methods run inside the write transaction that also moves the marker. */
export interface BlockIndexer {
  /** Adds the records of a block joining the active chain. `spent` gives the coins its transactions spent (read on demand). */
  connect(block: Block, entry: BlockIndexEntry, spent: () => BlockUndo): void;
  /** Removes what `connect` added for this block. */
  disconnect(block: Block, entry: BlockIndexEntry): void;
  /** Drops every record (the marker names a block the chain does not know: nothing can be undone). */
  clear(): void;
}

export interface IndexProgress {
  /** Height of the last block the index covers. */
  readonly height: number;
  /** Height of the active chain's tip. */
  readonly tipHeight: number;
  /** Whether the index covers exactly the active chain. */
  readonly synced: boolean;
}

export interface IndexSyncOptions {
  /** Names the index in logs; also its marker's key in the meta table. */
  readonly name: string;
  readonly db: ChainDatabase;
  readonly chain: Chain;
  readonly indexer: BlockIndexer;
  readonly log: Logger;
  /**
   * The format of the index's records, bumped when it changes (1 when omitted, as for indexes
   * older than the field). Stored under `<name>.version` in the meta table; records of another
   * version are dropped at start and rebuilt from genesis in the background.
   */
  readonly version?: number;
}

/** How long the background loop may hold the event loop (and one write transaction). */
const BATCH_MS = 50;
/** Blocks per transaction at most, so one transaction stays small whatever the blocks' size. */
const BATCH_BLOCKS = 500;
/** How often the background loop logs its progress. */
const PROGRESS_LOG_MS = 5_000;

export class IndexSync {
  readonly #name: string;
  readonly #db: ChainDatabase;
  readonly #chain: Chain;
  readonly #indexer: BlockIndexer;
  readonly #log: Logger;
  readonly #version: number;
  /** The last block the stored records cover; null until start(). */
  #marker: BlockIndexEntry | null = null;
  /** Whether the background loop runs; the events leave the index alone meanwhile. */
  #running = false;
  /** The background loop's last run, for close() to wait on. */
  #loop: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(options: IndexSyncOptions) {
    this.#name = options.name;
    this.#db = options.db;
    this.#chain = options.chain;
    this.#indexer = options.indexer;
    this.#log = options.log;
    this.#version = options.version ?? 1;
  }

  /** Reads the marker, follows the chain's events from now on, and catches up in the background. Call after the chain has loaded. */
  start(): void {
    this.#checkVersion();
    this.#marker = this.#readMarker();
    this.#chain.events.on('connect', this.#onConnect);
    this.#chain.events.on('disconnect', this.#onDisconnect);
    if (this.#marker !== this.#chain.tip) {
      this.#log.info({ index: this.#name, height: this.#marker.height, tipHeight: this.#chain.height }, 'index syncing in the background');
    }
    this.#kick();
  }

  progress(): IndexProgress {
    const tipHeight = this.#chain.height;
    const marker = this.#marker;
    if (marker === null) return { height: 0, tipHeight, synced: false };
    return { height: marker.height, tipHeight, synced: !this.#running && marker === this.#chain.tip };
  }

  /** Stops following the chain and waits for the background loop to finish its current transaction. */
  async close(): Promise<void> {
    this.#closed = true;
    this.#chain.events.off('connect', this.#onConnect);
    this.#chain.events.off('disconnect', this.#onDisconnect);
    await this.#loop;
  }

  /** Drops records written in another format, so that the sync rebuilds them from genesis. */
  #checkVersion(): void {
    const key = `${this.#name}.version`;
    const stored = this.#db.getMeta(key);
    const found = stored === undefined ? 1 : Number(stored.toString());
    if (found === this.#version) return;
    if (this.#db.getMeta(this.#name) !== undefined) {
      this.#log.warn({ index: this.#name, from: found, to: this.#version }, 'index format changed: rebuilding the index from genesis');
      this.#indexer.clear();
    }
    // After the records are gone: a kill before this write finds the old version again and
    // clears again.
    this.#db.write(() => {
      this.#db.tables.meta.remove(Buffer.from(this.#name));
      this.#db.putMeta(key, Buffer.from(String(this.#version)));
    });
  }

  #readMarker(): BlockIndexEntry {
    const genesis = this.#chain.atHeight(0)!;
    const stored = this.#db.getMeta(this.#name);
    if (stored === undefined) return genesis;
    const entry = this.#chain.entry(hashToHex(stored));
    if (entry !== undefined) return entry;
    // Only a database edited by hand gets here (-reindex drops the markers with the records):
    // without the block, its records cannot be taken out one by one, so the index starts over.
    this.#log.warn({ index: this.#name }, 'index marker names an unknown block: rebuilding the index from genesis');
    this.#indexer.clear();
    this.#db.write(() => this.#db.tables.meta.remove(Buffer.from(this.#name)));
    return genesis;
  }

  // Chain events arrive after the chain has committed the block, synchronously, so nothing can
  // read the index between the chain's change and the index's.
  readonly #onConnect = ({ block, entry, undo }: ChainBlockEvent): void => {
    if (this.#running) return;
    if (entry.prev !== this.#marker) return this.#kick();
    this.#write(() => this.#indexer.connect(block, entry, () => undo), entry);
  };

  readonly #onDisconnect = ({ block, entry }: ChainBlockEvent): void => {
    if (this.#running) return;
    if (entry !== this.#marker) return this.#kick();
    this.#write(() => this.#indexer.disconnect(block, entry), entry.prev!);
  };

  /** Runs `change` and moves the marker to `marker`, in one transaction. */
  #write(change: () => void, marker: BlockIndexEntry): void {
    this.#db.write(() => {
      change();
      this.#db.putMeta(this.#name, Buffer.from(marker.hash));
    });
    this.#marker = marker;
  }

  #kick(): void {
    if (this.#running || this.#closed) return;
    this.#running = true;
    this.#loop = this.#catchUp();
  }

  async #catchUp(): Promise<void> {
    const started = Date.now();
    const from = this.#marker!.height;
    let lastLog = started;
    let moved = false;
    try {
      // Never run a batch inside the caller (start() or a chain event): it returns at once.
      await yieldToEventLoop();
      // `#running` is cleared in the same synchronous run as the last check against the tip, so
      // a chain event can never find the loop finished but still marked as running.
      while (!this.#closed && this.#batch()) {
        moved = true;
        if (Date.now() - lastLog >= PROGRESS_LOG_MS) {
          lastLog = Date.now();
          const { height, tipHeight } = this.progress();
          this.#log.info(
            { index: this.#name, height, tipHeight, progress: `${((100 * height) / Math.max(1, tipHeight)).toFixed(1)}%` },
            'index syncing',
          );
        }
        await yieldToEventLoop();
      }
      this.#running = false;
    } catch (err) {
      this.#running = false;
      // The marker still matches the records (the failed transaction left nothing); the next
      // chain event tries again.
      this.#log.error({ err, index: this.#name }, 'index sync failed');
      return;
    }
    if (moved && !this.#closed) {
      this.#log.info({ index: this.#name, height: this.#marker!.height, from, seconds: Math.round((Date.now() - started) / 1000) }, 'index synced');
    }
  }

  /**
   * One transaction of the background loop: steps the marker towards the active tip for up to
   * BATCH_MS or BATCH_BLOCKS. Returns false, having done nothing, when the marker is at the tip.
   */
  #batch(): boolean {
    if (this.#marker === this.#chain.tip) return false;
    const deadline = performance.now() + BATCH_MS;
    let marker = this.#marker!;
    this.#db.write(() => {
      for (let n = 0; n < BATCH_BLOCKS && marker !== this.#chain.tip && performance.now() < deadline; n++) {
        marker = this.#step(marker);
      }
      this.#db.putMeta(this.#name, Buffer.from(marker.hash));
    });
    this.#marker = marker;
    return true;
  }

  /** One block towards the tip: back out of a branch the chain left, else the next active block. */
  #step(marker: BlockIndexEntry): BlockIndexEntry {
    const chain = this.#chain;
    if (!chain.contains(marker)) {
      this.#indexer.disconnect(this.#readBlock(marker), marker);
      return marker.prev!;
    }
    const next = chain.atHeight(marker.height + 1)!;
    const undo = () => {
      const spent = chain.readUndo(next);
      if (spent === undefined) throw new Error(`undo data of active block ${next.hashHex} is missing`);
      return spent;
    };
    this.#indexer.connect(this.#readBlock(next), next, undo);
    return next;
  }

  #readBlock(entry: BlockIndexEntry): Block {
    const block = this.#chain.readBlock(entry);
    if (block === undefined) throw new Error(`block ${entry.hashHex} is missing from the database`);
    return block;
  }
}
