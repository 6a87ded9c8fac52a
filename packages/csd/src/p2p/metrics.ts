import type { MetricsRegistry } from '@cs/runtime/metrics';
import { formatHostPort } from './netaddr.ts';
import type { Network } from './network.ts';

/** How often the per-peer series are brought up to date. */
const UPDATE_MS = 1000;

/**
 * The network's Prometheus series: connections, total traffic, and per peer (labelled by id and
 * address) bytes each way, ping and blocks in flight. Series of disconnected peers are dropped.
 * Returns the timer to clear at shutdown.
 */
export function registerNetworkMetrics(registry: MetricsRegistry, network: Network): NodeJS.Timeout {
  const connections = registry.gauge({ name: 'csd_peers', help: 'Connected peers (handshake done), by direction.', labelNames: ['direction'] });
  const total = registry.gauge({
    name: 'csd_net_bytes_total',
    help: 'Bytes exchanged with peers since start, by direction.',
    labelNames: ['direction'],
  });
  const labelNames = ['peer', 'addr'] as const;
  const sent = registry.gauge({ name: 'csd_peer_bytes_sent', help: 'Bytes sent to a connected peer.', labelNames });
  const received = registry.gauge({ name: 'csd_peer_bytes_received', help: 'Bytes received from a connected peer.', labelNames });
  const ping = registry.gauge({ name: 'csd_peer_ping_seconds', help: 'Round trip of the last answered ping to a peer.', labelNames });
  const inFlight = registry.gauge({ name: 'csd_peer_blocks_in_flight', help: 'Blocks requested from a peer and not received yet.', labelNames });
  let shown = new Map<number, { peer: string; addr: string }>();
  const update = () => {
    const states = network.peerStates().filter((s) => s.peer.handshakeDone);
    connections.set({ direction: 'inbound' }, states.filter((s) => s.peer.inbound).length);
    connections.set({ direction: 'outbound' }, states.filter((s) => !s.peer.inbound).length);
    const totals = network.totals();
    total.set({ direction: 'sent' }, totals.sent);
    total.set({ direction: 'received' }, totals.received);
    const next = new Map<number, { peer: string; addr: string }>();
    for (const { peer } of states) {
      const labels = { peer: String(peer.id), addr: formatHostPort(peer.address.host, peer.address.port) };
      next.set(peer.id, labels);
      sent.set(labels, peer.bytesSent);
      received.set(labels, peer.bytesReceived);
      if (peer.pingMs !== null) ping.set(labels, peer.pingMs / 1000);
      inFlight.set(labels, network.blocksInFlight(peer.id));
    }
    for (const [id, labels] of shown) {
      if (next.has(id)) continue;
      for (const g of [sent, received, ping, inFlight]) g.remove(labels);
    }
    shown = next;
  };
  update();
  return setInterval(update, UPDATE_MS).unref();
}
