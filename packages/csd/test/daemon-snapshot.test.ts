// UTXO snapshots between real csd processes (in the spirit of Core's feature_assumeutxo): a node
// dumps its chain state, a fresh node that only has the headers loads it, is usable at once, then
// validates the history it skipped in the background, from a peer. A snapshot whose trusted hash
// was given for a doctored file is found out and dropped for the validated chain. Restarts, kill -9
// (during the background validation and during a load) and -reindex leave consistent nodes.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BlockHeader, Reader, Writer, fromHex } from '@cs/consensus';
import { encodeCoin } from '../src/chain/coins.ts';
import { HEADER_BYTES } from '../src/chain/snapshot-format.ts';
import { Daemon } from './daemon.ts';
import { type Json, restartKillReindex, rpcError } from './daemon-net.ts';
import { TestPeer } from './p2p-test-peer.ts';

const BASE = 111;
const TIP = 116;

async function waitUntil(what: string, check: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const node = (args: string[] = []) => new Daemon({ args: ['-rpcratelimit=0', '-fallbackfee=0.0001', '-rest', ...args] });

async function headers(d: Daemon, to: number): Promise<BlockHeader[]> {
  const out: BlockHeader[] = [];
  for (let h = 1; h <= to; h++)
    out.push(BlockHeader.decode(fromHex(await d.call<string>('getblockheader', await d.call<string>('getblockhash', h), false))));
  return out;
}

/** Gives `d` the headers (and only the headers) of `from`'s chain, as a peer that never sends blocks. */
async function feedHeaders(d: Daemon, list: BlockHeader[]): Promise<void> {
  const peer = await TestPeer.connect(d.p2pPort);
  peer.send({ command: 'headers', headers: list });
  await waitUntil('the headers arrive', async () => (await d.call<Json>('getblockchaininfo')).headers === list.length);
  peer.close();
}

const chainstates = (d: Daemon) => d.call<{ headers: number; chainstates: Json[] }>('getchainstates');
const utxoHash = async (d: Daemon) => (await d.call<Json>('gettxoutsetinfo')).hash_serialized_3;

/** Waits until `d` runs on one fully validated chain state at `tip`'s block. */
async function settled(d: Daemon, tip: string): Promise<void> {
  await waitUntil('the background validation ends', async () => {
    const { chainstates: states } = await chainstates(d);
    return states.length === 1 && states[0].validated === true && (await d.call<string>('getbestblockhash')) === tip;
  });
}

/**
 * The snapshot file with `count` coins of its own added (txids `txid` and up, vout 0, 1,000 coins
 * each), written to `out`: its content hash, which a node may then be told to trust.
 */
function doctor(file: string, out: string, txid: string, count = 1): string {
  const bytes = readFileSync(file);
  const coin = encodeCoin({ value: 1000n * 100_000_000n, scriptPubKey: Buffer.from(`0014${'11'.repeat(20)}`, 'hex'), height: 50, coinbase: false });
  const records: { table: number; key: Uint8Array; bytes: Uint8Array }[] = [];
  for (let i = 0; i < count; i++) {
    const key = Buffer.concat([Buffer.from(txid, 'hex').reverse(), Buffer.alloc(4)]);
    key.writeUInt32BE((0xeeeeeeee ^ i) >>> 0, 0);
    records.push({ table: 0, key, bytes: new Writer().u8(0).varBytes(key).varBytes(coin).finish() });
  }
  // The file's records, which the fake ones join in table and key order, as the format wants.
  const r = new Reader(bytes.subarray(HEADER_BYTES));
  while (r.remaining > 0) {
    const start = r.offset;
    const table = r.u8();
    const key = r.varBytes();
    r.varBytes();
    records.push({ table, key, bytes: bytes.subarray(HEADER_BYTES + start, HEADER_BYTES + r.offset) });
  }
  records.sort((x, y) => x.table - y.table || Buffer.compare(x.key, y.key));
  const header = Buffer.from(bytes.subarray(0, HEADER_BYTES));
  // The counts end the header: coins, then records (u64le each).
  header.writeBigUInt64LE(header.readBigUInt64LE(HEADER_BYTES - 16) + BigInt(count), HEADER_BYTES - 16);
  header.writeBigUInt64LE(header.readBigUInt64LE(HEADER_BYTES - 8) + BigInt(count), HEADER_BYTES - 8);
  const body = Buffer.concat(records.map((x) => x.bytes));
  writeFileSync(out, Buffer.concat([header, body]));
  return createHash('sha256').update(body).digest('hex');
}

const FAKE_TXID = 'ee'.repeat(32);

describe('UTXO snapshots', { concurrency: false }, () => {
  const a = node();
  const daemons: Daemon[] = [a];
  let dump: Json;
  let file: string;
  let baseUtxoHash: unknown;

  before(async () => {
    await a.start();
    const addr = await a.call<string>('getnewaddress');
    await a.call('generatetoaddress', 110, addr);
    await a.call('sendtoaddress', await a.call<string>('getnewaddress'), 3);
    await a.call('generatetoaddress', 1, addr);
    file = join(a.datadir, 'regtest', 'snap.dat');
  });

  after(async () => {
    for (const d of daemons) await d.cleanup();
  });

  test('dumptxoutset writes the chain state at the tip, or rolled back to a height', async () => {
    await rpcError(a.call('dumptxoutset', 'x.dat'), -8, /Please specify "rollback" or "latest"/);
    dump = await a.call<Json>('dumptxoutset', 'snap.dat', 'latest');
    const info = await a.call<Json>('gettxoutsetinfo');
    baseUtxoHash = info.hash_serialized_3;
    assert.equal(dump.base_height, BASE);
    assert.equal(dump.base_hash, await a.call('getbestblockhash'));
    assert.equal(dump.coins_written, info.txouts);
    assert.equal(dump.path, file);
    assert.equal(dump.nchaintx, BASE + 2);
    assert.match(dump.txoutset_hash as string, /^[0-9a-f]{64}$/);
    await rpcError(a.call('dumptxoutset', 'snap.dat', 'latest'), -8, /already exists/);
    const old = await a.call<Json>('dumptxoutset', 'old.dat', 'rollback', { rollback: 105 });
    assert.equal(old.base_height, 105);
    assert.notEqual(old.txoutset_hash, dump.txoutset_hash);
    assert.equal(await a.call('getblockcount'), BASE, 'the rollback is undone');
    // A dump again at the same tip hashes alike.
    assert.equal((await a.call<Json>('dumptxoutset', 'again.dat', 'latest')).txoutset_hash, dump.txoutset_hash);
    await a.call('generatetoaddress', TIP - BASE, await a.call<string>('getnewaddress'));
  });

  test('a fresh node loads a trusted snapshot, is usable at its base, and validates the history in the background', async () => {
    const b = node([`-assumeutxo=${BASE}:${dump.base_hash}:${dump.txoutset_hash}`]);
    daemons.push(b);
    await b.start();
    await rpcError(b.call('loadtxoutset', file), -32603, /must appear in the headers chain/);
    await feedHeaders(b, await headers(a, TIP));
    await rpcError(b.call('loadtxoutset', join(a.datadir, 'regtest', 'old.dat')), -32603, /not recognized \(hash: [0-9a-f]{64}, height: 105\)/);
    await rpcError(b.call('loadtxoutset', join(a.datadir, 'nothing.dat')), -32603, /Couldn't read snapshot file/);
    const loaded = await b.call<Json>('loadtxoutset', file);
    assert.deepEqual(loaded, { coins_loaded: dump.coins_written, tip_hash: dump.base_hash, base_height: BASE, path: file });
    await rpcError(b.call('loadtxoutset', file), -32603, /more than once/);
    assert.equal(await b.call('getblockcount'), BASE);
    const states = await chainstates(b);
    assert.equal(states.chainstates.length, 2);
    assert.deepEqual([states.chainstates[0].blocks, states.chainstates[0].validated], [0, true]);
    assert.deepEqual(
      [states.chainstates[1].blocks, states.chainstates[1].snapshot_blockhash, states.chainstates[1].validated],
      [BASE, dump.base_hash, false],
    );
    // Usable at the base: the UTXO set, REST, mining and the wallet.
    assert.equal(await utxoHash(b), baseUtxoHash);
    assert.equal((JSON.parse((await b.http('', { method: 'GET', path: '/rest/chaininfo.json' })).body) as Json).blocks, BASE);
    await b.call('generatetoaddress', 1, await b.call<string>('getnewaddress'));
    assert.equal(await b.call('getblockcount'), BASE + 1);
    assert.equal(((await b.call<Json>('getbalances')).mine as Json).immature, 12.5);
    // The history and A's longer chain from A.
    await b.call('addnode', `127.0.0.1:${a.p2pPort}`, 'onetry');
    await settled(b, await a.call<string>('getbestblockhash'));
    assert.equal(await utxoHash(b), await utxoHash(a));
    assert.deepEqual((await b.call<Json>('getblockchaininfo')).warnings, []);
    assert.match(readFileSync(b.debugLogPath, 'utf8'), /background validation complete: the UTXO snapshot is valid/);
    // The history is there as if synced: blocks below the base, a restart, kill -9 and -reindex.
    assert.equal((await b.call<Json>('getblock', await b.call<string>('getblockhash', 50))).height, 50);
    await restartKillReindex(b, TIP, async (when) => {
      assert.equal(await b.call('getbestblockhash'), await a.call('getbestblockhash'), when);
      assert.equal((await chainstates(b)).chainstates.length, 1, when);
      assert.equal(await utxoHash(b), await utxoHash(a), when);
    });
  });

  test("a snapshot whose content is not the chain's is found out by the background validation, which the node falls back to", async () => {
    const doctored = join(a.datadir, 'regtest', 'doctored.dat');
    const hash = doctor(file, doctored, FAKE_TXID);
    const c = node([`-assumeutxo=${BASE}:${dump.base_hash}:${hash}`]);
    daemons.push(c);
    await c.start();
    await feedHeaders(c, await headers(a, TIP));
    await rpcError(c.call('loadtxoutset', file), -32603, /Bad snapshot content hash/);
    await c.call('loadtxoutset', doctored);
    assert.equal((await c.call<Json>('gettxout', FAKE_TXID, 0)).value, 1000, 'the snapshot is trusted until validated');
    // Part of the history, then kill -9 in the middle of the background validation.
    for (let h = 1; h <= 50; h++) await c.call('submitblock', await a.call('getblock', await a.call('getblockhash', h), 0));
    await waitUntil('the background chain state validates the blocks it has', async () => (await chainstates(c)).chainstates[0].blocks === 50);
    await c.kill('SIGKILL');
    await c.start();
    const resumed = (await chainstates(c)).chainstates;
    assert.deepEqual(
      resumed.map((s) => [s.blocks, s.validated]),
      [
        [50, true],
        [BASE, false],
      ],
    );
    await c.call('addnode', `127.0.0.1:${a.p2pPort}`, 'onetry');
    await settled(c, await a.call<string>('getbestblockhash'));
    assert.equal(await c.call('gettxout', FAKE_TXID, 0), null);
    assert.equal(await utxoHash(c), await utxoHash(a));
    const warnings = (await c.call<Json>('getblockchaininfo')).warnings as string[];
    assert.match(warnings[0], new RegExp(`UTXO snapshot at height ${BASE} .* failed background validation.*fell back to the fully validated chain`));
    assert.match(readFileSync(c.debugLogPath, 'utf8'), /UTXO snapshot hash mismatch/);
    await c.stop();
    await c.start();
    assert.equal(await c.call('getbestblockhash'), await a.call('getbestblockhash'));
    assert.equal(((await c.call<Json>('getblockchaininfo')).warnings as string[]).length, 1, 'the verdict survives a restart');
  });

  test('kill -9 during a load leaves the node before the load or after it, never in between', async () => {
    // A snapshot large enough that its load takes a while.
    const big = join(a.datadir, 'regtest', 'big.dat');
    const hash = doctor(file, big, FAKE_TXID, 300_000);
    const d = node([`-assumeutxo=${BASE}:${dump.base_hash}:${hash}`]);
    daemons.push(d);
    await d.start();
    await feedHeaders(d, await headers(a, TIP));
    const loading = d.call('loadtxoutset', big).catch(() => undefined);
    await waitUntil('the load starts', async () => readFileSync(d.debugLogPath, 'utf8').includes('loading a UTXO snapshot'));
    await d.kill('SIGKILL');
    await loading;
    await d.start();
    const height = await d.call<number>('getblockcount');
    const txouts = (await d.call<Json>('gettxoutsetinfo', 'none')).txouts;
    const states = (await chainstates(d)).chainstates.length;
    if (height === 0) {
      assert.deepEqual([txouts, states], [0, 1], 'back before the load');
      console.log(
        `# kill -9 landed during the load: ${readFileSync(d.debugLogPath, 'utf8').includes('load was interrupted') ? 'undone at restart' : 'before it wrote'}`,
      );
      await d.call('loadtxoutset', big);
    } else {
      assert.deepEqual([height, txouts, states], [BASE, (dump.coins_written as number) + 300_000, 2], 'after the load');
    }
    assert.equal(await d.call('getblockcount'), BASE);
    assert.equal((await d.call<Json>('gettxoutsetinfo', 'none')).txouts, (dump.coins_written as number) + 300_000);
  });
});
