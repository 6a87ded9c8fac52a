import type { Logger } from 'pino';
import { Block, BlockHeader, Reader, hashToHex } from '@cs/consensus';
import { type Table, readLarge } from '../storage/database.ts';
import type { ReadBlock } from './lookahead.ts';

/** How long -reindex runs before giving the event loop a turn (RPC warmup answers, signals). */
const REINDEX_YIELD_MS = 20;
/** How often -reindex logs its progress. */
const PROGRESS_LOG_MS = 5000;

export interface ReindexRun {
  /** Connects a stored block; answers false when it was rejected, so its descendants are not offered. */
  readonly connect: (block: ReadBlock) => Promise<boolean>;
  /** The active chain's height, for the progress log. */
  readonly height: () => number;
  readonly log: Logger;
  /** Aborts between two blocks. */
  readonly stop?: AbortSignal;
}

/**
 * Offers every block of `order` to `run.connect`, logging progress. The event loop gets a turn
 * every few milliseconds, so RPC keeps answering (-28 while warming up) and signals are seen.
 * Answers the blocks done, genesis included, or null when stopped.
 */
export async function connectStoredBlocks(order: ReindexOrder, run: ReindexRun): Promise<number | null> {
  const total = order.total;
  let done = 1;
  let lastLog = Date.now();
  let lastYield = performance.now();
  while (order.hasNext()) {
    if (performance.now() - lastYield > REINDEX_YIELD_MS) {
      await new Promise((resolve) => setImmediate(resolve));
      lastYield = performance.now();
      if (run.stop?.aborted) {
        run.log.info({ blocks: done, of: total, height: run.height() }, 'reindex interrupted; it runs again at the next start');
        return null;
      }
    }
    const current = order.next();
    if (!current) continue;
    if (await run.connect(current)) order.connected(current.hashHex);
    done++;
    if (Date.now() - lastLog > PROGRESS_LOG_MS) {
      lastLog = Date.now();
      run.log.info({ progress: `${((100 * done) / total).toFixed(1)}%`, blocks: done, of: total, height: run.height() }, 'reindexing');
    }
  }
  return done;
}

/**
 * The stored blocks in the order -reindex connects them: breadth first from genesis, so every
 * block comes after its parent, each read and decoded once. While one block's scripts are checked,
 * the one most likely to follow it can be read ahead.
 */
export class ReindexOrder {
  /** Block hash → its key in the blocks table. */
  private readonly keys = new Map<string, Uint8Array>();
  private readonly children = new Map<string, string[]>();
  /** Walked with a read cursor instead of shift(), which would make a long chain quadratic. */
  private readonly queue: string[];
  private cursor = 0;
  private current = '';
  private prefetched: ReadBlock | null = null;

  constructor(
    private readonly blocks: Table,
    genesisHex: string,
  ) {
    for (const key of blocks.getKeys({})) {
      // The header is the block's prefix, read in place (the view lasts until the next read): the
      // first pass copies no block, where reading the values would copy every stored block once.
      const header = BlockHeader.read(new Reader(blocks.getBinaryFast(key)!));
      this.keys.set(header.hashHex, key);
      const prev = hashToHex(header.prevHash);
      const list = this.children.get(prev);
      if (list) list.push(header.hashHex);
      else this.children.set(prev, [header.hashHex]);
    }
    this.queue = [...(this.children.get(genesisHex) ?? [])];
  }

  /** Every stored block, genesis included. */
  get total(): number {
    return this.keys.size;
  }

  hasNext(): boolean {
    return this.cursor < this.queue.length;
  }

  /** The next block in the order, read (or taken from the read-ahead); null when it cannot be read. */
  next(): ReadBlock | null {
    const hashHex = this.queue[this.cursor++];
    this.current = hashHex;
    return this.prefetched?.hashHex === hashHex ? this.prefetched : this.read(hashHex);
  }

  /** The block last taken connected: its children follow it. */
  connected(hashHex: string): void {
    this.queue.push(...(this.children.get(hashHex) ?? []));
  }

  /** Reads the block most likely to follow the one last taken: a sibling already queued, or else its first child. */
  readAhead(): ReadBlock | null {
    const likely = this.queue[this.cursor] ?? this.children.get(this.current)?.[0];
    this.prefetched = likely === undefined ? null : this.read(likely);
    return this.prefetched;
  }

  private read(hashHex: string): ReadBlock | null {
    const raw = readLarge(this.blocks, Buffer.from(this.keys.get(hashHex)!));
    if (!raw) return null;
    const block = Block.decode(raw);
    // The transaction hashes are the bulk of the block's own checks; they are cached once made.
    for (const tx of block.txs) {
      void tx.txid;
      void tx.wtxid;
    }
    return { hashHex, raw, block };
  }
}
