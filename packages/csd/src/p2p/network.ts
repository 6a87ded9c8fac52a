/**
 * The peer-to-peer network of a node: the peers, what each message means, and the periodic work.
 * Connections and addr gossip are in connections.ts, headers-first sync with parallel block
 * download and block announcements in block-sync.ts, transaction relay with trickling and an
 * orphan pool in tx-relay.ts, OPoI content relay in opoi-content.ts. The chain and mempool are
 * used through their public methods and events only.
 */
import type { Socket } from 'node:net';
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type ChainParams, hashToHex } from '@cs/consensus';
import type { Chain } from '../chain/chainstate.ts';
import type { Mempool } from '../mempool/mempool.ts';
import { AddressManager } from './addrman.ts';
import { BanList } from './banlist.ts';
import { BlockSync } from './block-sync.ts';
import { Connections } from './connections.ts';
import type { InvItem, Message } from './messages.ts';
import { formatHostPort, type NetAddress } from './netaddr.ts';
import type { NetworkOptions } from './network-options.ts';
import { type OpoiContentSink, OpoiContentRelay } from './opoi-content.ts';
import { type ConnectionType, Peer } from './peer.ts';
import { PeerState } from './peer-state.ts';
import { LOCAL_SERVICES, MAX_INV_SIZE, MSG_BLOCK, MSG_TX, MSG_WITNESS_BLOCK, MSG_WITNESS_FLAG, MSG_WTX } from './protocol.ts';
import { TxRelay } from './tx-relay.ts';
import type { Permissions } from './whitelist.ts';

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

/** How often the network looks at timeouts, downloads, outbound slots and trickled inventory. */
const TICK_MS = 500;
/** peers.json and banlist.json are saved this often (and on shutdown). */
const SAVE_MS = 15 * 60_000;

export class Network {
  private readonly peers = new Map<number, PeerState>();
  readonly banlist: BanList;
  readonly addrman: AddressManager;
  private readonly connections: Connections;
  private readonly sync: BlockSync;
  private readonly txs: TxRelay;
  private readonly opoiRelay: OpoiContentRelay;
  private timer: NodeJS.Timeout | null = null;
  private lastSave = Date.now();
  private closedBytes = { sent: 0, received: 0 };
  private started = false;
  private stopped = false;
  /** setnetworkactive: while false no connection is made or taken (getnetworkinfo's networkactive). */
  private networkActive = true;

  constructor(private readonly deps: NetworkDeps) {
    const misbehaving = (peer: Peer, reason: string) => this.misbehaving(peer, reason);
    this.banlist = new BanList(join(deps.dataDir, 'banlist.json'), deps.now);
    this.addrman = new AddressManager(join(deps.dataDir, 'peers.json'), deps.now);
    this.connections = new Connections({
      peers: this.peers,
      banlist: this.banlist,
      addrman: this.addrman,
      options: deps.options,
      log: deps.log,
      offline: () => this.stopped || !this.networkActive,
      addPeer: (socket, address, type, permissions, target) => this.addPeer(socket, address, type, permissions, target),
    });
    this.sync = new BlockSync({ chain: deps.chain, peers: this.peers, log: deps.log, misbehaving });
    this.txs = new TxRelay({ mempool: deps.mempool, peers: this.peers, now: deps.now, misbehaving });
    this.opoiRelay = new OpoiContentRelay(this.peers, deps.opoi);
  }

  // ---- lifecycle ----

  async start(): Promise<void> {
    const { log, options: o, chain, mempool } = this.deps;
    this.started = true;
    for (const problem of [await this.banlist.load(), await this.addrman.load()]) if (problem) log.warn(problem);
    if (o.listen) await this.connections.listen();
    this.sync.start();
    chain.events.on('tip', this.sync.onTip);
    mempool.events.on('added', this.txs.onMempoolAdded);
    mempool.events.on('rebroadcast', this.txs.onMempoolAdded);
    this.connections.connectToSeeds();
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
    this.deps.chain.events.off('tip', this.sync.onTip);
    this.deps.mempool.events.off('added', this.txs.onMempoolAdded);
    this.deps.mempool.events.off('rebroadcast', this.txs.onMempoolAdded);
    // Peers first: a server's close waits for its open connections.
    for (const s of this.peers.values()) s.peer.close('shutdown');
    await this.connections.closeServers();
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

  // ---- peers ----

  private addPeer(socket: Socket, address: NetAddress, type: ConnectionType, permissions: Permissions, target: string | null): PeerState {
    const { chain, params, now, options } = this.deps;
    const peer = new Peer(
      socket,
      address,
      type,
      permissions,
      { magic: params.magic, handshakeTimeoutMs: options.peertimeout * 1000, startHeight: () => chain.height, now, relay: true },
      {
        ready: (p) => this.onReady(p),
        message: (p, m) => this.onMessage(p, m),
        drained: (p) => {
          const s = this.peers.get(p.id);
          if (s) this.serveGetData(s);
        },
        arrived: (p, m) => {
          if (m.command === 'block') this.sync.arrived(p.id, m.block, m.raw);
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

  private onClosed(peer: Peer, reason: string): void {
    const state = this.peers.get(peer.id);
    if (!state) return;
    this.peers.delete(peer.id);
    this.closedBytes.sent += peer.bytesSent;
    this.closedBytes.received += peer.bytesReceived;
    this.sync.peerClosed(peer.id);
    this.txs.peerClosed(peer.id);
    this.deps.log.info({ peer: peer.id, addr: formatHostPort(peer.address.host, peer.address.port), reason }, 'peer disconnected');
    // The blocks it had in flight go to the others now.
    this.sync.scheduleDownloads();
  }

  /**
   * A protocol violation (Core's Misbehaving since v27: no score, one strike): disconnect, and
   * discourage the address unless the peer has -whitelist's noban or was added by the operator.
   */
  private misbehaving(peer: Peer, reason: string): void {
    const exempt = peer.noban || peer.type === 'manual';
    this.deps.log.warn({ peer: peer.id, addr: peer.address.host, reason, discouraged: !exempt }, 'peer misbehaving');
    if (!exempt) this.banlist.discourage(peer.address.host, reason);
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
    this.txs.sendFeeFilter(state, Date.now());
    this.txs.peerReady(state, Date.now());
    this.sync.requestHeaders(state);
    if (state.getaddrAnswered && peer.type === 'manual' && state.target === null) {
      // A seednode connection: once it has told us its addresses there is nothing more to do.
      setTimeout(() => peer.close('seednode: addresses fetched'), 5000).unref();
    }
  }

  // ---- the periodic work ----

  private tick(): void {
    const nowMs = Date.now();
    for (const s of this.peers.values()) {
      s.peer.tick(nowMs);
      if (s.peer.handshakeDone) this.txs.sendFeeFilter(s, nowMs);
    }
    this.connections.openConnections(nowMs);
    this.sync.checkStalling(nowMs);
    this.sync.scheduleDownloads();
    this.txs.reattemptInitialBroadcast(nowMs);
    this.txs.trickle(nowMs);
    this.txs.expireRequests(nowMs);
    this.sync.logProgress(nowMs);
    if (nowMs - this.lastSave > SAVE_MS) {
      this.lastSave = nowMs;
      void this.save();
    }
  }

  // ---- inventory ----

  private onInv(state: PeerState, items: readonly InvItem[]): void {
    const wanted: InvItem[] = [];
    for (const item of items) {
      const hashHex = hashToHex(item.hash);
      state.known.add(hashHex);
      if ((item.type & ~MSG_WITNESS_FLAG) === MSG_BLOCK) {
        this.sync.onBlockInv(state, hashHex);
        continue;
      }
      const want = this.txs.want(state, item, hashHex);
      if (want) wanted.push(want);
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
      // A peer took it: its initial broadcast is done (Core's RemoveUnbroadcastTx in ProcessGetData).
      mempool.markBroadcast(entry.txid);
    }
    state.getData.splice(0, served);
    if (notFound.length > 0) state.peer.send({ command: 'notfound', items: notFound });
  }

  /** Relays content this node published (or accepted) to every peer that has not seen it. */
  publishOpoiContent(requestId: Uint8Array, content: Uint8Array, except: number | null = null): void {
    this.opoiRelay.publish(requestId, content, except);
  }

  // ---- dispatch ----

  private async onMessage(peer: Peer, m: Message): Promise<void> {
    const state = this.peers.get(peer.id);
    if (!state) return;
    switch (m.command) {
      case 'headers':
        this.sync.onHeaders(state, m.headers);
        return;
      case 'getheaders':
        this.sync.onGetHeaders(state, m.locator, m.stop);
        return;
      case 'block':
        await this.sync.onBlock(state, m.block, m.raw);
        return;
      case 'inv':
        this.onInv(state, m.items);
        return;
      case 'getdata':
        this.onGetData(state, m.items);
        return;
      case 'notfound':
        this.txs.onNotFound(state, m.items);
        return;
      case 'tx':
        this.txs.onTx(state, m.tx);
        return;
      case 'mempool':
        // BIP35 lists the whole mempool, which the trickle's delays exist to hide: as in Core
        // without bloom filters, only a peer with the mempool permission is answered (or an
        // inbound one with bloomfilter, to which Core offers NODE_BLOOM), and one without noban
        // either is disconnected.
        if (state.peer.permissions.has('mempool') || (state.peer.inbound && state.peer.permissions.has('bloomfilter')))
          this.txs.onMempoolRequest(state);
        else if (!state.peer.noban) state.peer.close('mempool request without the mempool permission');
        return;
      case 'addr':
        this.connections.receiveAddr(state, m.addresses);
        return;
      case 'getaddr':
        this.connections.answerGetAddr(state);
        return;
      case 'opoicontent':
        this.opoiRelay.receive(state, m.requestId, m.content);
        return;
    }
  }

  // ---- what RPC and metrics read ----

  get active(): boolean {
    return this.networkActive;
  }

  /**
   * setnetworkactive (Core's CConnman::SetNetworkActive): off disconnects every peer and stops
   * connecting and accepting until turned on again; on, the next tick connects again.
   */
  setActive(active: boolean): void {
    if (active === this.networkActive) return;
    this.networkActive = active;
    this.deps.log.info({ active }, `network activity ${active ? 'enabled' : 'disabled'} (setnetworkactive)`);
    if (!active) for (const s of this.peers.values()) s.peer.close('network disabled (setnetworkactive false)');
  }

  get localAddresses(): readonly { host: string; port: number }[] {
    return this.connections.localAddresses;
  }

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
    return this.sync.blocksInFlight(peer);
  }

  /** addnode add/remove/onetry; returns an error message for the RPC, or null. */
  addNode(target: string, command: 'add' | 'remove' | 'onetry'): string | null {
    return this.connections.addNode(target, command);
  }

  addedNodeInfo(): { target: string; connected: PeerState | null }[] {
    return this.connections.addedNodeInfo();
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

  /**
   * setban add: bans the subnet and disconnects every peer in it, as Core's DisconnectNode(subnet)
   * does; a noban peer among them may connect again, since noban lets it past the ban.
   */
  ban(subnet: string, until: number): boolean {
    if (!this.banlist.ban(subnet, until)) return false;
    for (const s of this.peers.values()) if (this.banlist.isBanned(s.peer.address.host)) s.peer.close('banned');
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
