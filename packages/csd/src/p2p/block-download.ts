/**
 * Which blocks to ask which peer for during sync (Core's FindNextBlocksToDownload and its
 * in-flight bookkeeping): blocks of a peer's best header chain are requested in height order
 * from a window of BLOCK_DOWNLOAD_WINDOW blocks past the fork with our tip, at most
 * MAX_BLOCKS_IN_TRANSIT_PER_PEER from one peer, each block from one peer at a time. The chain
 * connects them in order as they complete its data. When the window is full and another peer
 * holds its first block, that peer is the staller (Core's), which the caller disconnects; short of
 * that, a block another peer has held in flight longer than the stall timeout is moved to a peer
 * that has it and nothing else to fetch, however short the chain.
 */
import { findFork, type BlockIndexEntry } from '../chain/block-index.ts';

/** What the scheduler reads of the chain: only where the active chain ends. */
export interface ActiveTip {
  readonly tip: BlockIndexEntry;
}

export const MAX_BLOCKS_IN_TRANSIT_PER_PEER = 16;
export const BLOCK_DOWNLOAD_WINDOW = 1024;
/** Core's stalling timeout: 2 s, doubled after each staller dropped, up to 64 s, halved back on progress. */
export const BLOCK_STALLING_TIMEOUT_MS = 2000;
export const BLOCK_STALLING_TIMEOUT_MAX_MS = 64_000;

export interface DownloadPlan {
  /** To request from the peer: new blocks, or those moved to it (also listed in `moved`). */
  readonly blocks: BlockIndexEntry[];
  /** Blocks taken from peers that held them past the stall timeout, with the peer each was taken from. */
  readonly moved: readonly { readonly entry: BlockIndexEntry; readonly from: number }[];
  /** The peer holding the window's first block while this one could get nothing: stalling us. */
  readonly staller: number | null;
}

export class BlockDownload {
  private readonly inFlight = new Map<string, { readonly peer: number; readonly at: number }>();
  private readonly perPeer = new Map<number, Set<string>>();
  stallTimeoutMs = BLOCK_STALLING_TIMEOUT_MS;

  constructor(private readonly chain: ActiveTip) {}

  /**
   * Blocks to request now from `peer`, whose best known header is `best` (marked in flight), on
   * the way from `tip`: the active tip, or a background chain state's towards its target.
   */
  plan(peer: number, best: BlockIndexEntry | null, nowMs: number, tip = this.chain.tip): DownloadPlan {
    const mine = this.perPeer.get(peer) ?? new Set<string>();
    const free = MAX_BLOCKS_IN_TRANSIT_PER_PEER - mine.size;
    if (!best || best.isFailed() || best.chainWork <= tip.chainWork || free <= 0) return { blocks: [], moved: [], staller: null };
    const fork = findFork(best, tip);
    const windowEnd = fork.height + BLOCK_DOWNLOAD_WINDOW;
    const path: BlockIndexEntry[] = [];
    for (let e: BlockIndexEntry | null = best.ancestor(Math.min(best.height, windowEnd)); e && e !== fork; e = e.prev) path.push(e);
    path.reverse();
    const blocks: BlockIndexEntry[] = [];
    let windowStartHolder: number | null = null;
    let first = true;
    for (const e of path) {
      if (e.isFailed()) break;
      if (e.hasData()) continue;
      const holder = this.inFlight.get(e.hashHex);
      if (first) windowStartHolder = holder?.peer ?? null;
      first = false;
      if (holder) continue;
      blocks.push(e);
      if (blocks.length === free) break;
    }
    // A full window held up by another peer is Core's staller case (disconnected by the caller); short of that, blocks move.
    const windowBlocked = blocks.length === 0 && best.height > windowEnd && windowStartHolder !== null && windowStartHolder !== peer;
    const moved = blocks.length === 0 && !windowBlocked ? this.stalledOnPath(path, peer, free, nowMs) : [];
    for (const { entry, from } of moved) {
      this.perPeer.get(from)?.delete(entry.hashHex);
      blocks.push(entry);
    }
    // One move per stall timeout: a slow link is given longer next time, as a dropped staller is.
    if (moved.length > 0) this.stallerDropped();
    for (const e of blocks) {
      this.inFlight.set(e.hashHex, { peer, at: nowMs });
      mine.add(e.hashHex);
    }
    this.perPeer.set(peer, mine);
    return { blocks, moved, staller: windowBlocked ? windowStartHolder : null };
  }

  /** Up to `free` blocks of `path`, in order, that other peers have held in flight longer than the stall timeout. */
  private stalledOnPath(path: readonly BlockIndexEntry[], peer: number, free: number, nowMs: number) {
    const out: { entry: BlockIndexEntry; from: number }[] = [];
    for (const e of path) {
      if (out.length === free) break;
      const f = this.inFlight.get(e.hashHex);
      if (f && f.peer !== peer && nowMs - f.at > this.stallTimeoutMs) out.push({ entry: e, from: f.peer });
    }
    return out;
  }

  /** The peer a block is expected from, or null when it is not in flight. */
  requestedFrom(hashHex: string): number | null {
    return this.inFlight.get(hashHex)?.peer ?? null;
  }

  /** A block arrived; returns whether (and from whom) it had been requested. */
  received(hashHex: string): number | null {
    const f = this.inFlight.get(hashHex);
    if (!f) return null;
    this.inFlight.delete(hashHex);
    this.perPeer.get(f.peer)?.delete(hashHex);
    return f.peer;
  }

  /** Frees what a disconnected peer had in flight, for others to fetch. */
  forget(peer: number): void {
    for (const hash of this.perPeer.get(peer) ?? []) this.inFlight.delete(hash);
    this.perPeer.delete(peer);
  }

  inFlightCount(peer: number): number {
    return this.perPeer.get(peer)?.size ?? 0;
  }

  get totalInFlight(): number {
    return this.inFlight.size;
  }

  /** When the oldest block still expected from `peer` was requested, or null. */
  oldestRequest(peer: number): number | null {
    let oldest: number | null = null;
    for (const hash of this.perPeer.get(peer) ?? []) {
      const at = this.inFlight.get(hash)!.at;
      if (oldest === null || at < oldest) oldest = at;
    }
    return oldest;
  }

  /** A staller was dropped: give the next one longer (Core doubles, up to 64 s). */
  stallerDropped(): void {
    this.stallTimeoutMs = Math.min(BLOCK_STALLING_TIMEOUT_MAX_MS, this.stallTimeoutMs * 2);
  }

  /** Blocks connect again: back toward 2 s. */
  progressed(): void {
    this.stallTimeoutMs = Math.max(BLOCK_STALLING_TIMEOUT_MS, this.stallTimeoutMs / 2);
  }
}
