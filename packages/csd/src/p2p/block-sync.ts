/**
 * The chain's side of the network: headers-first sync, parallel block download with stall
 * detection (block-download.ts), serving headers, and announcing new tips.
 */
import type { Logger } from 'pino';
import { type Block, type BlockHeader, blockProof, bytesEqual, hashToHex } from '@cs/consensus';
import { type BlockIndexEntry, findFork } from '../chain/block-index.ts';
import type { Chain } from '../chain/chainstate.ts';
import { BlockDownload } from './block-download.ts';
import type { Misbehaving, PeerState, Peers } from './peer-state.ts';
import { MAX_HEADERS_RESULTS, MSG_BLOCK, MSG_WITNESS_BLOCK } from './protocol.ts';

/** The reject reason of a header too far in the future: not punished (Core). */
const FUTURE_HEADER = 'time-too-new';
/** How long a getheaders may stay unanswered before it is sent again (Core's HEADERS_RESPONSE_TIME). */
const HEADERS_RESPONSE_MS = 2 * 60_000;
/** Core's MAX_BLOCKS_TO_ANNOUNCE: more new blocks than this are announced by inv of the tip. */
const MAX_BLOCKS_TO_ANNOUNCE = 8;
/** A block still missing this long after it was requested drops the peer (Core's block download timeout, fixed here). */
const BLOCK_DOWNLOAD_TIMEOUT_MS = 10 * 60_000;
/** Blocks of work below our tip under which a header chain is not stored (Core's anti-DoS threshold). */
const ANTI_DOS_BLOCKS = 144;
/** Sync progress is logged this often while blocks are being downloaded. */
const PROGRESS_LOG_MS = 5000;

export interface BlockSyncDeps {
  readonly chain: Chain;
  readonly peers: Peers;
  readonly log: Logger;
  readonly misbehaving: Misbehaving;
}

export class BlockSync {
  private readonly download: BlockDownload;
  /** The tip when the last announcement was made: set on start, since the network is built before the chain is loaded. */
  private lastAnnounced: BlockIndexEntry | null = null;
  private lastProgressLog = 0;

  constructor(private readonly deps: BlockSyncDeps) {
    this.download = new BlockDownload(deps.chain);
  }

  /** The chain is loaded: announcements start from its tip. */
  start(): void {
    this.lastAnnounced = this.deps.chain.tip;
  }

  blocksInFlight(peer: number): number {
    return this.download.inFlightCount(peer);
  }

  /** A block read off `peer`'s connection, before its turn: one requested from it can be planned while its parent connects. */
  arrived(peer: number, block: Block, raw: Uint8Array): void {
    if (this.download.requestedFrom(block.header.hashHex) === peer) this.deps.chain.expectBlock(block, raw);
  }

  /** The peer is gone: the blocks it had in flight go to the others at the next scheduling. */
  peerClosed(peer: number): void {
    this.download.forget(peer);
  }

  requestHeaders(state: PeerState): void {
    // One getheaders in flight per peer; an unanswered one is repeated after 2 minutes (Core's HEADERS_RESPONSE_TIME).
    if (Date.now() - state.headersRequestedAt < HEADERS_RESPONSE_MS) return;
    state.headersRequestedAt = Date.now();
    const { chain } = this.deps;
    // From the best header's parent (Core), so that a peer with the same tip still answers with
    // one header and we learn that it has our chain.
    const best = chain.bestHeader;
    state.peer.send({ command: 'getheaders', locator: chain.locator(best.prev ?? best), stop: new Uint8Array(32) });
  }

  scheduleDownloads(): void {
    const nowMs = Date.now();
    for (const s of this.deps.peers.values()) {
      if (!s.peer.handshakeDone || s.peer.closed) continue;
      const plan = this.download.plan(s.peer.id, s.bestKnown, nowMs);
      if (plan.moved.length > 0) {
        const from = [...new Set(plan.moved.map((m) => m.from))];
        this.deps.log.info(
          { peer: s.peer.id, from, blocks: plan.moved.length, first: plan.moved[0].entry.height },
          'block download stalled: blocks moved to another peer',
        );
      }
      // Under a loaded UTXO snapshot, the history below its base too, from peers that have it (Core's TryDownloadingHistoricalBlocks).
      const history = this.deps.chain.snapshots.download;
      if (history && s.bestKnown?.ancestor(history.target.height) === history.target) {
        plan.blocks.push(...this.download.plan(s.peer.id, history.target, nowMs, history.from).blocks);
      }
      if (plan.blocks.length > 0) {
        s.peer.send({ command: 'getdata', items: plan.blocks.map((e) => ({ type: MSG_WITNESS_BLOCK, hash: e.hash })) });
      }
      if (plan.staller !== null) {
        const staller = this.deps.peers.get(plan.staller);
        if (staller && staller.stallingSince === null) staller.stallingSince = nowMs;
      }
    }
  }

  checkStalling(nowMs: number): void {
    for (const s of this.deps.peers.values()) {
      if (s.stallingSince !== null && nowMs - s.stallingSince > this.download.stallTimeoutMs) {
        this.deps.log.warn({ peer: s.peer.id, timeoutMs: this.download.stallTimeoutMs }, 'peer is stalling block download, disconnecting');
        this.download.stallerDropped();
        s.peer.close('stalling block download');
        continue;
      }
      const oldest = this.download.oldestRequest(s.peer.id);
      if (oldest !== null && nowMs - oldest > BLOCK_DOWNLOAD_TIMEOUT_MS) s.peer.close('block download timeout');
    }
  }

  logProgress(nowMs: number): void {
    const { chain, log } = this.deps;
    const best = chain.bestHeader;
    if (best.height <= chain.height || nowMs - this.lastProgressLog < PROGRESS_LOG_MS) return;
    this.lastProgressLog = nowMs;
    log.info(
      {
        height: chain.height,
        headers: best.height,
        progress: `${((100 * chain.height) / best.height).toFixed(1)}%`,
        peers: this.deps.peers.size,
        inFlight: this.download.totalInFlight,
      },
      'syncing blocks',
    );
  }

  /** The work a header chain must reach to be stored: our tip's, less ANTI_DOS_BLOCKS blocks of it. */
  private antiDosWorkThreshold(): bigint {
    const tip = this.deps.chain.tip;
    const margin = blockProof(tip.header.bits) * BigInt(ANTI_DOS_BLOCKS);
    return tip.chainWork > margin ? tip.chainWork - margin : 0n;
  }

  onHeaders(state: PeerState, headers: readonly BlockHeader[]): void {
    const { chain } = this.deps;
    const { peer } = state;
    state.headersRequestedAt = 0;
    if (headers.length === 0) return;
    for (let i = 1; i < headers.length; i++) {
      if (!bytesEqual(headers[i].prevHash, headers[i - 1].hash)) {
        this.deps.misbehaving(peer, 'non-continuous headers sequence');
        return;
      }
    }
    const first = chain.entry(hashToHex(headers[0].prevHash));
    if (!first) {
      // Headers that do not connect (an announcement after blocks we missed): ask for the gap, no penalty (Core since v27).
      this.requestHeaders(state);
      return;
    }
    let work = first.chainWork;
    for (const h of headers) work += blockProof(h.bits);
    const knownLast = chain.entry(headers[headers.length - 1].hashHex);
    if (!knownLast && work < this.antiDosWorkThreshold()) {
      // A low-work branch off old history: not stored, so it cannot fill memory or disk.
      this.deps.log.debug({ peer: peer.id, count: headers.length }, 'low-work headers ignored');
      return;
    }
    const { last, error } = chain.acceptHeaders(headers);
    if (last && (!state.bestKnown || last.chainWork > state.bestKnown.chainWork)) state.bestKnown = last;
    // A header from the future may become valid later: not the sender's fault (Core's BLOCK_TIME_FUTURE).
    if (error && error.reason !== FUTURE_HEADER) {
      this.deps.misbehaving(peer, `invalid header: ${error.reason}`);
      return;
    }
    if (headers.length === MAX_HEADERS_RESULTS && last) {
      state.headersRequestedAt = Date.now();
      peer.send({ command: 'getheaders', locator: chain.locator(last), stop: new Uint8Array(32) });
    }
    this.scheduleDownloads();
  }

  async onBlock(state: PeerState, block: Block, raw: Uint8Array): Promise<void> {
    const { chain } = this.deps;
    const hashHex = block.header.hashHex;
    state.known.add(hashHex);
    const requestedFrom = this.download.received(hashHex);
    if (requestedFrom === null) {
      // Unrequested (Core's p2p_unrequested_blocks): processed only when it would be our new tip.
      const prev = chain.entry(hashToHex(block.header.prevHash));
      if (!prev || !chain.hasChainData(prev) || prev.chainWork + blockProof(block.header.bits) <= chain.tip.chainWork) return;
    }
    state.stallingSince = null;
    const result = await chain.processBlock(block, raw);
    if ((result.status === 'rejected' && result.reason !== FUTURE_HEADER) || result.status === 'duplicate-invalid') {
      const reason = result.status === 'rejected' ? result.reason : 'duplicate-invalid';
      this.deps.misbehaving(state.peer, `invalid block ${hashHex}: ${reason}`);
      return;
    }
    if (result.status === 'accepted') state.lastBlockAt = Date.now();
    const entry = chain.entry(hashHex);
    if (entry && (!state.bestKnown || entry.chainWork > state.bestKnown.chainWork)) state.bestKnown = entry;
    this.scheduleDownloads();
  }

  /** A block announced by inv: its headers are asked for when it is unknown. */
  onBlockInv(state: PeerState, hashHex: string): void {
    const known = this.deps.chain.entry(hashHex);
    if (!known) this.requestHeaders(state);
    else if (!known.isFailed() && (!state.bestKnown || known.chainWork > state.bestKnown.chainWork)) state.bestKnown = known;
  }

  onGetHeaders(state: PeerState, locator: readonly Uint8Array[], stop: Uint8Array): void {
    const { chain } = this.deps;
    const stopHex = hashToHex(stop);
    const headers: BlockHeader[] = [];
    if (locator.length === 0) {
      // A null locator asks for the stop block's header alone (Core).
      const e = chain.entry(stopHex);
      if (e) headers.push(e.header);
    } else {
      for (let e = chain.next(chain.findLocatorFork(locator)); e && headers.length < MAX_HEADERS_RESULTS; e = chain.next(e)) {
        headers.push(e.header);
        if (e.hashHex === stopHex) break;
      }
    }
    state.peer.send({ command: 'headers', headers });
  }

  /** New tip: announce the blocks to every peer (headers to BIP130 peers, inv otherwise), not while still syncing. */
  readonly onTip = (tip: BlockIndexEntry): void => {
    const { chain } = this.deps;
    this.download.progressed();
    const previous = this.lastAnnounced!;
    this.lastAnnounced = tip;
    if (chain.bestHeader.chainWork > tip.chainWork) return;
    const fork = findFork(previous, tip);
    const fresh: BlockIndexEntry[] = [];
    for (let e: BlockIndexEntry | null = tip; e && e !== fork && fresh.length <= MAX_BLOCKS_TO_ANNOUNCE; e = e.prev) fresh.unshift(e);
    for (const s of this.deps.peers.values()) {
      if (!s.peer.handshakeDone || s.known.has(tip.hashHex)) continue;
      if (s.bestKnown && s.bestKnown.ancestor(tip.height) === tip) continue;
      const unknown = fresh.filter((e) => !s.known.has(e.hashHex));
      if (
        s.peer.preferHeaders &&
        unknown.length <= MAX_BLOCKS_TO_ANNOUNCE &&
        unknown.length > 0 &&
        chain.entry(hashToHex(unknown[0].header.prevHash))
      ) {
        s.peer.send({ command: 'headers', headers: unknown.map((e) => e.header) });
      } else {
        s.peer.send({ command: 'inv', items: [{ type: MSG_BLOCK, hash: tip.hash }] });
      }
      for (const e of fresh) s.known.add(e.hashHex);
    }
  };
}
