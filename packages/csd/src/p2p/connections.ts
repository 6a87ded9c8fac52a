/**
 * Which peers the node is connected to: listening and accepting (with inbound eviction), outbound
 * connections to the address manager's picks, -connect/-addnode/-seednode targets, and the addr
 * gossip that feeds the address manager.
 */
import { type Server, type Socket, connect as tcpConnect, createServer } from 'node:net';
import type { Logger } from 'pino';
import { splitHostPort } from '@cs/runtime/config';
import { NO_PERMISSIONS, type Permissions, Whitelist } from './whitelist.ts';
import type { AddressManager } from './addrman.ts';
import type { BanList } from './banlist.ts';
import { selectInboundToEvict } from './eviction.ts';
import { formatHostPort, netGroup, type NetAddress } from './netaddr.ts';
import type { NetworkOptions } from './network-options.ts';
import type { ConnectionType } from './peer.ts';
import { ADDR_BUCKET_MAX, ADDR_RATE_PER_SECOND, type PeerState, type Peers } from './peer-state.ts';

/** Core's MAX_OUTBOUND_FULL_RELAY_CONNECTIONS. */
const MAX_OUTBOUND = 8;
/** Added nodes that are not connected are tried again this often. */
const ADDED_NODE_RETRY_MS = 10_000;
/** Core's -timeout: how long an outbound TCP connect may take. */
const CONNECT_TIMEOUT_MS = 5000;

export interface ConnectionsDeps {
  readonly peers: Peers;
  readonly banlist: BanList;
  readonly addrman: AddressManager;
  readonly options: NetworkOptions;
  readonly log: Logger;
  /** Whether the network is shutting down or turned off (setnetworkactive false): no connection is taken or made then. */
  readonly offline: () => boolean;
  /** Makes a connected socket a peer of the network. */
  readonly addPeer: (socket: Socket, address: NetAddress, type: ConnectionType, permissions: Permissions, target: string | null) => PeerState;
}

export class Connections {
  private readonly servers: Server[] = [];
  private readonly addedNodes = new Map<string, number>();
  private readonly pending = new Set<string>();
  private readonly whitelist: Whitelist;
  readonly localAddresses: { host: string; port: number }[] = [];

  constructor(private readonly deps: ConnectionsDeps) {
    const o = deps.options;
    this.whitelist = new Whitelist(o.whitelist, { relay: o.whitelistrelay, forcerelay: o.whitelistforcerelay });
    for (const node of o.addnode) this.addedNodes.set(node, 0);
  }

  async listen(): Promise<void> {
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
        await this.closeServers();
        throw new Error(`Unable to bind to ${formatHostPort(host, port ?? o.port)} on this computer: ${(err as Error).message}`);
      }
      this.servers.push(server);
      const addr = server.address() as { address: string; port: number };
      this.localAddresses.push({ host: addr.address, port: addr.port });
    }
  }

  /** Resolves once every server closed, which waits for its open connections. */
  async closeServers(): Promise<void> {
    await Promise.all(this.servers.map((s) => new Promise((resolve) => s.close(resolve))));
  }

  /** -seednode: connect, ask for addresses, disconnect. Not with -connect. */
  connectToSeeds(): void {
    const o = this.deps.options;
    for (const seed of o.connect.length > 0 ? [] : o.seednode) this.connectTo(seed, 'manual', null, true);
  }

  private accept(socket: Socket): void {
    const { peers, banlist } = this.deps;
    const host = normalizeHost(socket.remoteAddress ?? '');
    const permissions = this.whitelist.permissions(host, 'inbound');
    const noban = permissions.has('noban');
    if (this.deps.offline() || (!noban && banlist.isBanned(host))) {
      socket.destroy();
      return;
    }
    const inbound = [...peers.values()].filter((s) => s.peer.inbound);
    const maxInbound = Math.max(0, this.deps.options.maxconnections - MAX_OUTBOUND);
    if (inbound.length >= maxInbound) {
      const victim =
        !noban && banlist.isDiscouraged(host)
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
                discouraged: banlist.isDiscouraged(s.peer.address.host),
              })),
            );
      if (victim === null) {
        socket.destroy();
        return;
      }
      peers.get(victim)?.peer.close('evicted to make room for an inbound connection');
    }
    this.deps.addPeer(socket, { services: 0n, host, port: socket.remotePort ?? 0 }, 'inbound', permissions, null);
  }

  /**
   * Opens an outbound connection to "host[:port]". `oneShot` (seednode): ask for addresses and
   * disconnect once they come.
   */
  connectTo(target: string, type: ConnectionType, addedKey: string | null, oneShot = false): void {
    const parsed = splitHostPort(target);
    if (!parsed || this.pending.has(target) || this.deps.offline()) return;
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
      if (this.deps.offline()) {
        socket.destroy();
        return;
      }
      const host = normalizeHost(socket.remoteAddress ?? parsed.host);
      // As in Core, only the connections made by hand take -whitelist's out entries, not a seednode's.
      const permissions = type === 'manual' && !oneShot ? this.whitelist.permissions(host, 'outbound') : NO_PERMISSIONS;
      const state = this.deps.addPeer(socket, { services: 0n, host, port }, type, permissions, addedKey);
      if (oneShot) state.getaddrAnswered = true;
    });
    if (type === 'outbound-full-relay') this.deps.addrman.attempt(parsed.host, port);
  }

  /** Retries the manual targets and fills the outbound slots, one new connection per call. */
  openConnections(nowMs: number): void {
    if (this.deps.offline()) return;
    const { options: o, peers, banlist } = this.deps;
    const manual = o.connect.length > 0 ? o.connect : [...this.addedNodes.keys()];
    for (const target of manual) {
      const lastTry = this.addedNodes.get(target) ?? 0;
      if (this.connectedTo(target) || nowMs - lastTry < ADDED_NODE_RETRY_MS) continue;
      this.addedNodes.set(target, nowMs);
      this.connectTo(target, 'manual', target);
    }
    if (o.connect.length > 0) return;
    const outbound = [...peers.values()].filter((s) => s.peer.type === 'outbound-full-relay');
    if (outbound.length + this.pending.size >= Math.min(MAX_OUTBOUND, o.maxconnections)) return;
    const groups = new Set(outbound.map((s) => netGroup(s.peer.address.host)));
    const pick = this.deps.addrman.select(
      (a) =>
        groups.has(netGroup(a.host)) || banlist.isBanned(a.host) || banlist.isDiscouraged(a.host) || this.connectedTo(formatHostPort(a.host, a.port)),
    );
    if (pick) this.connectTo(formatHostPort(pick.host, pick.port), 'outbound-full-relay', null);
  }

  private connectedTo(target: string): boolean {
    const parsed = splitHostPort(target);
    if (!parsed) return false;
    const port = parsed.port ?? this.deps.options.port;
    for (const s of this.deps.peers.values()) {
      if (s.target === target) return true;
      if (!s.peer.inbound && s.peer.address.host === normalizeHost(parsed.host) && s.peer.address.port === port) return true;
    }
    return this.pending.has(target);
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
    const peers = [...this.deps.peers.values()];
    return [...this.addedNodes.keys()].map((target) => ({ target, connected: peers.find((s) => s.target === target) ?? null }));
  }

  // ---- addresses ----

  receiveAddr(state: PeerState, addresses: readonly (NetAddress & { time: number })[]): void {
    const nowMs = Date.now();
    state.addrTokens = Math.min(ADDR_BUCKET_MAX, state.addrTokens + ((nowMs - state.addrTokensAt) / 1000) * ADDR_RATE_PER_SECOND);
    state.addrTokensAt = nowMs;
    for (const a of addresses) {
      // Core's rate limit: addresses beyond the token bucket are dropped (peers with the addr permission are exempt).
      if (!state.peer.permissions.has('addr')) {
        if (state.addrTokens < 1) break;
        state.addrTokens--;
      }
      this.deps.addrman.add(a, state.peer.address.host);
    }
    if (state.getaddrAnswered && state.peer.type === 'manual' && state.target === null) state.peer.close('seednode: addresses fetched');
  }

  answerGetAddr(state: PeerState): void {
    // Core answers once per connection, and only inbound peers (an outbound one could fingerprint us).
    if (!state.peer.inbound || state.getaddrAnswered) return;
    state.getaddrAnswered = true;
    const addresses = this.deps.addrman.sample().map((a) => ({ host: a.host, port: a.port, services: a.services, time: a.time }));
    state.peer.send({ command: 'addr', addresses });
  }
}

/** A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d. */
function normalizeHost(host: string): string {
  return host.startsWith('::ffff:') && host.includes('.') ? host.slice(7) : host;
}
