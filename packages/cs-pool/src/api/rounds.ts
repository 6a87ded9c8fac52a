/**
 * Rounds as miningcore's API counts them, from the store's shares: a round is the shares between
 * two recorded blocks (in share order, whatever their status), a block's `effort` the summed
 * difficulty of its round's shares over the network difficulty at the block (1 = as much work as
 * a block is expected to take), the pool's `poolEffort` and a miner's `pendingShares` the same
 * sums over the round still open. Shares are never deleted, so a closed round's effort is read
 * once and kept; the open round is read on from where the last request stopped.
 */
import type { AccountingStore, BlockRecord } from '../accounting/store.ts';
import { WEIGHT_SCALE } from '../accounting/weights.ts';

/** The network difficulty at a block (powLimit / its target), as a number. */
export function networkDifficulty(b: BlockRecord): number {
  return Number(b.networkWeight) / Number(WEIGHT_SCALE);
}

interface OpenRound {
  /** The shareSeq of the block that closed the previous round. */
  readonly start: number;
  /** The last share read. */
  scanned: number;
  total: number;
  readonly byAddress: Map<string, number>;
}

export class Rounds {
  private readonly efforts = new Map<string, number>();
  private open: OpenRound = { start: -1, scanned: -1, total: 0, byAddress: new Map() };
  /** Reads run one at a time: two requests at once would read the same shares twice. */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly store: AccountingStore) {}

  private serial<T>(run: () => Promise<T>): Promise<T> {
    const next = this.queue.then(run);
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** Effort of each of `wanted` (hash → effort); `blocks` is every recorded block. */
  effort(blocks: readonly BlockRecord[], wanted: readonly BlockRecord[]): Promise<Map<string, number>> {
    return this.serial(async () => {
      const ordered = [...blocks].sort((a, b) => a.shareSeq - b.shareSeq);
      const previous = new Map(ordered.map((b, i) => [b.hash, i === 0 ? 0 : ordered[i - 1].shareSeq]));
      for (const b of wanted) {
        if (this.efforts.has(b.hash)) continue;
        let sum = 0;
        for await (const s of this.store.sharesInRange(previous.get(b.hash) ?? 0, b.shareSeq)) sum += s.difficulty;
        this.efforts.set(b.hash, sum / networkDifficulty(b));
      }
      return new Map(wanted.map((b) => [b.hash, this.efforts.get(b.hash)!]));
    });
  }

  /** The round still open: its summed share difficulty, in all and by address. */
  current(blocks: readonly BlockRecord[]): Promise<{ readonly total: number; readonly byAddress: ReadonlyMap<string, number> }> {
    return this.serial(async () => {
      const start = blocks.reduce((m, b) => Math.max(m, b.shareSeq), 0);
      if (start !== this.open.start) this.open = { start, scanned: start, total: 0, byAddress: new Map() };
      const round = this.open;
      for await (const s of this.store.sharesInRange(round.scanned, Number.MAX_SAFE_INTEGER)) {
        round.total += s.difficulty;
        round.byAddress.set(s.address, (round.byAddress.get(s.address) ?? 0) + s.difficulty);
        round.scanned = s.seq;
      }
      return round;
    });
  }
}
