/**
 * Transaction relay: inv/getdata requests with per-peer limits and timeouts, mempool admission of
 * what arrives with an orphan pool for missing parents, trickled announcements of what entered
 * the mempool, and fee filters (BIP133).
 */
import { type Transaction, hashToHex } from '@cs/consensus';
import type { Mempool } from '../mempool/mempool.ts';
import type { InvItem } from './messages.ts';
import { OrphanPool } from './orphans.ts';
import type { Misbehaving, PeerState, Peers } from './peer-state.ts';
import { MSG_TX, MSG_WITNESS_FLAG, MSG_WITNESS_TX, MSG_WTX } from './protocol.ts';
import { RecentSet } from './recent-set.ts';

/** Core's INBOUND/OUTBOUND_INVENTORY_BROADCAST_INTERVAL (means of Poisson delays) and INVENTORY_BROADCAST_MAX. */
const INBOUND_TRICKLE_MS = 5000;
const OUTBOUND_TRICKLE_MS = 2000;
const INVENTORY_BROADCAST_MAX = 1000;
/**
 * Core's ReattemptInitialBroadcast schedule: transactions submitted here that no peer has asked
 * for yet are announced again 2-7 minutes after the start, then every 10-15 minutes.
 */
const REATTEMPT_FIRST_MS = { min: 2 * 60_000, spread: 5 * 60_000 };
const REATTEMPT_EVERY_MS = { min: 10 * 60_000, spread: 5 * 60_000 };
/** Core's MAX_PEER_TX_REQUEST_IN_FLIGHT and GETDATA_TX_INTERVAL. */
const MAX_TX_REQUESTS_PER_PEER = 100;
const TX_REQUEST_TIMEOUT_MS = 60_000;
/** Remembered hashes of rejected transactions. */
const RECENT_REJECTS_MAX = 50_000;
/** Core's AVG_FEEFILTER_BROADCAST_INTERVAL, without its randomization. */
const FEEFILTER_INTERVAL_MS = 10 * 60_000;

export interface TxRelayDeps {
  readonly mempool: Mempool;
  readonly peers: Peers;
  /** Unix seconds, mocktime aware. */
  readonly now: () => number;
  readonly misbehaving: Misbehaving;
}

export class TxRelay {
  private readonly orphans: OrphanPool;
  private readonly recentRejects = new RecentSet(RECENT_REJECTS_MAX);
  private readonly txRequested = new Map<string, { peer: number; at: number }>();
  /** A trickle for noban peers is scheduled for the end of this turn of the event loop. */
  private flushing = false;
  /** When the unbroadcast transactions are announced again (0: not scheduled yet). */
  private nextReattempt = 0;
  /**
   * Core's m_next_inv_to_inbounds: one Poisson clock for all inbound peers. A spy that opens many
   * connections to us then learns no more about when a transaction arrived here than it would with one.
   */
  private nextInboundTrickle = 0;

  constructor(private readonly deps: TxRelayDeps) {
    this.orphans = new OrphanPool(deps.now);
  }

  /** The peer is gone: its orphans and the requests it was to answer are forgotten. */
  peerClosed(peer: number): void {
    this.orphans.forgetPeer(peer);
    for (const [hash, r] of this.txRequested) if (r.peer === peer) this.txRequested.delete(hash);
  }

  /** Forgets requests unanswered for too long, so another peer's announcement is taken up. */
  expireRequests(nowMs: number): void {
    for (const [hash, r] of this.txRequested) if (nowMs - r.at > TX_REQUEST_TIMEOUT_MS) this.txRequested.delete(hash);
  }

  /** BIP133: our mempool's minimum fee rate, sent after the handshake and again when it has changed, at most every 10 minutes. */
  sendFeeFilter(state: PeerState, nowMs: number): void {
    const rate = this.deps.mempool.minFee();
    if (rate === state.feeFilterSent || nowMs - state.feeFilterAt < FEEFILTER_INTERVAL_MS) return;
    state.feeFilterSent = rate;
    state.feeFilterAt = nowMs;
    state.peer.send({ command: 'feefilter', feeRate: rate });
  }

  /** An inv item that is not a block: the getdata item to ask for it with, or null when it is not wanted. */
  want(state: PeerState, item: InvItem, hashHex: string): InvItem | null {
    const { mempool } = this.deps;
    const isTx = item.type === MSG_WTX ? state.peer.wtxidRelay : (item.type & ~MSG_WITNESS_FLAG) === MSG_TX;
    if (!isTx) return null;
    const known = item.type === MSG_WTX ? mempool.byWtxid(hashHex) : mempool.get(hashHex);
    if (known || this.recentRejects.has(hashHex) || this.orphans.has(hashHex) || this.txRequested.has(hashHex)) return null;
    // Core lifts the cap for a peer with the relay permission.
    if (state.txRequests >= MAX_TX_REQUESTS_PER_PEER && !state.peer.permissions.has('relay')) return null;
    state.txRequests++;
    this.txRequested.set(hashHex, { peer: state.peer.id, at: Date.now() });
    return { type: item.type === MSG_WTX ? MSG_WTX : MSG_WITNESS_TX, hash: item.hash };
  }

  /** The peer has not got what it was asked for: the request is dropped, freeing its slot. */
  onNotFound(state: PeerState, items: readonly InvItem[]): void {
    for (const item of items) {
      const hashHex = hashToHex(item.hash);
      if (this.txRequested.get(hashHex)?.peer === state.peer.id) {
        this.txRequested.delete(hashHex);
        state.txRequests = Math.max(0, state.txRequests - 1);
      }
    }
  }

  onTx(state: PeerState, tx: Transaction): void {
    const { mempool } = this.deps;
    const { peer } = state;
    for (const h of [tx.txidHex, tx.wtxidHex]) {
      state.known.add(h);
      const r = this.txRequested.get(h);
      if (r?.peer === peer.id) state.txRequests = Math.max(0, state.txRequests - 1);
      this.txRequested.delete(h);
    }
    const known = mempool.get(tx.txidHex);
    if (known) {
      // Core's forcerelay: a gateway announces again what the nodes behind it send, even when it
      // has the transaction already, to the peers that have not heard of it.
      if (peer.permissions.has('forcerelay')) this.onMempoolAdded({ entry: known });
      return;
    }
    if (this.recentRejects.has(tx.wtxidHex)) return;
    state.lastTxAt = Date.now();
    this.acceptTransaction(tx, state);
  }

  /** Mempool admission of a relayed transaction, then of the orphans it was missing. */
  private acceptTransaction(tx: Transaction, from: PeerState | null): void {
    const { mempool, peers } = this.deps;
    const work = [{ tx, from }];
    while (work.length > 0) {
      const next = work.pop()!;
      const result = mempool.accept(next.tx);
      if (result.kind === 'accepted') {
        for (const child of this.orphans.takeChildren(next.tx.txidHex)) work.push({ tx: child.tx, from: peers.get(child.from) ?? null });
      } else if (result.kind === 'missing-inputs') {
        if (next.from && this.orphans.add(next.tx, next.from.peer.id)) {
          const parents = result.missing.map((p) => hashToHex(p.txid)).filter((h) => !this.recentRejects.has(h) && !this.txRequested.has(h));
          if (parents.length > 0) {
            for (const h of parents) this.txRequested.set(h, { peer: next.from.peer.id, at: Date.now() });
            next.from.peer.send({ command: 'getdata', items: [...new Set(parents)].map((h) => ({ type: MSG_WITNESS_TX, hash: fromHashHex(h) })) });
          }
        }
      } else if (result.kind === 'rejected') {
        this.recentRejects.add(next.tx.wtxidHex);
        if (result.category === 'consensus' && next.from)
          this.deps.misbehaving(next.from.peer, `invalid transaction ${next.tx.txidHex}: ${result.reason}`);
      }
    }
  }

  readonly onMempoolAdded = ({ entry }: { entry: { txid: string; wtxid: string } }): void => {
    let trusted = false;
    for (const s of this.deps.peers.values()) {
      if (!s.peer.handshakeDone || s.peer.version?.relay === false) continue;
      const id = s.peer.wtxidRelay ? entry.wtxid : entry.txid;
      if (s.known.has(id)) continue;
      s.txQueue.add(entry.txid);
      trusted ||= s.peer.noban;
    }
    // A noban peer is told as soon as this turn of the event loop is done (Core's message
    // handler wakes within 100 ms), not at the network's next half-second tick.
    if (trusted && !this.flushing) {
      this.flushing = true;
      setImmediate(() => {
        this.flushing = false;
        this.trickle(Date.now());
      });
    }
  };

  /**
   * Our own transactions no peer has asked for yet (the mempool's unbroadcast set, kept across
   * restarts in mempool.dat) go into every peer's queue again on Core's schedule: a peer that
   * connected after they were announced, or whose announcement was lost, hears of them then.
   */
  reattemptInitialBroadcast(nowMs: number): void {
    const next = (s: { min: number; spread: number }) => nowMs + s.min + Math.random() * s.spread;
    if (this.nextReattempt === 0) this.nextReattempt = next(REATTEMPT_FIRST_MS);
    if (nowMs < this.nextReattempt) return;
    this.nextReattempt = next(REATTEMPT_EVERY_MS);
    for (const txid of this.deps.mempool.unbroadcast()) {
      const entry = this.deps.mempool.get(txid);
      if (entry) this.onMempoolAdded({ entry });
    }
  }

  /**
   * The handshake is done: the peer's trickle clock starts, and from now on it is told of new
   * transactions. As in Core, not before: the first announcement would otherwise go out at once,
   * and tell a spy which transactions arrived during the handshake.
   */
  peerReady(state: PeerState, nowMs: number): void {
    this.schedule(state, nowMs);
  }

  private schedule(s: PeerState, nowMs: number): void {
    s.nextTrickle = s.peer.inbound ? this.inboundTrickle(nowMs) : nowMs + poissonDelay(OUTBOUND_TRICKLE_MS);
  }

  /**
   * Sends each peer its queued transactions at Poisson-distributed times, ordered parents first and
   * fee-filtered. A whitelisted (noban) peer gets them at once, as Core does: the delay hides a
   * transaction's origin from spies, which a peer one trusts is not. A peer's time that has come
   * is drawn again whether or not anything was queued, so a transaction after a quiet spell waits
   * as long as any other.
   */
  trickle(nowMs: number): void {
    const { mempool } = this.deps;
    for (const s of this.deps.peers.values()) {
      if (!s.peer.handshakeDone) continue;
      const due = s.nextTrickle <= nowMs;
      if (due) this.schedule(s, nowMs);
      if (s.txQueue.size === 0 || !(due || s.peer.noban)) continue;
      const entries = [...s.txQueue].map((txid) => mempool.get(txid)).filter((e) => e !== undefined);
      entries.sort((a, b) => a.sequence - b.sequence);
      const items: InvItem[] = [];
      for (const e of entries) {
        if (items.length >= INVENTORY_BROADCAST_MAX) break;
        s.txQueue.delete(e.txid);
        if (e.fee * 1000n < s.peer.feeFilter * BigInt(e.vsize)) continue;
        const id = s.peer.wtxidRelay ? e.wtxid : e.txid;
        if (s.known.has(id)) continue;
        s.known.add(id);
        items.push({ type: s.peer.wtxidRelay ? MSG_WTX : MSG_WITNESS_TX, hash: s.peer.wtxidRelay ? e.tx.wtxid : e.tx.txid });
      }
      // Those no longer in the mempool leave the queue too.
      for (const txid of s.txQueue) if (!mempool.get(txid)) s.txQueue.delete(txid);
      if (items.length > 0) s.peer.send({ command: 'inv', items });
    }
  }

  /** The inbound peers' next trickle time, drawn again once it has come. */
  private inboundTrickle(nowMs: number): number {
    if (this.nextInboundTrickle <= nowMs) this.nextInboundTrickle = nowMs + poissonDelay(INBOUND_TRICKLE_MS);
    return this.nextInboundTrickle;
  }

  /** BIP35 mempool: every pool transaction goes into the peer's queue, announced at its next trickles, as in Core. */
  onMempoolRequest(state: PeerState): void {
    for (const e of this.deps.mempool.entries()) state.txQueue.add(e.txid);
  }
}

/** The wait until the next event of a Poisson process with this mean interval. */
function poissonDelay(meanMs: number): number {
  return -Math.log(1 - Math.random()) * meanMs;
}

function fromHashHex(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex').reverse());
}
