/**
 * The peer-to-peer network of a node: listening and outbound connections, bans, the address
 * manager, and what each message means for the chain and the mempool. Headers-first sync with
 * parallel block download (block-download.ts), block announcements by headers, transaction relay
 * by inv/getdata with trickling and an orphan pool, addr gossip, OPoI content relay. The chain
 * and mempool are used through their public methods and events only.
 */
import { type Server, type Socket, connect as tcpConnect, createServer } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type Block, type BlockHeader, type ChainParams, type Transaction, blockProof, bytesEqual, hashToHex, sha256d } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import { findFork } from '../chain/block-index.ts';
import type { Chain } from '../chain/chainstate.ts';
import { splitHostPort } from '@cs/runtime/config';
import type { Mempool } from '../mempool/mempool.ts';
import { AllowList } from '../rpc/allowip.ts';
import { AddressManager } from './addrman.ts';
import { BanList } from './banlist.ts';
import { BlockDownload } from './block-download.ts';
import { selectInboundToEvict } from './eviction.ts';
import type { InvItem, Message } from './messages.ts';
import { formatHostPort, netGroup, type NetAddress } from './netaddr.ts';
import type { OpoiContentSink } from './opoi-content.ts';
import { OrphanPool } from './orphans.ts';
import { type ConnectionType, Peer } from './peer.ts';
import {
  LOCAL_SERVICES,
  MAX_HEADERS_RESULTS,
  MAX_INV_SIZE,
  MSG_BLOCK,
  MSG_TX,
  MSG_WITNESS_BLOCK,
  MSG_WITNESS_FLAG,
  MSG_WITNESS_TX,
  MSG_WTX,
} from './protocol.ts';

export interface NetworkOptions {
  readonly listen: boolean;
  readonly port: number;
  /** Addresses to listen on ("host" or "host:port"); empty: every IPv4 and IPv6 address. */
  readonly bind: readonly string[];
  /** -connect: connect only to these. */
  readonly connect: readonly string[];
  readonly addnode: readonly string[];
  readonly seednode: readonly string[];
  readonly maxconnections: number;
  /** -whitelist subnets (optionally "perms@subnet"): peers from them are never discouraged or banned. */
  readonly whitelist: readonly string[];
  readonly peertimeout: number;
  readonly bantime: number;
}

export interface NetworkDeps {
  readonly chain: Chain;
  readonly mempool: Mempool;
  readonly params: ChainParams;
  readonly log: Logger;
  /** Unix seconds, mocktime aware. */
  readonly now: () => number;
  /** The network data directory: banlist.json and peers.json live there. */
  readonly dataDir: string;
  readonly options: NetworkOptions;
  /** Published OPoI content checks; without one, opoicontent messages are ignored. */
  readonly opoi?: OpoiContentSink;
}

/** Core's MAX_OUTBOUND_FULL_RELAY_CONNECTIONS. */
const MAX_OUTBOUND = 8;
/** How often the network looks at timeouts, downloads, outbound slots and trickled inventory. */
const TICK_MS = 500;
/** Added nodes that are not connected are tried again this often. */
const ADDED_NODE_RETRY_MS = 10_000;
/** Core's -timeout: how long an outbound TCP connect may take. */
const CONNECT_TIMEOUT_MS = 5000;
/** Core's INBOUND/OUTBOUND_INVENTORY_BROADCAST_INTERVAL (means of Poisson delays) and INVENTORY_BROADCAST_MAX. */
const INBOUND_TRICKLE_MS = 5000;
const OUTBOUND_TRICKLE_MS = 2000;
const INVENTORY_BROADCAST_MAX = 1000;
/** Core's MAX_PEER_TX_REQUEST_IN_FLIGHT and GETDATA_TX_INTERVAL. */
const MAX_TX_REQUESTS_PER_PEER = 100;
const TX_REQUEST_TIMEOUT_MS = 60_000;
/** The reject reason of a header too far in the future: not punished (Core). */
const FUTURE_HEADER = 'time-too-new';
/** Core's AVG_FEEFILTER_BROADCAST_INTERVAL, without its randomization. */
const FEEFILTER_INTERVAL_MS = 10 * 60_000;
/** How long a getheaders may stay unanswered before it is sent again (Core's HEADERS_RESPONSE_TIME). */
const HEADERS_RESPONSE_MS = 2 * 60_000;
/** Core's MAX_BLOCKS_TO_ANNOUNCE: more new blocks than this are announced by inv of the tip. */
const MAX_BLOCKS_TO_ANNOUNCE = 8;
/** A block still missing this long after it was requested drops the peer (Core's block download timeout, fixed here). */
const BLOCK_DOWNLOAD_TIMEOUT_MS = 10 * 60_000;
/** Remembered hashes of rejected transactions, known inventory per peer, seen OPoI content. */
const RECENT_REJECTS_MAX = 50_000;
const KNOWN_INVENTORY_MAX = 50_000;
/** Core's addr token bucket: 0.1 addresses per second, at most 1000 saved up. */
const ADDR_RATE_PER_SECOND = 0.1;
const ADDR_BUCKET_MAX = 1000;
/** Blocks of work below our tip under which a header chain is not stored (Core's anti-DoS threshold). */
const ANTI_DOS_BLOCKS = 144;
/** Sync progress is logged this often while blocks are being downloaded. */
const PROGRESS_LOG_MS = 5000;
/** peers.json and banlist.json are saved this often (and on shutdown). */
const SAVE_MS = 15 * 60_000;

/** A set that forgets its oldest entries beyond `max` (Core's rolling filters, exact here). */
class RecentSet {
  private readonly items = new Set<string>();
  constructor(private readonly max: number) {}
  add(item: string): void {
    if (this.items.has(item)) return;
    if (this.items.size >= this.max) this.items.delete(this.items.values().next().value!);
    this.items.add(item);
  }
  has(item: string): boolean {
    return this.items.has(item);
  }
  clear(): void {
    this.items.clear();
  }
}

/** What the network keeps about one connected peer beyond the connection itself. */
class PeerState {
  /** The most-work header the peer has shown us. */
  bestKnown: BlockIndexEntry | null = null;
  /** When a getheaders went out that is not answered yet (0: none). */
  headersRequestedAt = 0;
  /** Transactions and blocks the peer knows of (announced either way), so they are not announced to it. */
  readonly known = new RecentSet(KNOWN_INVENTORY_MAX);
  /** Transactions waiting for the next trickle to this peer. */
  readonly txQueue = new Set<string>();
  nextTrickle = 0;
  txRequests = 0;
  /**
   * Items of the peer's getdata not served yet: serving pauses while the send buffer is over
   * -maxsendbuffer and goes on when it drains (Core's vRecvGetData).
   */
  readonly getData: InvItem[] = [];
  /** When the peer became the one holding up the download window. */
  stallingSince: number | null = null;
  getaddrAnswered = false;
  addrTokens = ADDR_BUCKET_MAX;
  addrTokensAt = Date.now();
  lastBlockAt = 0;
  lastTxAt = 0;
  /** The fee filter last sent to the peer, and when. */
  feeFilterSent = -1n;
  feeFilterAt = 0;
  constructor(
    readonly peer: Peer,
    /** The -addnode/-connect/addnode entry this connection serves, if any. */
    readonly target: string | null,
  ) {}
}

export class Network {
  private readonly peers = new Map<number, PeerState>();
  private readonly servers: Server[] = [];
  private readonly addedNodes = new Map<string, number>();
  private readonly pending = new Set<string>();
  private readonly whitelist: AllowList;
  readonly banlist: BanList;
  readonly addrman: AddressManager;
  private readonly download: BlockDownload;
  private readonly orphans: OrphanPool;
  private readonly recentRejects = new RecentSet(RECENT_REJECTS_MAX);
  private readonly seenOpoi = new RecentSet(RECENT_REJECTS_MAX);
  private readonly txRequested = new Map<string, { peer: number; at: number }>();
  private timer: NodeJS.Timeout | null = null;
  /** The tip when the last announcement was made: set on start, since the network is built before the chain is loaded. */
  private lastAnnounced: BlockIndexEntry | null = null;
  private lastProgressLog = 0;
  private lastSave = Date.now();
  private closedBytes = { sent: 0, received: 0 };
  private started = false;
  private stopped = false;
  /** setnetworkactive is not offered; the field is getnetworkinfo's. */
  readonly active = true;
  readonly localAddresses: { host: string; port: number }[] = [];

  constructor(private readonly deps: NetworkDeps) {
    const o = deps.options;
    this.whitelist = new AllowList(o.whitelist.map((w) => (w.includes('@') ? w.slice(w.indexOf('@') + 1) : w)));
    this.banlist = new BanList(join(deps.dataDir, 'banlist.json'), deps.now);
    this.addrman = new AddressManager(join(deps.dataDir, 'peers.json'), deps.now);
    this.download = new BlockDownload(deps.chain);
    this.orphans = new OrphanPool(deps.now);
    for (const node of o.addnode) this.addedNodes.set(node, 0);
  }

  // ---- lifecycle ----

  async start(): Promise<void> {
    const { log, options: o, chain, mempool } = this.deps;
    this.started = true;
    for (const problem of [await this.banlist.load(), await this.addrman.load()]) if (problem) log.warn(problem);
    if (o.listen) await this.listen();
    this.lastAnnounced = chain.tip;
    chain.events.on('tip', this.onTip);
    mempool.events.on('added', this.onMempoolAdded);
    for (const seed of o.connect.length > 0 ? [] : o.seednode) this.connectTo(seed, 'manual', null, true);
    this.timer = setInterval(() => this.tick(), TICK_MS);
    this.tick();
    log.info(
      { listen: this.localAddresses.map((a) => formatHostPort(a.host, a.port)), connect: o.connect, addnode: o.addnode },
      'p2p network started',
    );
  }

  /** Closes every connection and saves the tables; nothing at all when start() never ran (a startup cut short must not write empty files over them). */
  async stop(): Promise<void> {
    if (this.stopped || !this.started) return;
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.deps.chain.events.off('tip', this.onTip);
    this.deps.mempool.events.off('added', this.onMempoolAdded);
    // Peers first: a server's close waits for its open connections.
    for (const s of this.peers.values()) s.peer.close('shutdown');
    await Promise.all(this.servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await this.save();
  }

  private async save(): Promise<void> {
    try {
      await this.banlist.save();
      await this.addrman.save();
    } catch (err) {
      this.deps.log.warn({ err }, 'could not save peers.json or banlist.json');
    }
  }

  private async listen(): Promise<void> {
    const { options: o } = this.deps;
    const binds =
      o.bind.length > 0
        ? o.bind.map((b) => splitHostPort(b)!)
        : [
            { host: '0.0.0.0', port: null },
            { host: '::', port: null },
          ];
    for (const { host, port } of binds) {
      const server = createServer((socket) => this.accept(socket));
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          // `ipv6Only` keeps "::" from also claiming the IPv4 port "0.0.0.0" just bound.
          server.listen({ host, port: port ?? o.port, ipv6Only: host.includes(':') }, () => resolve());
        });
      } catch (err) {
        // A host without IPv6 still listens on IPv4 (as the RPC server does).
        if (host === '::' && (err as NodeJS.ErrnoException).code === 'EAFNOSUPPORT') continue;
        await Promise.all(this.servers.map((s) => new Promise((resolve) => s.close(resolve))));
        throw new Error(`Unable to bind to ${formatHostPort(host, port ?? o.port)} on this computer: ${(err as Error).message}`);
      }
      this.servers.push(server);
      const addr = server.address() as { address: string; port: number };
      this.localAddresses.push({ host: addr.address, port: addr.port });
    }
  }

  // ---- connections ----

  private accept(socket: Socket): void {
    const host = normalizeHost(socket.remoteAddress ?? '');
    const noban = this.whitelist.allows(host);
    if (this.stopped || (!noban && this.banlist.isBanned(host))) {
      socket.destroy();
      return;
    }
    const inbound = [...this.peers.values()].filter((s) => s.peer.inbound);
    const maxInbound = Math.max(0, this.deps.options.maxconnections - MAX_OUTBOUND);
    if (inbound.length >= maxInbound) {
      const victim =
        !noban && this.banlist.isDiscouraged(host)
          ? null
          : selectInboundToEvict(
              inbound.map((s) => ({
                id: s.peer.id,
                group: netGroup(s.peer.address.host),
                connectedAt: s.peer.connectedAt,
                minPingMs: s.peer.minPingMs,
                lastBlockAt: s.lastBlockAt,
                lastTxAt: s.lastTxAt,
                noban: s.peer.noban,
                discouraged: this.banlist.isDiscouraged(s.peer.address.host),
              })),
            );
      if (victim === null) {
        socket.destroy();
        return;
      }
      this.peers.get(victim)?.peer.close('evicted to make room for an inbound connection');
    }
    this.addPeer(socket, { services: 0n, host, port: socket.remotePort ?? 0 }, 'inbound', noban, null);
  }

  private addPeer(socket: Socket, address: NetAddress, type: ConnectionType, noban: boolean, target: string | null): PeerState {
    const { chain, params, now, options } = this.deps;
    const peer = new Peer(
      socket,
      address,
      type,
      noban,
      { magic: params.magic, handshakeTimeoutMs: options.peertimeout * 1000, startHeight: () => chain.height, now, relay: true },
      {
        ready: (p) => this.onReady(p),
        message: (p, m) => this.onMessage(p, m),
        drained: (p) => {
          const s = this.peers.get(p.id);
          if (s) this.serveGetData(s);
        },
        // A requested block waiting behind others from its peer can be planned while its parent connects.
        arrived: (p, m) => {
          if (m.command === 'block' && this.download.requestedFrom(m.block.header.hashHex) === p.id) this.deps.chain.expectBlock(m.block, m.raw);
        },
        misbehaving: (p, reason) => this.misbehaving(p, reason),
        checkVersion: (_p, v) => ([...this.peers.values()].some((s) => s.peer.localNonce === v.nonce) ? 'connected to self' : null),
        closed: (p, reason) => this.onClosed(p, reason),
      },
    );
    const state = new PeerState(peer, target);
    this.peers.set(peer.id, state);
    this.deps.log.debug({ peer: peer.id, addr: formatHostPort(address.host, address.port), type }, 'peer connected');
    return state;
  }

  /**
   * Opens an outbound connection to "host[:port]". `oneShot` (seednode): ask for addresses and
   * disconnect once they come.
   */
  private connectTo(target: string, type: ConnectionType, addedKey: string | null, oneShot = false): void {
    const parsed = splitHostPort(target);
    if (!parsed || this.pending.has(target)) return;
    const port = parsed.port ?? this.deps.options.port;
    this.pending.add(target);
    const socket = tcpConnect({ host: parsed.host, port });
    const fail = (why: string) => {
      this.pending.delete(target);
      this.deps.log.debug({ target, why }, 'outbound connection failed');
      socket.destroy();
    };
    socket.setTimeout(CONNECT_TIMEOUT_MS, () => fail('timeout'));
    socket.once('error', (err) => fail(err.message));
    socket.once('connect', () => {
      socket.setTimeout(0);
      socket.removeAllListeners('error');
      this.pending.delete(target);
      if (this.stopped) {
        socket.destroy();
        return;
      }
      const host = normalizeHost(socket.remoteAddress ?? parsed.host);
      const state = this.addPeer(socket, { services: 0n, host, port }, type, this.whitelist.allows(host), addedKey);
      if (oneShot) state.getaddrAnswered = true;
    });
    if (type === 'outbound-full-relay') this.addrman.attempt(parsed.host, port);
  }

  private onClosed(peer: Peer, reason: string): void {
    const state = this.peers.get(peer.id);
    if (!state) return;
    this.peers.delete(peer.id);
    this.closedBytes.sent += peer.bytesSent;
    this.closedBytes.received += peer.bytesReceived;
    this.download.forget(peer.id);
    this.orphans.forgetPeer(peer.id);
    for (const [hash, r] of this.txRequested) if (r.peer === peer.id) this.txRequested.delete(hash);
    this.deps.log.info({ peer: peer.id, addr: formatHostPort(peer.address.host, peer.address.port), reason }, 'peer disconnected');
    // The blocks it had in flight go to the others now.
    this.scheduleDownloads();
  }

  /**
   * A protocol violation (Core's Misbehaving since v27: no score, one strike): disconnect, and
   * discourage the address unless the peer is whitelisted or was added by the operator.
   */
  private misbehaving(peer: Peer, reason: string): void {
    const exempt = peer.noban || peer.type === 'manual';
    this.deps.log.warn({ peer: peer.id, addr: peer.address.host, reason, discouraged: !exempt }, 'peer misbehaving');
    if (!exempt) this.banlist.discourage(peer.address.host);
    peer.close(`misbehaving: ${reason}`);
  }

  private onReady(peer: Peer): void {
    const { log } = this.deps;
    const state = this.peers.get(peer.id)!;
    log.info(
      {
        peer: peer.id,
        addr: formatHostPort(peer.address.host, peer.address.port),
        agent: peer.version?.userAgent,
        height: peer.version?.startHeight,
        type: peer.type,
      },
      'peer connected',
    );
    if (!peer.inbound) {
      this.addrman.good(peer.address.host, peer.address.port);
      peer.send({ command: 'getaddr' });
    }
    this.sendFeeFilter(state, Date.now());
    this.requestHeaders(state);
    if (state.getaddrAnswered && peer.type === 'manual' && state.target === null) {
      // A seednode connection: once it has told us its addresses there is nothing more to do.
      setTimeout(() => peer.close('seednode: addresses fetched'), 5000).unref();
    }
  }

  /** BIP133: our mempool's minimum fee rate, sent after the handshake and again when it has changed, at most every 10 minutes. */
  private sendFeeFilter(state: PeerState, nowMs: number): void {
    const rate = this.deps.mempool.minFee();
    if (rate === state.feeFilterSent || nowMs - state.feeFilterAt < FEEFILTER_INTERVAL_MS) return;
    state.feeFilterSent = rate;
    state.feeFilterAt = nowMs;
    state.peer.send({ command: 'feefilter', feeRate: rate });
  }

  // ---- the periodic work ----

  private tick(): void {
    const nowMs = Date.now();
    for (const s of this.peers.values()) {
      s.peer.tick(nowMs);
      if (s.peer.handshakeDone) this.sendFeeFilter(s, nowMs);
    }
    this.openConnections(nowMs);
    this.checkStalling(nowMs);
    this.scheduleDownloads();
    this.trickle(nowMs);
    for (const [hash, r] of this.txRequested) if (nowMs - r.at > TX_REQUEST_TIMEOUT_MS) this.txRequested.delete(hash);
    this.logProgress(nowMs);
    if (nowMs - this.lastSave > SAVE_MS) {
      this.lastSave = nowMs;
      void this.save();
    }
  }

  private openConnections(nowMs: number): void {
    if (this.stopped) return;
    const o = this.deps.options;
    const manual = o.connect.length > 0 ? o.connect : [...this.addedNodes.keys()];
    for (const target of manual) {
      const lastTry = this.addedNodes.get(target) ?? 0;
      if (this.connectedTo(target) || nowMs - lastTry < ADDED_NODE_RETRY_MS) continue;
      this.addedNodes.set(target, nowMs);
      this.connectTo(target, 'manual', target);
    }
    if (o.connect.length > 0) return;
    const outbound = [...this.peers.values()].filter((s) => s.peer.type === 'outbound-full-relay');
    if (outbound.length + this.pending.size >= Math.min(MAX_OUTBOUND, o.maxconnections)) return;
    const groups = new Set(outbound.map((s) => netGroup(s.peer.address.host)));
    const pick = this.addrman.select(
      (a) =>
        groups.has(netGroup(a.host)) ||
        this.banlist.isBanned(a.host) ||
        this.banlist.isDiscouraged(a.host) ||
        this.connectedTo(formatHostPort(a.host, a.port)),
    );
    if (pick) this.connectTo(formatHostPort(pick.host, pick.port), 'outbound-full-relay', null);
  }

  private connectedTo(target: string): boolean {
    const parsed = splitHostPort(target);
    if (!parsed) return false;
    const port = parsed.port ?? this.deps.options.port;
    for (const s of this.peers.values()) {
      if (s.target === target) return true;
      if (!s.peer.inbound && s.peer.address.host === normalizeHost(parsed.host) && s.peer.address.port === port) return true;
    }
    return this.pending.has(target);
  }

  private logProgress(nowMs: number): void {
    const { chain, log } = this.deps;
    const best = chain.bestHeader;
    if (best.height <= chain.height || nowMs - this.lastProgressLog < PROGRESS_LOG_MS) return;
    this.lastProgressLog = nowMs;
    log.info(
      {
        height: chain.height,
        headers: best.height,
        progress: `${((100 * chain.height) / best.height).toFixed(1)}%`,
        peers: this.peers.size,
        inFlight: this.download.totalInFlight,
      },
      'syncing blocks',
    );
  }

  // ---- headers and blocks ----

  private requestHeaders(state: PeerState): void {
    // One getheaders in flight per peer; an unanswered one is repeated after 2 minutes (Core's HEADERS_RESPONSE_TIME).
    if (Date.now() - state.headersRequestedAt < HEADERS_RESPONSE_MS) return;
    state.headersRequestedAt = Date.now();
    const { chain } = this.deps;
    // From the best header's parent (Core), so that a peer with the same tip still answers with
    // one header and we learn that it has our chain.
    const best = chain.bestHeader;
    state.peer.send({ command: 'getheaders', locator: chain.locator(best.prev ?? best), stop: new Uint8Array(32) });
  }

  private scheduleDownloads(): void {
    const nowMs = Date.now();
    for (const s of this.peers.values()) {
      if (!s.peer.handshakeDone || s.peer.closed) continue;
      const plan = this.download.plan(s.peer.id, s.bestKnown, nowMs);
      if (plan.blocks.length > 0) {
        s.peer.send({ command: 'getdata', items: plan.blocks.map((e) => ({ type: MSG_WITNESS_BLOCK, hash: e.hash })) });
      }
      if (plan.staller !== null) {
        const staller = this.peers.get(plan.staller);
        if (staller && staller.stallingSince === null) staller.stallingSince = nowMs;
      }
    }
  }

  private checkStalling(nowMs: number): void {
    for (const s of this.peers.values()) {
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

  /** The work a header chain must reach to be stored: our tip's, less ANTI_DOS_BLOCKS blocks of it. */
  private antiDosWorkThreshold(): bigint {
    const tip = this.deps.chain.tip;
    const margin = blockProof(tip.header.bits) * BigInt(ANTI_DOS_BLOCKS);
    return tip.chainWork > margin ? tip.chainWork - margin : 0n;
  }

  private onHeaders(state: PeerState, headers: readonly BlockHeader[]): void {
    const { chain } = this.deps;
    const { peer } = state;
    state.headersRequestedAt = 0;
    if (headers.length === 0) return;
    for (let i = 1; i < headers.length; i++) {
      if (!bytesEqual(headers[i].prevHash, headers[i - 1].hash)) {
        this.misbehaving(peer, 'non-continuous headers sequence');
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
      this.misbehaving(peer, `invalid header: ${error.reason}`);
      return;
    }
    if (headers.length === MAX_HEADERS_RESULTS && last) {
      state.headersRequestedAt = Date.now();
      peer.send({ command: 'getheaders', locator: chain.locator(last), stop: new Uint8Array(32) });
    }
    this.scheduleDownloads();
  }

  private async onBlock(state: PeerState, block: Block, raw: Uint8Array): Promise<void> {
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
      this.misbehaving(state.peer, `invalid block ${hashHex}: ${reason}`);
      return;
    }
    if (result.status === 'accepted') state.lastBlockAt = Date.now();
    const entry = chain.entry(hashHex);
    if (entry && (!state.bestKnown || entry.chainWork > state.bestKnown.chainWork)) state.bestKnown = entry;
    this.scheduleDownloads();
  }

  private onGetHeaders(state: PeerState, locator: readonly Uint8Array[], stop: Uint8Array): void {
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
  private readonly onTip = (tip: BlockIndexEntry): void => {
    const { chain } = this.deps;
    this.download.progressed();
    const previous = this.lastAnnounced!;
    this.lastAnnounced = tip;
    if (chain.bestHeader.chainWork > tip.chainWork) return;
    const fork = findFork(previous, tip);
    const fresh: BlockIndexEntry[] = [];
    for (let e: BlockIndexEntry | null = tip; e && e !== fork && fresh.length <= MAX_BLOCKS_TO_ANNOUNCE; e = e.prev) fresh.unshift(e);
    for (const s of this.peers.values()) {
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

  // ---- inventory ----

  private onInv(state: PeerState, items: readonly InvItem[]): void {
    const { chain, mempool } = this.deps;
    const wanted: InvItem[] = [];
    for (const item of items) {
      const hashHex = hashToHex(item.hash);
      state.known.add(hashHex);
      if ((item.type & ~MSG_WITNESS_FLAG) === MSG_BLOCK) {
        const known = chain.entry(hashHex);
        if (!known) this.requestHeaders(state);
        else if (!known.isFailed() && (!state.bestKnown || known.chainWork > state.bestKnown.chainWork)) state.bestKnown = known;
        continue;
      }
      const isTx = item.type === MSG_WTX ? state.peer.wtxidRelay : (item.type & ~MSG_WITNESS_FLAG) === MSG_TX;
      if (!isTx) continue;
      const known = item.type === MSG_WTX ? mempool.byWtxid(hashHex) : mempool.get(hashHex);
      if (known || this.recentRejects.has(hashHex) || this.orphans.has(hashHex) || this.txRequested.has(hashHex)) continue;
      if (state.txRequests >= MAX_TX_REQUESTS_PER_PEER) continue;
      state.txRequests++;
      this.txRequested.set(hashHex, { peer: state.peer.id, at: Date.now() });
      wanted.push({ type: item.type === MSG_WTX ? MSG_WTX : MSG_WITNESS_TX, hash: item.hash });
    }
    if (wanted.length > 0) state.peer.send({ command: 'getdata', items: wanted });
  }

  private onGetData(state: PeerState, items: readonly InvItem[]): void {
    // One getdata message's worth may wait (Core's MAX_INV_SZ); a peer never needs more outstanding.
    if (state.getData.length + items.length > MAX_INV_SIZE) {
      this.misbehaving(state.peer, `getdata: more than ${MAX_INV_SIZE} items waiting`);
      return;
    }
    for (const item of items) state.getData.push(item);
    this.serveGetData(state);
  }

  /**
   * Serves queued getdata items in order until the send buffer passes -maxsendbuffer; the rest
   * wait for the buffer to drain. Dropping them instead would leave the peer waiting for blocks
   * that never come, until its download timeout (ten minutes).
   */
  private serveGetData(state: PeerState): void {
    const { chain, mempool } = this.deps;
    const notFound: InvItem[] = [];
    let served = 0;
    for (const item of state.getData) {
      if (state.peer.sendBufferFull) break;
      served++;
      const hashHex = hashToHex(item.hash);
      const base = item.type & ~MSG_WITNESS_FLAG;
      if (base === MSG_BLOCK) {
        const e = chain.entry(hashHex);
        const raw = e?.hasData() && !e.isFailed() ? chain.readRawBlock(e) : undefined;
        if (!raw) {
          notFound.push(item);
          continue;
        }
        // MSG_BLOCK asks for the serialization without witnesses (Core).
        state.peer.sendRaw('block', item.type === MSG_WITNESS_BLOCK ? raw : chain.readBlock(e!)!.encode(false));
        continue;
      }
      const entry = item.type === MSG_WTX ? mempool.byWtxid(hashHex) : base === MSG_TX ? mempool.get(hashHex) : undefined;
      if (!entry) {
        notFound.push(item);
        continue;
      }
      state.peer.sendRaw('tx', entry.tx.encode(item.type !== MSG_TX));
    }
    state.getData.splice(0, served);
    if (notFound.length > 0) state.peer.send({ command: 'notfound', items: notFound });
  }

  private onTx(state: PeerState, tx: Transaction): void {
    const { mempool } = this.deps;
    const { peer } = state;
    for (const h of [tx.txidHex, tx.wtxidHex]) {
      state.known.add(h);
      const r = this.txRequested.get(h);
      if (r?.peer === peer.id) state.txRequests = Math.max(0, state.txRequests - 1);
      this.txRequested.delete(h);
    }
    if (mempool.get(tx.txidHex) || this.recentRejects.has(tx.wtxidHex)) return;
    state.lastTxAt = Date.now();
    this.acceptTransaction(tx, state);
  }

  /** Mempool admission of a relayed transaction, then of the orphans it was missing. */
  private acceptTransaction(tx: Transaction, from: PeerState | null): void {
    const { mempool } = this.deps;
    const work = [{ tx, from }];
    while (work.length > 0) {
      const next = work.pop()!;
      const result = mempool.accept(next.tx);
      if (result.kind === 'accepted') {
        for (const child of this.orphans.takeChildren(next.tx.txidHex)) work.push({ tx: child.tx, from: this.peers.get(child.from) ?? null });
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
          this.misbehaving(next.from.peer, `invalid transaction ${next.tx.txidHex}: ${result.reason}`);
      }
    }
  }

  private readonly onMempoolAdded = ({ entry }: { entry: { txid: string; wtxid: string } }): void => {
    for (const s of this.peers.values()) {
      if (!s.peer.handshakeDone || s.peer.version?.relay === false) continue;
      const id = s.peer.wtxidRelay ? entry.wtxid : entry.txid;
      if (!s.known.has(id)) s.txQueue.add(entry.txid);
    }
  };

  /** Sends each peer its queued transactions at Poisson-distributed times, ordered parents first and fee-filtered. */
  private trickle(nowMs: number): void {
    const { mempool } = this.deps;
    for (const s of this.peers.values()) {
      if (s.txQueue.size === 0 || nowMs < s.nextTrickle) continue;
      const mean = s.peer.inbound ? INBOUND_TRICKLE_MS : OUTBOUND_TRICKLE_MS;
      s.nextTrickle = nowMs - Math.log(1 - Math.random()) * mean;
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

  private onMempoolRequest(state: PeerState): void {
    const { mempool } = this.deps;
    for (const e of mempool.entries()) state.txQueue.add(e.txid);
    state.nextTrickle = 0;
  }

  // ---- addresses ----

  private onAddr(state: PeerState, addresses: readonly (NetAddress & { time: number })[]): void {
    const nowMs = Date.now();
    state.addrTokens = Math.min(ADDR_BUCKET_MAX, state.addrTokens + ((nowMs - state.addrTokensAt) / 1000) * ADDR_RATE_PER_SECOND);
    state.addrTokensAt = nowMs;
    for (const a of addresses) {
      // Core's rate limit: addresses beyond the token bucket are dropped (whitelisted peers are exempt).
      if (!state.peer.noban) {
        if (state.addrTokens < 1) break;
        state.addrTokens--;
      }
      this.addrman.add(a, state.peer.address.host);
    }
    if (state.getaddrAnswered && state.peer.type === 'manual' && state.target === null) state.peer.close('seednode: addresses fetched');
  }

  private onGetAddr(state: PeerState): void {
    // Core answers once per connection, and only inbound peers (an outbound one could fingerprint us).
    if (!state.peer.inbound || state.getaddrAnswered) return;
    state.getaddrAnswered = true;
    const addresses = this.addrman.sample().map((a) => ({ host: a.host, port: a.port, services: a.services, time: a.time }));
    state.peer.send({ command: 'addr', addresses });
  }

  // ---- OPoI content ----

  /** Relays content this node published (or accepted) to every peer that has not seen it. */
  publishOpoiContent(requestId: Uint8Array, content: Uint8Array, except: number | null = null): void {
    const key = hashToHex(sha256d(Buffer.concat([requestId, content])));
    this.seenOpoi.add(key);
    for (const s of this.peers.values()) {
      if (s.peer.id === except || !s.peer.handshakeDone || s.known.has(key)) continue;
      s.known.add(key);
      s.peer.send({ command: 'opoicontent', requestId, content });
    }
  }

  private onOpoiContent(state: PeerState, requestId: Uint8Array, content: Uint8Array): void {
    const store = this.deps.opoi;
    const key = hashToHex(sha256d(Buffer.concat([requestId, content])));
    state.known.add(key);
    if (!store || this.seenOpoi.has(key)) return;
    if (!store.accept(requestId, content)) return;
    this.publishOpoiContent(requestId, content, state.peer.id);
  }

  // ---- dispatch ----

  private async onMessage(peer: Peer, m: Message): Promise<void> {
    const state = this.peers.get(peer.id);
    if (!state) return;
    switch (m.command) {
      case 'headers':
        this.onHeaders(state, m.headers);
        return;
      case 'getheaders':
        this.onGetHeaders(state, m.locator, m.stop);
        return;
      case 'block':
        await this.onBlock(state, m.block, m.raw);
        return;
      case 'inv':
        this.onInv(state, m.items);
        return;
      case 'getdata':
        this.onGetData(state, m.items);
        return;
      case 'notfound':
        for (const item of m.items) {
          const hashHex = hashToHex(item.hash);
          if (this.txRequested.get(hashHex)?.peer === peer.id) {
            this.txRequested.delete(hashHex);
            state.txRequests = Math.max(0, state.txRequests - 1);
          }
        }
        return;
      case 'tx':
        this.onTx(state, m.tx);
        return;
      case 'mempool':
        this.onMempoolRequest(state);
        return;
      case 'addr':
        this.onAddr(state, m.addresses);
        return;
      case 'getaddr':
        this.onGetAddr(state);
        return;
      case 'opoicontent':
        this.onOpoiContent(state, m.requestId, m.content);
        return;
    }
  }

  // ---- what RPC and metrics read ----

  get connectionCount(): number {
    return [...this.peers.values()].filter((s) => s.peer.handshakeDone).length;
  }

  peerStates(): readonly PeerState[] {
    return [...this.peers.values()];
  }

  totals(): { sent: number; received: number } {
    let sent = this.closedBytes.sent;
    let received = this.closedBytes.received;
    for (const s of this.peers.values()) {
      sent += s.peer.bytesSent;
      received += s.peer.bytesReceived;
    }
    return { sent, received };
  }

  blocksInFlight(peer: number): number {
    return this.download.inFlightCount(peer);
  }

  /** addnode add/remove/onetry; returns an error message for the RPC, or null. */
  addNode(target: string, command: 'add' | 'remove' | 'onetry'): string | null {
    if (command === 'onetry') {
      this.connectTo(target, 'manual', null);
      return null;
    }
    if (command === 'add') {
      if (this.addedNodes.has(target)) return 'Error: Node already added';
      this.addedNodes.set(target, 0);
      return null;
    }
    if (!this.addedNodes.delete(target)) return 'Error: Node could not be removed. It has not been added previously.';
    return null;
  }

  addedNodeInfo(): { target: string; connected: PeerState | null }[] {
    return [...this.addedNodes.keys()].map((target) => ({ target, connected: [...this.peers.values()].find((s) => s.target === target) ?? null }));
  }

  /** disconnectnode by "host:port" or id; returns whether a peer was found. */
  disconnect(match: { address?: string; id?: number }): boolean {
    for (const s of this.peers.values()) {
      const a = formatHostPort(s.peer.address.host, s.peer.address.port);
      if (
        (match.id !== undefined && s.peer.id === match.id) ||
        (match.address !== undefined && (a === match.address || s.target === match.address))
      ) {
        s.peer.close('disconnectnode');
        return true;
      }
    }
    return false;
  }

  /** setban add: bans the subnet and disconnects the peers in it. */
  ban(subnet: string, until: number): boolean {
    if (!this.banlist.ban(subnet, until)) return false;
    for (const s of this.peers.values()) if (!s.peer.noban && this.banlist.isBanned(s.peer.address.host)) s.peer.close('banned');
    void this.save();
    return true;
  }

  unban(subnet: string): boolean {
    const removed = this.banlist.unban(subnet);
    if (removed) void this.save();
    return removed;
  }

  clearBanned(): void {
    this.banlist.clear();
    void this.save();
  }

  /** ping RPC: every peer gets a ping at the next tick. */
  pingAll(): void {
    for (const s of this.peers.values()) s.peer.pingRequested = true;
  }

  readonly localServices = LOCAL_SERVICES;
}

/** A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d. */
function normalizeHost(host: string): string {
  return host.startsWith('::ffff:') && host.includes('.') ? host.slice(7) : host;
}

function fromHashHex(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex').reverse());
}
