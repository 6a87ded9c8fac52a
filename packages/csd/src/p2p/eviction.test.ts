import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type EvictionCandidate, selectInboundToEvict } from './eviction.ts';

const peer = (id: number, over: Partial<EvictionCandidate> = {}): EvictionCandidate => ({
  id,
  group: `4:10.${id}`,
  connectedAt: 1000 + id,
  minPingMs: 100 + id,
  lastBlockAt: 0,
  lastTxAt: 0,
  noban: false,
  discouraged: false,
  ...over,
});

test('a discouraged peer goes first', () => {
  const peers = Array.from({ length: 40 }, (_, i) => peer(i, { discouraged: i === 5 }));
  assert.equal(selectInboundToEvict(peers), 5);
});

test('fast, useful and long-connected peers are protected; the biggest group loses its youngest', () => {
  const peers = [
    ...Array.from({ length: 30 }, (_, i) => peer(i)),
    // Ten peers from one group, connected last.
    ...Array.from({ length: 10 }, (_, i) => peer(100 + i, { group: '4:66.66', connectedAt: 5000 + i, minPingMs: 900 })),
  ];
  assert.equal(selectInboundToEvict(peers), 109);
  // The one that relayed a block most recently is kept even in that group.
  const withBlock = peers.map((p) => (p.id === 109 ? { ...p, lastBlockAt: 9999 } : p));
  assert.equal(selectInboundToEvict(withBlock), 108);
});

test('nobody is evicted when every peer is whitelisted or protected', () => {
  assert.equal(selectInboundToEvict([peer(1, { noban: true }), peer(2, { noban: true })]), null);
  assert.equal(selectInboundToEvict([peer(1), peer(2)]), null);
});
