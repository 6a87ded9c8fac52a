/**
 * Reading blocks of the active chain for wallet transactions (Core's ScanForWalletTransactions):
 * at startup from the wallet's best block to the tip, and on request (rescanblockchain, imports).
 * Blocks are processed one at a time, each in its own write transaction, yielding to the event
 * loop between batches so that RPC keeps answering, `progress` can be polled and `abort` stops it.
 */
import type { Logger } from 'pino';
import type { Chain } from '../chain/chainstate.ts';
import { WalletError } from './errors.ts';
import type { WalletStore } from './store.ts';
import type { TxTracker } from './tracker.ts';

/** Blocks processed between two yields to the event loop. */
const BATCH = 50;
const LOG_EVERY_MS = 10_000;

export interface ScanProgress {
  readonly startedAt: number;
  /** 0..1 */
  readonly progress: number;
}

export class Rescanner {
  private running: { startedAt: number; from: number; to: number; at: number; aborting: boolean } | null = null;

  constructor(
    private readonly chain: Chain,
    private readonly store: WalletStore,
    private readonly tracker: TxTracker,
    private readonly log: Logger,
  ) {}

  /** The scan under way, for getwalletinfo's `scanning`. */
  get progress(): ScanProgress | null {
    const r = this.running;
    if (!r) return null;
    const span = r.to - r.from + 1;
    return { startedAt: r.startedAt, progress: span > 0 ? (r.at - r.from) / span : 1 };
  }

  /**
   * Asks the scan under way to stop after the block it is on (abortrescan, shutdown). False when
   * there is none, or it is already stopping.
   */
  abort(): boolean {
    if (!this.running || this.running.aborting) return false;
    this.running.aborting = true;
    return true;
  }

  /**
   * Scans heights `from`..`to` of the active chain (to the tip as it grows when `to` is null).
   * Returns the last height scanned; throws 'rescan-aborted' when `abort` stopped it (what was
   * scanned stays recorded). One scan at a time, as Core.
   */
  async scan(from: number, to: number | null): Promise<number> {
    if (this.running) throw new WalletError('wallet', 'Wallet is currently rescanning. Abort existing rescan or wait.');
    const run = { startedAt: Date.now(), from, to: to ?? this.chain.height, at: from, aborting: false };
    this.running = run;
    let lastLog = Date.now();
    let last = from - 1;
    try {
      for (let height = from; height <= (to ?? this.chain.height); height++) {
        if (run.aborting) {
          this.log.info({ height, progress: `${(100 * (this.progress?.progress ?? 1)).toFixed(1)}%` }, 'wallet rescan aborted');
          throw new WalletError('rescan-aborted', 'Rescan aborted by user.');
        }
        // A reorg may shorten the chain under a long scan; what is gone needs no scanning.
        const entry = this.chain.atHeight(height);
        if (!entry) break;
        const block = this.chain.readBlock(entry);
        if (!block) throw new Error(`block ${entry.hashHex} at height ${height} is missing from the database`);
        this.store.write((w) => {
          block.txs.forEach((tx, index) => {
            this.tracker.sync(tx, { kind: 'confirmed', blockHash: entry.hashHex, height, index, blockTime: entry.time }, w);
          });
        });
        last = height;
        run.at = height + 1;
        run.to = to ?? this.chain.height;
        if ((height - from) % BATCH === BATCH - 1) {
          await new Promise((resolve) => setImmediate(resolve));
          if (Date.now() - lastLog > LOG_EVERY_MS) {
            lastLog = Date.now();
            this.log.info({ height, of: run.to, progress: `${(100 * (this.progress?.progress ?? 1)).toFixed(1)}%` }, 'wallet rescan');
          }
        }
      }
    } finally {
      this.running = null;
    }
    if (last >= from) this.log.info({ from, to: last }, 'wallet rescan done');
    return last;
  }
}
