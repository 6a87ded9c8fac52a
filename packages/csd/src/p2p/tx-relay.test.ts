// Transaction announcements: a peer gets what entered the mempool at its Poisson trickle time,
// from its handshake on, a noban peer at once, as Core's fSendTrickle does for NoBan peers;
// inbound peers share one trickle clock; our own transactions no peer has asked for are announced
// again on Core's ReattemptInitialBroadcast schedule, to the peers that have not heard of them;
// what a forcerelay peer sends is announced again even when we have it; requests in flight are
// capped per peer, except for a peer with the relay permission.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Transaction } from '@cs/consensus';
import type { Mempool } from '../mempool/mempool.ts';
import type { InvItem, Message } from './messages.ts';
import type { Peer } from './peer.ts';
import { PeerState } from './peer-state.ts';
import { MSG_WTX } from './protocol.ts';
import { TxRelay } from './tx-relay.ts';

interface FakeEntry {
  txid: string;
  wtxid: string;
  sequence: number;
  fee: bigint;
  vsize: number;
  tx: { txid: Uint8Array; wtxid: Uint8Array };
}

function entry(n: number): FakeEntry {
  const hash = new Uint8Array(32).fill(n);
  const hex = Buffer.from(hash).toString('hex');
  return { txid: hex, wtxid: hex, sequence: n, fee: 1000n, vsize: 100, tx: { txid: hash, wtxid: hash } };
}

const NOBAN = ['noban', 'download'];

function peer(id: number, inbox: InvItem[][], permissions: readonly string[] = [], inbound = true): PeerState {
  const p = {
    id,
    permissions: new Set(permissions),
    // As Peer derives it.
    noban: permissions.includes('noban'),
    inbound,
    handshakeDone: true,
    version: { relay: true },
    wtxidRelay: true,
    feeFilter: 0n,
    send: (m: Message) => {
      if (m.command === 'inv') inbox.push([...m.items]);
    },
  };
  return new PeerState(p as unknown as Peer, null);
}

/** A relay over a fake mempool with `peers`; `add` puts a transaction into the mempool. */
function relayWith(peers: Map<number, PeerState>) {
  const pool = new Map<string, FakeEntry>();
  const mempool = {
    get: (txid: string) => pool.get(txid),
    byWtxid: (wtxid: string) => pool.get(wtxid),
    accept: () => assert.fail('a known transaction is not admitted again'),
  } as unknown as Mempool;
  const relay = new TxRelay({ mempool, peers, now: () => 0, misbehaving: () => assert.fail('nobody misbehaves') });
  const add = (n: number) => {
    const e = entry(n);
    pool.set(e.txid, e);
    relay.onMempoolAdded({ entry: e });
    return e;
  };
  return { relay, add };
}

/** A noban peer (1) and another (2) recording the invs they get. */
function twoPeers() {
  const [trusted, other]: InvItem[][][] = [[], []];
  const peers = new Map([
    [1, peer(1, trusted, NOBAN)],
    [2, peer(2, other)],
  ]);
  return { ...relayWith(peers), peers, trusted, other };
}

const hashes = (inbox: InvItem[][]) => inbox.map((inv) => inv.map((i) => i.hash[0]));

test('a noban peer is told of each new transaction at the next trickle; another peer waits for its trickle time, from its handshake on', () => {
  const { relay, peers, trusted, other, add } = twoPeers();
  const t0 = 1_000_000;
  for (const s of peers.values()) relay.peerReady(s, t0);

  add(1);
  relay.trickle(t0);
  assert.deepEqual(hashes(trusted), [[1]], 'the trusted peer hears of it at once');
  assert.equal(other.length, 0, 'the other peer waits for its time, its first announcement too');
  add(2);
  relay.trickle(t0);
  assert.deepEqual(hashes(trusted), [[1], [2]], 'the trusted peer hears of the second at once');

  const due = peers.get(2)!.nextTrickle;
  assert.ok(due > t0, 'the other peer has a trickle time ahead');
  relay.trickle(due - 1e-3);
  assert.equal(other.length, 0, 'and hears nothing before it');
  relay.trickle(due);
  assert.deepEqual(hashes(other), [[1, 2]], 'at its trickle time it hears of both, oldest first');
});

test('a noban peer hears of a new transaction by the end of the event loop turn, without waiting for a tick', async () => {
  const { relay, peers, trusted, other, add } = twoPeers();
  for (const s of peers.values()) relay.peerReady(s, Date.now());
  // The other peer's next trickle is well ahead.
  peers.get(2)!.nextTrickle = Date.now() + 60_000;
  add(1);
  add(2);
  assert.equal(trusted.length, 0, 'not synchronously inside the mempool event');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(hashes(trusted), [[1, 2]], 'both in one inv, at once');
  assert.equal(other.length, 0, 'the other peer waits for its trickle time');
});

test("a peer's time that passes with nothing to send is drawn again: a transaction after a quiet spell waits as long as any other", () => {
  const { relay, peers, other, add } = twoPeers();
  const s = peers.get(2)!;
  relay.peerReady(s, 4_000_000);
  const quiet = s.nextTrickle + 60_000;
  relay.trickle(quiet);
  assert.ok(s.nextTrickle > quiet, 'a new time, though nothing was queued');
  add(1);
  relay.trickle(quiet);
  assert.equal(other.length, 0, 'the transaction waits for it');
  relay.trickle(s.nextTrickle);
  assert.deepEqual(hashes(other), [[1]]);
});

test("inbound peers share one trickle clock, as Core's m_next_inv_to_inbounds; each outbound peer has its own", () => {
  const inboxes: InvItem[][][] = [[], [], [], [], []];
  const peers = new Map([
    [1, peer(1, inboxes[0]!)],
    [2, peer(2, inboxes[1]!)],
    [3, peer(3, inboxes[2]!, [], false)],
    [4, peer(4, inboxes[3]!, [], false)],
  ]);
  const { relay, add } = relayWith(peers);
  const due = (id: number) => peers.get(id)!.nextTrickle;

  const t0 = 2_000_000;
  for (const s of peers.values()) relay.peerReady(s, t0);
  const shared = due(1);
  assert.ok(shared > t0);
  assert.equal(due(2), shared, 'both inbound peers wait for the same time');
  assert.ok(due(3) > t0 && due(4) > t0);
  assert.notEqual(due(3), due(4), 'each outbound peer draws its own');

  // An inbound peer whose handshake ends later joins the same clock.
  peers.set(5, peer(5, inboxes[4]!));
  relay.peerReady(peers.get(5)!, (t0 + shared) / 2);
  assert.equal(due(5), shared);

  add(1);
  add(2);
  relay.trickle(shared - (shared - t0) / 4);
  for (const i of [0, 1, 4]) assert.equal(inboxes[i]!.length, 0, 'no inbound peer hears before the shared time');
  relay.trickle(shared);
  for (const i of [0, 1, 4]) assert.deepEqual(hashes(inboxes[i]!), [[1, 2]], `inbound peer ${i + 1} hears of both at the shared time`);
  assert.ok(due(1) > shared, 'a new shared time is drawn');
  assert.equal(due(2), due(1));
  assert.equal(due(5), due(1));
});

test('a transaction we have already, sent again by a forcerelay peer, is announced to the peers that never heard of it; from another peer it is not', () => {
  const [gateway, plain, told, late]: InvItem[][][] = [[], [], [], []];
  const peers = new Map([
    [2, peer(2, plain)],
    [3, peer(3, told)],
  ]);
  const { relay, add } = relayWith(peers);
  const e = add(9);
  const t0 = 3_000_000;
  relay.trickle(t0);
  assert.equal(told.length, 1, 'announced once when it entered the mempool');

  // The gateway and another peer connect afterwards: neither is told of what is in the mempool.
  peers.set(1, peer(1, gateway, ['forcerelay', 'relay']));
  peers.set(4, peer(4, late));
  const tx = { txidHex: e.txid, wtxidHex: e.wtxid } as unknown as Transaction;
  relay.onTx(peers.get(2)!, tx);
  relay.trickle(t0 + 3_600_000);
  assert.equal(late.length, 0, 'resent by a peer without forcerelay: nothing new');

  relay.onTx(peers.get(1)!, tx);
  relay.trickle(t0 + 7_200_000);
  assert.deepEqual(hashes(late), [[9]], 'the peer that connected later hears of it');
  assert.equal(told.length, 1, 'a peer that has heard of it is not told twice');
  assert.equal(gateway.length, 0, 'nor is the gateway told of its own transaction');
});

test('a peer has at most 100 transaction requests in flight, unless it has the relay permission', () => {
  const peers = new Map([
    [1, peer(1, [])],
    [2, peer(2, [], ['relay'])],
  ]);
  const { relay } = relayWith(peers);
  const wanted = (id: number) => {
    let n = 0;
    for (let i = 0; i < 150; i++) {
      const hash = new Uint8Array(32).fill(id);
      hash[31] = i;
      if (relay.want(peers.get(id)!, { type: MSG_WTX, hash }, Buffer.from(hash).toString('hex'))) n++;
    }
    return n;
  };
  assert.equal(wanted(1), 100);
  assert.equal(wanted(2), 150);
});

test('unbroadcast transactions are queued again 2-7 minutes after the start, then every 10-15, for peers that never heard of them', () => {
  const pool = new Map<string, FakeEntry>();
  const unbroadcast = new Set<string>();
  const mempool = { get: (txid: string) => pool.get(txid), unbroadcast: () => [...unbroadcast] } as unknown as Mempool;
  const [told, late]: InvItem[][][] = [[], []];
  const peers = new Map([[1, peer(1, told, NOBAN)]]);
  const relay = new TxRelay({ mempool, peers, now: () => 0, misbehaving: () => assert.fail('nobody misbehaves') });
  const ours = entry(7);
  pool.set(ours.txid, ours);
  unbroadcast.add(ours.txid);
  relay.onMempoolAdded({ entry: ours });

  const t0 = 5_000_000;
  relay.reattemptInitialBroadcast(t0);
  relay.trickle(t0);
  assert.equal(told.length, 1, 'announced once when it entered the mempool');
  // A peer connects afterwards: nothing tells it of the transaction until the reattempt.
  peers.set(2, peer(2, late, NOBAN));
  relay.reattemptInitialBroadcast(t0 + 2 * 60_000 - 1);
  relay.trickle(t0 + 2 * 60_000 - 1);
  assert.equal(late.length, 0, 'not before two minutes');
  relay.reattemptInitialBroadcast(t0 + 7 * 60_000);
  relay.trickle(t0 + 7 * 60_000);
  assert.deepEqual(hashes(late), [[7]], 'the late peer hears of it by seven minutes');
  assert.equal(told.length, 1, 'a peer it was announced to is not told twice');

  // Taken by a peer (or confirmed), it leaves the set and is not announced again.
  unbroadcast.clear();
  peers.set(3, peer(3, [], NOBAN));
  relay.reattemptInitialBroadcast(t0 + 30 * 60_000);
  relay.trickle(t0 + 30 * 60_000);
  assert.equal(peers.get(3)!.txQueue.size, 0);
});
