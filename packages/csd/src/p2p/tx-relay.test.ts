// Transaction announcements: a peer gets what entered the mempool at its Poisson trickle time,
// a whitelisted (noban) peer at every tick, as Core's fSendTrickle does for NoBan peers.
import assert from 'node:assert/strict';
import { test } from 'node:test';
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

function peer(id: number, noban: boolean, inbox: InvItem[][]): PeerState {
  const p = {
    id,
    noban,
    inbound: true,
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

test('a noban peer is told of each new transaction at the next tick; another peer waits for its trickle time', () => {
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
