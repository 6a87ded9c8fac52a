/**
 * Which inbound peer to drop when a new one arrives and the inbound slots are full (Core's
 * SelectNodeToEvict, without the network-type reservations): noban peers are kept; then
 * the 4 peers of the most distinct address groups, the 8 fastest by best ping, the 4 that most
 * recently relayed a new transaction and the 4 that most recently relayed a new block; then the
 * older half of the rest. Of what remains, the group with the most peers loses its youngest;
 * discouraged peers go first. Null when everyone is protected (the newcomer is refused).
 */
export interface EvictionCandidate {
  readonly id: number;
  readonly group: string;
  readonly connectedAt: number;
  readonly minPingMs: number | null;
  readonly lastBlockAt: number;
  readonly lastTxAt: number;
  readonly noban: boolean;
  readonly discouraged: boolean;
}

function protect(list: EvictionCandidate[], count: number, better: (a: EvictionCandidate, b: EvictionCandidate) => number): EvictionCandidate[] {
  const sorted = [...list].sort(better);
  const kept = new Set(sorted.slice(0, count));
  return list.filter((c) => !kept.has(c));
}

export function selectInboundToEvict(peers: readonly EvictionCandidate[]): number | null {
  let left = peers.filter((p) => !p.noban);
  const discouraged = left.filter((p) => p.discouraged);
  if (discouraged.length > 0) return discouraged.sort((a, b) => b.connectedAt - a.connectedAt)[0].id;
  // One per distinct group, the longest connected of each, up to 4.
  const firstOfGroup = new Map<string, EvictionCandidate>();
  for (const p of [...left].sort((a, b) => a.connectedAt - b.connectedAt)) if (!firstOfGroup.has(p.group)) firstOfGroup.set(p.group, p);
  const groupKept = new Set([...firstOfGroup.values()].slice(0, 4));
  left = left.filter((p) => !groupKept.has(p));
  left = protect(left, 8, (a, b) => (a.minPingMs ?? Infinity) - (b.minPingMs ?? Infinity));
  left = protect(left, 4, (a, b) => b.lastTxAt - a.lastTxAt);
  left = protect(left, 4, (a, b) => b.lastBlockAt - a.lastBlockAt);
  left = protect(left, Math.floor(left.length / 2), (a, b) => a.connectedAt - b.connectedAt);
  if (left.length === 0) return null;
  const byGroup = new Map<string, EvictionCandidate[]>();
  for (const p of left) byGroup.set(p.group, [...(byGroup.get(p.group) ?? []), p]);
  const biggest = [...byGroup.values()].sort((a, b) => b.length - a.length)[0];
  return biggest.sort((a, b) => b.connectedAt - a.connectedAt)[0].id;
}
