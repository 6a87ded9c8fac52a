/**
 * The Network category, as Core's rpc/net.cpp offers it: peers, traffic, added nodes, bans,
 * ping. Everything is read from and done through the node's Network.
 */
import { isIP } from 'node:net';
import { PERMISSIONS } from '../config/whitelist.ts';
import { BanList } from './banlist.ts';
import { formatHostPort } from './netaddr.ts';
import type { Network } from './network.ts';
import { NODE_NETWORK, NODE_WITNESS, PROTOCOL_VERSION, USER_AGENT } from './protocol.ts';
import { feeRateToCoins } from '../policy/feerate.ts';
import { RpcError, RpcErrorCode } from '../rpc/errors.ts';
import type { JsonObject } from '../format/json-value.ts';
import type { ChainContext } from '../rpc/context.ts';
import type { RpcRegistry } from '../rpc/registry.ts';

function servicesHex(services: bigint): string {
  return services.toString(16).padStart(16, '0');
}

function serviceNames(services: bigint): string[] {
  const names: string[] = [];
  if (services & NODE_NETWORK) names.push('NETWORK');
  if (services & NODE_WITNESS) names.push('WITNESS');
  return names;
}

function perMessage(counters: Map<string, number>): JsonObject {
  return Object.fromEntries([...counters.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

/** What the network's RPC methods may use of a running node: the chain's context and the peer-to-peer network. */
export interface NetworkRpcContext extends ChainContext {
  /** The peer-to-peer network (started last, once everything it serves is loaded). Without one, as in in-process test nodes, the category is absent. */
  readonly network?: Network;
}

export function registerNetworkMethods(registry: RpcRegistry, ctx: NetworkRpcContext): void {
  const { network } = ctx;
  if (!network) return;
  registry.register({
    name: 'getconnectioncount',
    category: 'Network',
    description: 'Returns the number of connections to other nodes.',
    params: [],
    result: 'n    (numeric) The connection count',
    examples: [{ args: [] }],
    handler: async () => network.connectionCount,
  });

  registry.register({
    name: 'getpeerinfo',
    category: 'Network',
    description: 'Returns data about each connected network peer as a json array of objects.',
    params: [],
    result: [
      '[ {  (json object)',
      '  "id" : n, "addr" : "host:port", "addrbind" : "ip:port", "network" : "ipv4|ipv6", "services" : "hex", "servicesnames" : [...],',
      '  "relaytxes" : bool, "lastsend" : n, "lastrecv" : n, "bytessent" : n, "bytesrecv" : n, "conntime" : n, "timeoffset" : n,',
      '  "pingtime" : n, "minping" : n, "version" : n, "subver" : "str", "inbound" : bool, "connection_type" : "str",',
      '  "startingheight" : n, "synced_headers" : n, "synced_blocks" : n, "inflight" : n, "permissions" : [...],',
      '  "minfeefilter" : n, "discouraged" : bool, "bytessent_per_msg" : {...}, "bytesrecv_per_msg" : {...}',
      '  (discouraged: the address misbehaved before; an inbound peer from it is the first evicted, see listbanned)',
      '}, ... ]',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () =>
      network
        .peerStates()
        .filter((s) => s.peer.handshakeDone)
        .map((s) => {
          const { peer } = s;
          const local = peer.localAddress;
          const headers = s.bestKnown?.height ?? -1;
          const synced = s.bestKnown ? (ctx.chain.contains(s.bestKnown) ? s.bestKnown.height : -1) : -1;
          return {
            id: peer.id,
            addr: formatHostPort(peer.address.host, peer.address.port),
            ...(peer.pingMs !== null ? { pingtime: peer.pingMs / 1000 } : {}),
            ...(peer.minPingMs !== null ? { minping: peer.minPingMs / 1000 } : {}),
            addrbind: formatHostPort(local.host.replace(/^::ffff:/, ''), local.port),
            network: isIP(peer.address.host) === 6 ? 'ipv6' : 'ipv4',
            services: servicesHex(peer.version?.services ?? 0n),
            servicesnames: serviceNames(peer.version?.services ?? 0n),
            relaytxes: peer.version?.relay ?? false,
            lastsend: Math.floor(peer.lastSend / 1000),
            lastrecv: Math.floor(peer.lastReceive / 1000),
            bytessent: peer.bytesSent,
            bytesrecv: peer.bytesReceived,
            conntime: Math.floor(peer.connectedAt / 1000),
            timeoffset: 0,
            version: peer.version?.version ?? 0,
            subver: peer.version?.userAgent ?? '',
            inbound: peer.inbound,
            connection_type: peer.type,
            startingheight: peer.version?.startHeight ?? -1,
            synced_headers: headers,
            synced_blocks: synced,
            inflight: network.blocksInFlight(peer.id),
            permissions: PERMISSIONS.filter((p) => peer.permissions.has(p)),
            minfeefilter: feeRateToCoins(peer.feeFilter),
            discouraged: network.banlist.isDiscouraged(peer.address.host),
            bytessent_per_msg: perMessage(peer.counters.sent),
            bytesrecv_per_msg: perMessage(peer.counters.received),
          };
        }),
  });

  registry.register({
    name: 'getnetworkinfo',
    category: 'Network',
    description: 'Returns an object containing various state info regarding P2P networking.',
    params: [],
    result: [
      '{ "version" : n, "subversion" : "str", "protocolversion" : n, "localservices" : "hex", "localservicesnames" : [...],',
      '  "localrelay" : true, "timeoffset" : 0, "networkactive" : true, "connections" : n, "connections_in" : n, "connections_out" : n,',
      '  "networks" : [...], "relayfee" : n, "incrementalfee" : n, "localaddresses" : [...], "warnings" : [] }',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => {
      const peers = network.peerStates().filter((s) => s.peer.handshakeDone);
      const inbound = peers.filter((s) => s.peer.inbound).length;
      const o = ctx.config.options;
      return {
        version: 10000,
        subversion: USER_AGENT,
        protocolversion: PROTOCOL_VERSION,
        localservices: servicesHex(network.localServices),
        localservicesnames: serviceNames(network.localServices),
        localrelay: true,
        timeoffset: 0,
        networkactive: network.active,
        connections: peers.length,
        connections_in: inbound,
        connections_out: peers.length - inbound,
        networks: ['ipv4', 'ipv6'].map((name) => ({ name, limited: false, reachable: true, proxy: '', proxy_randomize_credentials: false })),
        relayfee: feeRateToCoins(o.minrelaytxfee),
        incrementalfee: feeRateToCoins(o.incrementalrelayfee),
        localaddresses: network.localAddresses.map((a) => ({ address: a.host, port: a.port, score: 1 })),
        warnings: [],
      };
    },
  });

  registry.register({
    name: 'addnode',
    category: 'Network',
    description:
      "Attempts to add or remove a node from the addnode list, or to try a connection to a node once. Nodes added are kept connected (reconnected when they drop); 'onetry' connects once.",
    params: [
      { name: 'node', type: 'string', description: 'The address of the peer to connect to (host or host:port)' },
      {
        name: 'command',
        type: 'string',
        description: "'add' to add a node to the list, 'remove' to remove a node from the list, 'onetry' to try a connection to the node once",
      },
    ],
    result: 'null    (json null)',
    examples: [{ args: ['192.168.0.6:16125', 'onetry'] }],
    handler: async ([node, command]) => {
      if (command !== 'add' && command !== 'remove' && command !== 'onetry') {
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, "command must be one of 'add', 'remove' or 'onetry'");
      }
      const error = network.addNode(node, command);
      if (error) {
        throw new RpcError(command === 'add' ? RpcErrorCode.CLIENT_NODE_ALREADY_ADDED : RpcErrorCode.CLIENT_NODE_NOT_ADDED, error);
      }
      return null;
    },
  });

  registry.register({
    name: 'disconnectnode',
    category: 'Network',
    description: 'Immediately disconnects from the specified peer node. Give either the address or the node id (with an empty address).',
    params: [
      { name: 'address', type: 'string', optional: true, description: 'The address of the peer (host:port)' },
      { name: 'nodeid', type: 'integer', optional: true, description: 'The node ID (see getpeerinfo for node IDs)' },
    ],
    result: 'null    (json null)',
    examples: [{ args: ['192.168.0.6:16125'] }, { args: ['', 1] }],
    handler: async ([address, nodeid]) => {
      const byAddress = address !== undefined && address !== '';
      if (byAddress === (nodeid !== undefined))
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Only one of address and nodeid should be provided.');
      const found = byAddress ? network.disconnect({ address }) : network.disconnect({ id: nodeid });
      if (!found) throw new RpcError(RpcErrorCode.CLIENT_NODE_NOT_CONNECTED, 'Node not found in connected nodes');
      return null;
    },
  });

  registry.register({
    name: 'getaddednodeinfo',
    category: 'Network',
    description: 'Returns information about the given added node, or all added nodes (onetry nodes are not listed).',
    params: [{ name: 'node', type: 'string', optional: true, description: 'If provided, return information about this specific node' }],
    result: '[ { "addednode" : "str", "connected" : bool, "addresses" : [ { "address" : "host:port", "connected" : "inbound|outbound" } ] }, ... ]',
    examples: [{ args: [] }],
    handler: async ([node]) => {
      const all = network.addedNodeInfo();
      const list = node === undefined ? all : all.filter((a) => a.target === node);
      if (node !== undefined && list.length === 0) throw new RpcError(RpcErrorCode.CLIENT_NODE_NOT_ADDED, 'Error: Node has not been added.');
      return list.map(({ target, connected }) => ({
        addednode: target,
        connected: connected !== null,
        addresses: connected ? [{ address: formatHostPort(connected.peer.address.host, connected.peer.address.port), connected: 'outbound' }] : [],
      }));
    },
  });

  registry.register({
    name: 'setban',
    category: 'Network',
    description: 'Attempts to add or remove an IP/Subnet from the banned list. Banned peers are disconnected and refused.',
    params: [
      {
        name: 'subnet',
        type: 'string',
        description: 'The IP/Subnet (see getpeerinfo for nodes IP) with an optional netmask (default is /32 = single IP)',
      },
      { name: 'command', type: 'string', description: "'add' to add an IP/Subnet to the list, 'remove' to remove an IP/Subnet from the list" },
      {
        name: 'bantime',
        type: 'integer',
        default: 0,
        description:
          'time in seconds how long (or until when if [absolute] is set) the IP is banned (0 or empty means using the default time of 24h which can also be overwritten by the -bantime startup argument)',
      },
      {
        name: 'absolute',
        type: 'boolean',
        default: false,
        description: 'If set, the bantime must be an absolute timestamp expressed in UNIX epoch time',
      },
    ],
    result: 'null    (json null)',
    examples: [{ args: ['192.168.0.6', 'add', 86400] }, { args: ['192.168.0.0/24', 'add'] }],
    handler: async ([subnetText, command, bantime, absolute]) => {
      if (command !== 'add' && command !== 'remove') throw new RpcError(RpcErrorCode.INVALID_PARAMETER, "command must be 'add' or 'remove'");
      const subnet = BanList.normalize(subnetText);
      if (!subnet) throw new RpcError(RpcErrorCode.CLIENT_INVALID_IP_OR_SUBNET, 'Error: Invalid IP/Subnet');
      if (command === 'remove') {
        if (!network.unban(subnet))
          throw new RpcError(
            RpcErrorCode.CLIENT_INVALID_IP_OR_SUBNET,
            'Error: Unban failed. Requested address/subnet was not previously manually banned.',
          );
        return null;
      }
      const now = ctx.clock.now();
      const seconds = bantime && bantime > 0 ? bantime : ctx.config.options.bantime;
      const until = absolute ? seconds : now + seconds;
      if (until <= now) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Error: Absolute timestamp is in the past');
      if (!network.ban(subnet, until)) throw new RpcError(RpcErrorCode.CLIENT_NODE_ALREADY_ADDED, 'Error: IP/Subnet already banned');
      return null;
    },
  });

  registry.register({
    name: 'listbanned',
    category: 'Network',
    description:
      'List all manually banned IPs/Subnets, then the addresses discouraged for misbehaving (until restart or clearbanned; not connected to, first evicted), marked "discouraged": true.',
    params: [],
    result: [
      '[ { "address" : "str", "ban_created" : n, "banned_until" : n, "ban_duration" : n, "time_remaining" : n, "discouraged" : false }, ...,',
      '  { "address" : "ip/32|ip/128", "ban_created" : n (when discouraged), "discouraged" : true, "reason" : "str" (the misbehaviour) }, ... ]',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => {
      const now = ctx.clock.now();
      const bans = network.banlist.list().map((b) => ({
        address: b.subnet,
        ban_created: b.created,
        banned_until: b.until,
        ban_duration: b.until - b.created,
        time_remaining: Math.max(0, b.until - now),
        discouraged: false,
      }));
      const discouraged = network.banlist.discouragements().map((d) => ({
        address: BanList.normalize(d.host) ?? d.host,
        ban_created: d.since,
        discouraged: true,
        reason: d.reason,
      }));
      return [...bans, ...discouraged];
    },
  });

  registry.register({
    name: 'setnetworkactive',
    category: 'Network',
    description:
      'Disable/enable all p2p network activity. Disabling disconnects every peer and stops connecting and accepting connections until it is enabled again.',
    params: [{ name: 'state', type: 'boolean', description: 'true to enable networking, false to disable' }],
    result: 'true|false    (boolean) The value that was passed in',
    examples: [{ args: [false] }],
    handler: async ([state]) => {
      network.setActive(state);
      return network.active;
    },
  });

  registry.register({
    name: 'clearbanned',
    category: 'Network',
    description: 'Clear all banned IPs (and forget discouraged ones).',
    params: [],
    result: 'null    (json null)',
    examples: [{ args: [] }],
    handler: async () => {
      network.clearBanned();
      return null;
    },
  });

  registry.register({
    name: 'getnettotals',
    category: 'Network',
    description: 'Returns information about network traffic, including bytes in, bytes out, and current system time.',
    params: [],
    result: '{ "totalbytesrecv" : n, "totalbytessent" : n, "timemillis" : n, "uploadtarget" : { ... } }',
    examples: [{ args: [] }],
    handler: async () => {
      const totals = network.totals();
      return {
        totalbytesrecv: totals.received,
        totalbytessent: totals.sent,
        timemillis: Date.now(),
        // -maxuploadtarget is not offered: no target, never reached.
        uploadtarget: {
          timeframe: 86400,
          target: 0,
          target_reached: false,
          serve_historical_blocks: true,
          bytes_left_in_cycle: 0,
          time_left_in_cycle: 0,
        },
      };
    },
  });

  registry.register({
    name: 'ping',
    category: 'Network',
    description: 'Requests that a ping be sent to all other nodes, to measure ping time. Results are in getpeerinfo pingtime and minping.',
    params: [],
    result: 'null    (json null)',
    examples: [{ args: [] }],
    handler: async () => {
      network.pingAll();
      return null;
    },
  });
}
