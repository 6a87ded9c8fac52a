// The peer-to-peer network between real csd processes on loopback: sync from two peers, block
// and transaction relay, restarts and kill -9 mid-sync, and test peers that misbehave (in the
// spirit of Core's p2p_invalid_messages, p2p_ibd_stalling, p2p_unrequested_blocks and
// p2p_timeouts). Partitions and OPoI content: daemon-p2p-opoi.test.ts.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type BlockHeader, REGTEST, hashFromHex, hashToHex } from '@cs/consensus';
import { assembleBlock, coinbaseTx, mine, withWitnessCommitment } from '../../consensus/test/blocks.ts';
import { mutate, prng } from '../../consensus/test/fuzz.ts';
import { encodeFrame } from '../src/p2p/framing.ts';
import { encodePayload } from '../src/p2p/messages.ts';
import { MAX_HEADERS_RESULTS, MSG_WITNESS_BLOCK, MSG_WTX } from '../src/p2p/protocol.ts';
import { Daemon } from './daemon.ts';
import { headerAt, TestPeer, waitUntil } from './p2p-test-peer.ts';

const ADDRESS = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';
const CHAIN_LENGTH = 1100;

/** Tests poll often and send from the wallet before fee estimates exist. */
const node = () => new Daemon({ args: ['-rpcratelimit=0', '-fallbackfee=0.0001'] });

const tipOf = (d: Daemon) => d.call<string>('getbestblockhash');
const addr = (d: Daemon) => `127.0.0.1:${d.p2pPort}`;

async function synced(d: Daemon, to: Daemon): Promise<void> {
  const target = await tipOf(to);
  await waitUntil(`${addr(d)} reaches ${target}`, async () => (await tipOf(d)) === target);
}

describe('p2p network', { concurrency: false }, () => {
  const a = node();
  const b = node();
  const daemons: Daemon[] = [a, b];

  before(async () => {
    await a.start();
    await a.call('generatetoaddress', CHAIN_LENGTH, await a.call<string>('getnewaddress'));
    await b.start([`-addnode=${addr(a)}`]);
    await synced(b, a);
  });

  after(async () => {
    for (const d of daemons) await d.cleanup();
  });

  test('a fresh node syncs the chain from two peers, headers first, and reports it honestly', async () => {
    const c = node();
    daemons.push(c);
    await c.start([`-addnode=${addr(a)}`, `-addnode=${addr(b)}`]);
    await synced(c, a);
    const info = await c.call<{ blocks: number; headers: number; initialblockdownload: boolean; verificationprogress: number }>('getblockchaininfo');
    assert.equal(info.blocks, CHAIN_LENGTH);
    assert.equal(info.headers, CHAIN_LENGTH);
    assert.equal(info.initialblockdownload, false);
    const peers = await c.call<{ addr: string; bytesrecv_per_msg: Record<string, number> }[]>('getpeerinfo');
    assert.equal(peers.length, 2);
    // Blocks came from both peers (each gets up to 16 in flight).
    for (const p of peers) assert.ok((p.bytesrecv_per_msg.block ?? 0) > 0, `no blocks from ${p.addr}`);
    assert.equal(await c.call('getconnectioncount'), 2);
    await c.stop();
  });

  test('a block mined on one node reaches all, a transaction reaches every mempool', async () => {
    const c = node();
    daemons.push(c);
    await c.start([`-addnode=${addr(b)}`]);
    await synced(c, a);
    const [mined] = await c.call<string[]>('generatetoaddress', 1, ADDRESS);
    for (const d of [a, b]) await waitUntil(`block reaches ${addr(d)}`, async () => (await tipOf(d)) === mined);
    const txid = await a.call<string>('sendtoaddress', ADDRESS, 1);
    for (const d of [b, c]) await waitUntil(`tx reaches ${addr(d)}`, async () => (await d.call<string[]>('getrawmempool')).includes(txid));
    // Confirmed on b: a and c drop it from their mempools.
    const [confirming] = await b.call<string[]>('generatetoaddress', 1, ADDRESS);
    for (const d of [a, c]) await waitUntil(`confirmation reaches ${addr(d)}`, async () => (await tipOf(d)) === confirming);
    assert.deepEqual(await c.call('getrawmempool'), []);
    await c.stop();
  });

  test('a node stopped and one killed -9 mid-sync both finish the sync after a restart', async () => {
    for (const stop of ['stop', 'kill'] as const) {
      const c = node();
      daemons.push(c);
      await c.start([`-addnode=${addr(a)}`]);
      await waitUntil('sync has started', async () => (await c.call<number>('getblockcount')) > 50);
      const before = await c.call<number>('getblockcount');
      if (stop === 'kill') await c.kill('SIGKILL');
      else await c.stop();
      await c.start([`-addnode=${addr(a)}`]);
      await synced(c, a);
      const info = await c.call<{ blocks: number; headers: number }>('getblockchaininfo');
      assert.equal(info.headers, info.blocks);
      // Coins connected while catching up wait in the cache: a node killed well before the end
      // replays its stored blocks into the UTXO set at the next start, and ends with the source's set.
      if (stop === 'kill' && before < info.blocks - 100) {
        assert.match(readFileSync(c.debugLogPath, 'utf8'), /replaying blocks into the UTXO set/, `killed at ${before}: the restart replayed`);
      }
      const utxos = async (d: Daemon) => (await d.call<{ hash_serialized_3: string }>('gettxoutsetinfo')).hash_serialized_3;
      assert.equal(await utxos(c), await utxos(a), "the UTXO set equals the source node's");
      await c.stop();
    }
  });

  test('garbage, a wrong magic, oversized and malformed messages disconnect the sender; honest peers stay', async () => {
    const cases: [string, (p: TestPeer) => void][] = [
      ['wrong magic', (p) => p.sendFrame('ping', new Uint8Array(8), Uint8Array.of(1, 2, 3, 4))],
      [
        'oversized',
        (p) =>
          p.sendBytes(Buffer.concat([Buffer.from(REGTEST.magic), Buffer.from('block\0\0\0\0\0\0\0'), Buffer.from([0, 0, 0x50, 0]), Buffer.alloc(4)])),
      ],
      ['malformed ping', (p) => p.sendFrame('ping', new Uint8Array(3))],
      ['too many headers', (p) => p.sendFrame('headers', Uint8Array.of(0xfd, (MAX_HEADERS_RESULTS + 1) & 0xff, (MAX_HEADERS_RESULTS + 1) >> 8))],
      ['random bytes', (p) => p.sendBytes(Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) & 0xff)))],
    ];
    for (const [what, misbehave] of cases) {
      const p = await TestPeer.connect(a.p2pPort);
      misbehave(p);
      await p.waitClosed();
      assert.ok(p.closed, what);
    }
    // A frame with a bad checksum is dropped, and the connection stays (Core).
    const p = await TestPeer.connect(a.p2pPort);
    const frame = Buffer.from(
      Buffer.concat([Buffer.from(REGTEST.magic), Buffer.from('ping\0\0\0\0\0\0\0\0'), Buffer.from([8, 0, 0, 0]), Buffer.alloc(4), Buffer.alloc(8)]),
    );
    p.sendBytes(frame);
    p.send({ command: 'ping', nonce: 7n });
    const pong = await p.waitFor('pong');
    assert.equal(pong.nonce, 7n);
    p.close();
    // b (an honest peer of a) is still connected and a still answers.
    const peers = await a.call<{ subver: string }[]>('getpeerinfo');
    assert.ok(
      peers.some((x) => x.subver === '/csd:0.1.0/'),
      'the honest peer b was dropped',
    );
    // ... and keeps syncing from a.
    const [mined] = await a.call<string[]>('generatetoaddress', 1, ADDRESS);
    await waitUntil('b receives the block mined after the misbehaviour', async () => (await tipOf(b)) === mined);
  });

  test('fuzz: mutated frame streams only ever cost their sender the connection; the node serves others throughout', async () => {
    const rand = prng(2026);
    const seeds = [
      encodeFrame(REGTEST.magic, 'ping', new Uint8Array(8)),
      encodeFrame(REGTEST.magic, 'inv', encodePayload({ command: 'inv', items: [{ type: 5, hash: new Uint8Array(32).fill(9) }] })),
      encodeFrame(REGTEST.magic, 'headers', encodePayload({ command: 'headers', headers: [await headerAt(a, 1), await headerAt(a, 2)] })),
      encodeFrame(REGTEST.magic, 'getheaders', encodePayload({ command: 'getheaders', locator: [new Uint8Array(32)], stop: new Uint8Array(32) })),
    ];
    let disconnected = 0;
    for (let i = 0; i < 30; i++) {
      const p = await TestPeer.connect(a.p2pPort);
      let bytes: Uint8Array = Buffer.concat(seeds.filter(() => rand() % 2 === 0));
      for (let m = 1 + (rand() % 3); m > 0; m--) bytes = mutate(bytes, rand);
      p.sendBytes(bytes);
      // A ping after the garbage: answered if the stream was still readable, else the node hung up.
      p.send({ command: 'ping', nonce: BigInt(i) });
      await Promise.race([p.waitFor('pong').catch(() => undefined), p.isClosed]);
      if (p.closed) disconnected++;
      p.close();
      assert.equal(typeof (await a.call('getblockcount')), 'number');
    }
    assert.ok(disconnected > 0, 'no mutated stream was refused');
    const peers = await a.call<{ subver: string }[]>('getpeerinfo');
    assert.ok(
      peers.some((x) => x.subver === '/csd:0.1.0/'),
      'the honest peer b was dropped',
    );
  });

  test('a low-work branch off old history is neither stored nor punished', async () => {
    const genesis = await headerAt(a, 0);
    const headers: BlockHeader[] = [];
    let prev = genesis;
    for (let h = 1; h <= 5; h++) {
      const block = mine(assembleBlock(withWitnessCommitment([coinbaseTx(h, 0n)]), { prevHash: prev.hash, time: prev.time + 1 }), REGTEST);
      headers.push(block.header);
      prev = block.header;
    }
    const p = await TestPeer.connect(a.p2pPort);
    p.send({ command: 'headers', headers });
    p.send({ command: 'ping', nonce: 99n });
    // Messages are handled in order: once the pong is here, the headers were dealt with.
    await p.waitFor('pong');
    const tips = await a.call<{ hash: string }[]>('getchaintips');
    assert.ok(!tips.some((t) => t.hash === prev.hashHex), 'the low-work branch was stored');
    assert.ok(!p.closed, 'the sender of a low-work branch was disconnected');
    p.close();
  });

  test('non-continuous headers and an invalid block disconnect the sender', async () => {
    const p = await TestPeer.connect(a.p2pPort);
    const h1 = await headerAt(a, 1);
    const h3 = await headerAt(a, 3);
    p.send({ command: 'headers', headers: [h1, h3] });
    await p.waitClosed();

    // A block on a's tip whose coinbase pays ten times the subsidy (bad-cb-amount), with valid proof of work.
    const q = await TestPeer.connect(a.p2pPort);
    const height = await a.call<number>('getblockcount');
    const tip = await headerAt(a, height);
    const block = mine(
      assembleBlock(withWitnessCommitment([coinbaseTx(height + 1, 100n * 100_000_000n)]), { prevHash: tip.hash, time: tip.time + 1 }),
      REGTEST,
    );
    q.send({ command: 'block', block, raw: block.encode() });
    await q.waitClosed();
    assert.equal(await a.call('getblockcount'), height);
  });

  test('an unrequested block is processed only when it would become the tip (p2p_unrequested_blocks)', async () => {
    const p = await TestPeer.connect(a.p2pPort);
    const height = await a.call<number>('getblockcount');
    const tip = await headerAt(a, height);
    const parent = await headerAt(a, height - 1);
    const block = (h: number, prev: BlockHeader) =>
      mine(assembleBlock(withWitnessCommitment([coinbaseTx(h, 0n)]), { prevHash: prev.hash, time: tip.time + 1 }), REGTEST);
    // A sibling of the tip has no more work than the tip: ignored, and not punished.
    const sibling = block(height, parent);
    p.send({ command: 'block', block: sibling, raw: sibling.encode() });
    const next = block(height + 1, tip);
    p.send({ command: 'block', block: next, raw: next.encode() });
    // Handled in order: once the second is the tip, the first was dealt with.
    await waitUntil('the unrequested block on the tip is connected', async () => (await tipOf(a)) === next.header.hashHex);
    await assert.rejects(a.call('getblockheader', sibling.header.hashHex), /Block not found/, 'the unrequested sibling was stored');
    assert.ok(!p.closed, 'the sender of valid unrequested blocks was disconnected');
    p.close();
  });

  test('getdata past -maxsendbuffer waits until the peer reads again, and then every block is served', async () => {
    const p = await TestPeer.connect(a.p2pPort);
    const first = await headerAt(a, 1);
    // About 30 MB of blocks asked for at once, while the peer reads nothing: far past the node's
    // 1 MB send buffer and the kernel's socket buffers.
    const count = 20_000;
    p.pause();
    p.send({ command: 'getdata', items: Array.from({ length: count }, () => ({ type: MSG_WITNESS_BLOCK, hash: first.hash })) });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    p.resume();
    await waitUntil('every requested block arrived', async () => p.received.filter((m) => m.command === 'block').length === count);
    assert.equal(p.received.filter((m) => m.command === 'notfound').length, 0);
    assert.ok(!p.closed);
    p.close();
  });

  test('a peer that stalls the download window is dropped and the sync completes from others', async () => {
    const c = node();
    daemons.push(c);
    await c.start();
    // The staller announces the whole chain first and then answers no getdata.
    const staller = await TestPeer.connect(c.p2pPort);
    const headers: BlockHeader[] = [];
    for (let h = 1; h <= (await a.call<number>('getblockcount')); h++) headers.push(await headerAt(a, h));
    for (let i = 0; i < headers.length; i += MAX_HEADERS_RESULTS)
      staller.send({ command: 'headers', headers: headers.slice(i, i + MAX_HEADERS_RESULTS) });
    await staller.waitFor('getdata');
    await c.call('addnode', addr(a), 'onetry');
    await staller.waitClosed();
    await synced(c, a);
    await c.stop();
  });

  test('a node with inbound and outbound peers stops cleanly, saving peers.json and banlist.json', async () => {
    assert.ok((await a.call<number>('getconnectioncount')) > 0, 'a has no peers to save');
    await a.call('setban', '192.0.2.0/24', 'add');
    await a.stop();
    assert.equal(await a.exited(), 0);
    assert.ok(existsSync(join(a.datadir, 'regtest', 'peers.json')), 'peers.json was not saved');
    await a.start();
    assert.deepEqual(
      (await a.call<{ address: string }[]>('listbanned')).map((b) => b.address),
      ['192.0.2.0/24'],
    );
    // The first block a mines after its restart is announced to b (which reconnects on its own):
    // the restart loaded new block index entries, so the network must not compare with stale ones.
    const height = await a.call<number>('getblockcount');
    await waitUntil("b has a's headers again", async () =>
      (await b.call<{ synced_headers: number }[]>('getpeerinfo')).some((p) => p.synced_headers === height),
    );
    const [first] = await a.call<string[]>('generatetoaddress', 1, ADDRESS);
    await waitUntil('b receives the first block a mined after its restart', async () => (await tipOf(b)) === first);
  });

  test('our own transaction is unbroadcast until a peer asks for it; sent again, it is announced to a peer that never heard of it', async () => {
    // Whitelisted test peers hear of transactions at the next tick, not at Poisson times.
    const d = node();
    daemons.push(d);
    await d.start(['-whitelist=127.0.0.1']);
    await d.call('generatetoaddress', 101, await d.call<string>('getnewaddress'));
    const unbroadcast = async () => (await d.call<{ unbroadcastcount: number }>('getmempoolinfo')).unbroadcastcount;
    const announced = (p: TestPeer, wtxid: string) =>
      p.received.filter((m) => m.command === 'inv' && m.items.some((i) => i.type === MSG_WTX && hashToHex(i.hash) === wtxid)).length;

    const first = await TestPeer.connect(d.p2pPort);
    const txid = await d.call<string>('sendtoaddress', ADDRESS, 1);
    const { wtxid } = await d.call<{ wtxid: string }>('getmempoolentry', txid);
    await waitUntil('the first peer hears of it', async () => announced(first, wtxid) === 1);
    assert.equal(await unbroadcast(), 1, 'announced, but nobody has asked for it');
    first.send({ command: 'getdata', items: [{ type: MSG_WTX, hash: hashFromHex(wtxid) }] });
    await first.waitFor('tx');
    await waitUntil('its initial broadcast is done', async () => (await unbroadcast()) === 0);

    // A peer that connects later is not told of what is already in the mempool, until the
    // transaction is submitted again (Core's manual rebroadcast).
    const late = await TestPeer.connect(d.p2pPort);
    assert.equal(await d.call('sendrawtransaction', await d.call<string>('getrawtransaction', txid)), txid);
    await waitUntil('the late peer hears of it', async () => announced(late, wtxid) === 1);
    assert.equal(announced(first, wtxid), 1, 'the first peer, which has it, is not told twice');
    assert.equal(await unbroadcast(), 1, 'unbroadcast again until a peer asks for it');
    first.close();
    late.close();
    await d.stop();
  });

  test("-whitelist's permissions: getpeerinfo lists them, and a BIP35 mempool request is answered only with the mempool permission", async () => {
    const d = node();
    daemons.push(d);
    const permissions = async () => (await d.call<{ permissions: string[] }[]>('getpeerinfo')).map((p) => p.permissions);
    /** A transaction that enters the mempool before the peer connects: only the mempool message can tell the peer of it. */
    const waiting = async () => (await d.call<{ wtxid: string }>('getmempoolentry', await d.call<string>('sendtoaddress', ADDRESS, 1))).wtxid;
    const announced = (p: TestPeer, wtxid: string) =>
      p.received.some((m) => m.command === 'inv' && m.items.some((i) => i.type === MSG_WTX && hashToHex(i.hash) === wtxid));

    // No permission: as Core without bloom filters, the peer is disconnected.
    await d.start();
    await d.call('generatetoaddress', 101, await d.call<string>('getnewaddress'));
    const stranger = await TestPeer.connect(d.p2pPort);
    assert.deepEqual(await permissions(), [[]]);
    stranger.send({ command: 'mempool' });
    await stranger.waitClosed();
    await d.stop();

    // noban alone: the request is ignored and the connection stays.
    await d.start(['-whitelist=noban@127.0.0.1']);
    const ignored = await waiting();
    const trusted = await TestPeer.connect(d.p2pPort);
    assert.deepEqual(await permissions(), [['noban', 'download']]);
    const before = trusted.received.length;
    trusted.send({ command: 'mempool' });
    trusted.send({ command: 'ping', nonce: 7n });
    await trusted.waitFor('pong', before);
    // Past the network's next trickle tick, which would carry the answer.
    await new Promise((r) => setTimeout(r, 1500));
    assert.equal(trusted.closed, false);
    assert.equal(announced(trusted, ignored), false, 'the mempool was not listed');
    trusted.close();
    await d.stop();

    // The mempool permission: the whole mempool. The entries that cover a peer add up, and one
    // without '@' grants noban and mempool, and relay and forcerelay as the two options say.
    await d.start([
      '-whitelist=mempool@127.0.0.1',
      '-whitelist=addr,in@127.0.0.0/8',
      '-whitelist=127.0.0.0/8',
      '-whitelistrelay=0',
      '-whitelistforcerelay=1',
    ]);
    const listed = await waiting();
    const reader = await TestPeer.connect(d.p2pPort);
    assert.deepEqual(await permissions(), [['noban', 'forcerelay', 'relay', 'mempool', 'download', 'addr']]);
    reader.send({ command: 'mempool' });
    await waitUntil('the mempool is listed', async () => announced(reader, listed));
    reader.close();
    await d.stop();

    // bloomfilter: Core offers such a peer NODE_BLOOM, which makes its mempool request welcome.
    await d.start(['-whitelist=bloom@127.0.0.1']);
    const filtered = await waiting();
    const bloom = await TestPeer.connect(d.p2pPort);
    assert.deepEqual(await permissions(), [['bloomfilter']]);
    bloom.send({ command: 'mempool' });
    await waitUntil('the mempool is listed', async () => announced(bloom, filtered));
    bloom.close();
    await d.stop();
  });

  test('a connection that never completes the handshake is closed after -peertimeout', async () => {
    const c = node();
    daemons.push(c);
    await c.start(['-peertimeout=1']);
    const silent = await TestPeer.connect(c.p2pPort, false);
    await silent.waitClosed();
    assert.ok(silent.closed, 'the silent connection is still open');
    await c.stop();
  });
});
