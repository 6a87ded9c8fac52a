// Transaction announcements: a peer gets what entered the mempool at its Poisson trickle time,
// a whitelisted (noban) peer at once, as Core's fSendTrickle does for NoBan peers; our own
// transactions no peer has asked for are announced again on Core's ReattemptInitialBroadcast
// schedule, to the peers that have not heard of them; inbound peers share one trickle clock; a
// forcerelay peer's transactions are announced again even when we have them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Transaction } from '@cs/consensus';
import type { Mempool } from '../mempool/mempool.ts';
import type { InvItem, Message } from './messages.ts';
import type { Peer } from './peer.ts';
import { PeerState } from './peer-state.ts';
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

function peer(
  id: number,
  noban: boolean,
  inbox: InvItem[][],
  inbound = true,
  permissions: readonly string[] = noban ? ['noban', 'download'] : [],
): PeerState {
  const p = {
    id,
    noban,
    permissions: new Set(permissions),
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

/** A relay over a fake mempool, with a noban peer (1) and another (2) recording the invs they get. */
function twoPeers() {
  const pool = new Map<string, FakeEntry>();
  const mempool = { get: (txid: string) => pool.get(txid) } as unknown as Mempool;
  const [trusted, other]: InvItem[][][] = [[], []];
  const peers = new Map([
    [1, peer(1, true, trusted)],
    [2, peer(2, false, other)],
  ]);
  const relay = new TxRelay({ mempool, peers, now: () => 0, misbehaving: () => assert.fail('nobody misbehaves') });
  const add = (n: number) => {
    const e = entry(n);
    pool.set(e.txid, e);
    relay.onMempoolAdded({ entry: e });
  };
  return { relay, peers, trusted, other, add };
}

test('a noban peer is told of each new transaction at the next trickle; another peer waits for its trickle time', () => {
  const { relay, peers, trusted, other, add } = twoPeers();

  const t0 = 1_000_000;
  add(1);
  relay.trickle(t0);
  assert.equal(trusted.length, 1, 'first announcement to the trusted peer');
  assert.equal(other.length, 1, 'a peer never announced to is due at once');

  add(2);
  relay.trickle(t0);
  assert.equal(trusted.length, 2, 'the trusted peer hears of the second at once');
  assert.deepEqual(
    trusted[1]!.map((i) => i.hash[0]),
    [2],
  );
  const due = peers.get(2)!.nextTrickle;
  assert.ok(due > t0, 'the other peer has a trickle time ahead');
  assert.equal(other.length, 1, 'and hears nothing before it');

  relay.trickle(due);
  assert.equal(other.length, 2, 'at its trickle time it hears of the second');
  assert.deepEqual(
    other[1]!.map((i) => i.hash[0]),
    [2],
  );
});

test('a noban peer hears of a new transaction by the end of the event loop turn, without waiting for a tick', async () => {
  const { relay, peers, trusted, other, add } = twoPeers();
  // The other peer was told of something a moment ago: its next trickle is ahead.
  relay.trickle(Date.now());
  peers.get(2)!.nextTrickle = Date.now() + 60_000;
  add(1);
  add(2);
  assert.equal(trusted.length, 0, 'not synchronously inside the mempool event');
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(
    trusted.map((inv) => inv.map((i) => i.hash[0])),
    [[1, 2]],
    'both in one inv, at once',
  );
  assert.equal(other.length, 0, 'the other peer waits for its trickle time');
});

test("inbound peers share one trickle clock, as Core's m_next_inv_to_inbounds; each outbound peer has its own", () => {
  const pool = new Map<string, FakeEntry>();
  const mempool = { get: (txid: string) => pool.get(txid) } as unknown as Mempool;
  const inboxes: InvItem[][][] = [[], [], [], [], []];
  const peers = new Map([
    [1, peer(1, false, inboxes[0]!)],
    [2, peer(2, false, inboxes[1]!)],
    [3, peer(3, false, inboxes[2]!, false)],
    [4, peer(4, false, inboxes[3]!, false)],
  ]);
  const relay = new TxRelay({ mempool, peers, now: () => 0, misbehaving: () => assert.fail('nobody misbehaves') });
  const add = (n: number) => {
    const e = entry(n);
    pool.set(e.txid, e);
    relay.onMempoolAdded({ entry: e });
  };
  const due = (id: number) => peers.get(id)!.nextTrickle;

  const t0 = 2_000_000;
  add(1);
  relay.trickle(t0);
  assert.deepEqual(
    inboxes.slice(0, 4).map((inbox) => inbox.length),
    [1, 1, 1, 1],
    'every peer is due at once the first time',
  );
  const shared = due(1);
  assert.ok(shared > t0);
  assert.equal(due(2), shared, 'both inbound peers wait for the same time');
  assert.ok(due(3) > t0 && due(4) > t0);
  assert.notEqual(due(3), due(4), 'each outbound peer draws its own');

  // An inbound peer that connects later joins the same clock.
  peers.set(5, peer(5, false, inboxes[4]!));
  add(2);
  relay.trickle(Math.min(shared, due(3), due(4)) - 1);
  assert.equal(inboxes[4]!.length, 1, 'the new peer is due at once');
  assert.equal(due(5), shared, 'and then waits with the others');

  add(3);
  relay.trickle(shared - 1);
  assert.equal(inboxes[0]!.length, 1, 'no inbound peer hears before the shared time');
  relay.trickle(shared);
  for (const i of [0, 1]) {
    assert.deepEqual(
      inboxes[i]!.map((inv) => inv.map((item) => item.hash[0])),
      [[1], [2, 3]],
      `inbound peer ${i + 1} hears of both at the shared time`,
    );
  }
  assert.ok(due(1) > shared, 'a new shared time is drawn');
  assert.equal(due(2), due(1));
  assert.equal(due(5), due(1));
});

test('a transaction we have already, sent again by a forcerelay peer, is announced to the peers that never heard of it; from another peer it is not', () => {
  const pool = new Map<string, FakeEntry>();
  const mempool = {
    get: (txid: string) => pool.get(txid),
    accept: () => assert.fail('a known transaction is not admitted again'),
  } as unknown as Mempool;
  const [gateway, plain, told, late]: InvItem[][][] = [[], [], [], []];
  const peers = new Map([
    [1, peer(1, false, gateway, true, ['forcerelay', 'relay'])],
    [2, peer(2, false, plain)],
    [3, peer(3, false, told)],
  ]);
  const relay = new TxRelay({ mempool, peers, now: () => 0, misbehaving: () => assert.fail('nobody misbehaves') });
  const e = entry(9);
  pool.set(e.txid, e);
  relay.onMempoolAdded({ entry: e });
  const t0 = 3_000_000;
  relay.trickle(t0);
  assert.equal(told.length, 1, 'announced once when it entered the mempool');

  peers.set(4, peer(4, false, late));
  const tx = { txidHex: e.txid, wtxidHex: e.wtxid } as unknown as Transaction;
  relay.onTx(peers.get(2)!, tx);
  relay.trickle(t0 + 3_600_000);
  assert.equal(late.length, 0, 'resent by a peer without forcerelay: nothing new');

  relay.onTx(peers.get(1)!, tx);
  relay.trickle(t0 + 7_200_000);
  assert.deepEqual(
    late.map((inv) => inv.map((i) => i.hash[0])),
    [[9]],
    'the peer that connected later hears of it',
  );
  assert.equal(told.length, 1, 'a peer that has heard of it is not told twice');
  assert.equal(gateway.length, 1, 'nor is the gateway told of its own transaction again');
});

test('unbroadcast transactions are queued again 2-7 minutes after the start, then every 10-15, for peers that never heard of them', () => {
  const pool = new Map<string, FakeEntry>();
  const unbroadcast = new Set<string>();
  const mempool = { get: (txid: string) => pool.get(txid), unbroadcast: () => [...unbroadcast] } as unknown as Mempool;
  const [told, late]: InvItem[][][] = [[], []];
  const peers = new Map([[1, peer(1, true, told)]]);
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
  peers.set(2, peer(2, true, late));
  relay.reattemptInitialBroadcast(t0 + 2 * 60_000 - 1);
  relay.trickle(t0 + 2 * 60_000 - 1);
  assert.equal(late.length, 0, 'not before two minutes');
  relay.reattemptInitialBroadcast(t0 + 7 * 60_000);
  relay.trickle(t0 + 7 * 60_000);
  assert.deepEqual(
    late.map((inv) => inv.map((i) => i.hash[0])),
    [[7]],
    'the late peer hears of it by seven minutes',
  );
  assert.equal(told.length, 1, 'a peer it was announced to is not told twice');

  // Taken by a peer (or confirmed), it leaves the set and is not announced again.
  unbroadcast.clear();
  peers.set(3, peer(3, true, []));
  relay.reattemptInitialBroadcast(t0 + 30 * 60_000);
  relay.trickle(t0 + 30 * 60_000);
  assert.equal(peers.get(3)!.txQueue.size, 0);
});
