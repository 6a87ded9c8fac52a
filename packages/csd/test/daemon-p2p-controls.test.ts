// Network controls on real csd processes with a scripted peer: a peer withholding blocks on a
// short chain (the download moves to a peer that has them, long before the window fills or the
// 10-minute block timeout), setnetworkactive, discouraged addresses made visible, and setban of a
// noban peer's address.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { BlockHeader } from '@cs/consensus';
import type { RpcCallError } from './daemon.ts';
import { Daemon } from './daemon.ts';
import { headerAt, TestPeer, waitUntil } from './p2p-test-peer.ts';

type Json = Record<string, unknown>;
const CHAIN_LENGTH = 100;

const node = () => new Daemon({ args: ['-rpcratelimit=0'] });
const addr = (d: Daemon) => `127.0.0.1:${d.p2pPort}`;
const log = (d: Daemon) => readFileSync(d.debugLogPath, 'utf8');

describe('network controls', { concurrency: false }, () => {
  const a = node();
  const daemons: Daemon[] = [a];

  before(async () => {
    await a.start();
    await a.call('generatetoaddress', CHAIN_LENGTH, await a.call<string>('getnewaddress'));
  });

  after(async () => {
    for (const d of daemons) await d.cleanup();
  });

  test('on a 100-block chain, 16 blocks withheld by one peer are fetched from another after the stall timeout', async () => {
    const c = node();
    daemons.push(c);
    await c.start();
    // The staller announces the whole chain, is asked for the first 16 blocks, and never sends them.
    const staller = await TestPeer.connect(c.p2pPort);
    const headers: BlockHeader[] = [];
    for (let h = 1; h <= CHAIN_LENGTH; h++) headers.push(await headerAt(a, h));
    staller.send({ command: 'headers', headers });
    const asked = await staller.waitFor('getdata');
    assert.equal(asked.items.length, 16);
    await c.call('addnode', addr(a), 'onetry');
    await waitUntil('c reaches a tip of 100 blocks', async () => (await c.call<number>('getblockcount')) === CHAIN_LENGTH);
    assert.equal(await c.call('getbestblockhash'), await a.call('getbestblockhash'));
    assert.match(log(c), /block download stalled: blocks moved to another peer/);
    // Withholding is no misbehaviour: the staller is still connected, with nothing left in flight.
    assert.ok(!staller.closed);
    const peers = await c.call<Json[]>('getpeerinfo');
    const stallerInfo = peers.find((p) => p.subver === '/test-peer/')!;
    assert.equal(stallerInfo.inflight, 0);
    staller.close();
    await c.stop();
  });

  test('setnetworkactive false disconnects every peer and refuses connections until true', async () => {
    const c = node();
    daemons.push(c);
    await c.start([`-addnode=${addr(a)}`]);
    await waitUntil('c is connected to a', async () => (await c.call<number>('getconnectioncount')) === 1);
    assert.equal((await c.call<Json>('getnetworkinfo')).networkactive, true);

    assert.equal(await c.call('setnetworkactive', false), false);
    assert.equal((await c.call<Json>('getnetworkinfo')).networkactive, false);
    await waitUntil('c has no peers', async () => (await c.call<Json[]>('getpeerinfo')).length === 0);
    assert.match(log(c), /network activity disabled \(setnetworkactive\)/);
    // Nothing comes in, nothing goes out: an inbound connection is closed at once, onetry dials nobody.
    const refused = await TestPeer.connect(c.p2pPort, false);
    await refused.waitClosed();
    await c.call('addnode', addr(a), 'onetry');
    assert.equal(await c.call('getconnectioncount'), 0);
    // Turning it off again is no change; a non-boolean is a type error.
    assert.equal(await c.call('setnetworkactive', false), false);
    await assert.rejects(c.call('setnetworkactive', 'yes'), (e: RpcCallError) => e.code === -3);

    assert.equal(await c.call('setnetworkactive', true), true);
    assert.equal((await c.call<Json>('getnetworkinfo')).networkactive, true);
    assert.match(log(c), /network activity enabled \(setnetworkactive\)/);
    // The -addnode peer is retried (every 10 s) and connected again.
    await waitUntil('c is connected to a again', async () => (await c.call<number>('getconnectioncount')) === 1);
    await c.stop();
  });

  test('a discouraged address shows in getpeerinfo and listbanned, with its reason, until clearbanned', async () => {
    const c = node();
    daemons.push(c);
    await c.start();
    await c.call('setban', '192.0.2.0/24', 'add');
    const bad = await TestPeer.connect(c.p2pPort);
    bad.send({ command: 'headers', headers: [await headerAt(a, 1), await headerAt(a, 3)] });
    await bad.waitClosed();
    const listed = await c.call<Json[]>('listbanned');
    assert.deepEqual(
      listed.map((b) => [b.address, b.discouraged]),
      [
        ['192.0.2.0/24', false],
        ['127.0.0.1/32', true],
      ],
    );
    assert.equal(listed[1].reason, 'non-continuous headers sequence');
    assert.equal(typeof listed[1].ban_created, 'number');
    // Discouraged, not banned: a peer from the address may still connect while there is room, and is flagged.
    const again = await TestPeer.connect(c.p2pPort);
    const flagged = async () => (await c.call<Json[]>('getpeerinfo')).find((p) => p.subver === '/test-peer/')?.discouraged;
    assert.equal(await flagged(), true);
    await c.call('clearbanned');
    assert.deepEqual(await c.call('listbanned'), []);
    assert.equal(await flagged(), false);
    again.close();
    await c.stop();
  });

  test('setban disconnects every peer in the subnet, a noban one too, which noban then lets connect again, as in Core', async () => {
    const c = node();
    daemons.push(c);
    await c.start(['-whitelist=noban@127.0.0.1']);
    const trusted = await TestPeer.connect(c.p2pPort);
    await c.call('setban', '127.0.0.1', 'add');
    await trusted.waitClosed();
    const back = await TestPeer.connect(c.p2pPort);
    assert.equal((await c.call<Json[]>('getpeerinfo')).length, 1, 'connected again despite the ban');
    back.close();
    await c.stop();
  });
});
