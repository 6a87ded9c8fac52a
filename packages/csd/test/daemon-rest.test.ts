// REST against real csd processes: every endpoint in every format (each .bin decoded and checked
// against the .json), every error, the rate limits, the address index through mining, spending,
// the mempool and a reorg, paging, and indexes built in the background on an existing chain or
// rebuilt after a change of their record format.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Block, BlockHeader, REGTEST, Reader, Transaction, blockSubsidy, hashToHex, toHex } from '@cs/consensus';
import { ADDRESS_INDEX_MARKER, ChainDatabase } from '../src/storage/database.ts';
import { Daemon, RpcCallError } from './daemon.ts';
import { TestKey, addressOf } from './test-key.ts';

// The test is the wallet: it mines to its key and signs its own spends.
const KEY = new TestKey(new Uint8Array(32).fill(0x33));
const ADDRESS = KEY.address;
const OTHER = addressOf(new Uint8Array(20).fill(0x44));
const MINER = addressOf(new Uint8Array(20).fill(0x55));
const FEE = 10_000n;
const UNKNOWN_HASH = 'ab'.repeat(32);

const coins = (units: bigint) => Number(units) / 1e8;

interface Reply {
  readonly status: number;
  readonly type: string | null;
  readonly body: Buffer;
  readonly text: string;
  readonly json: unknown;
  readonly headers: Headers;
}

async function rest(d: Daemon, path: string): Promise<Reply> {
  const res = await fetch(`http://127.0.0.1:${d.rpcPort}${path}`);
  const body = Buffer.from(await res.arrayBuffer());
  const text = body.toString('utf8');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, type: res.headers.get('content-type'), body, text, json, headers: res.headers };
}

/** A 200 in the format's Content-Type. */
async function ok(d: Daemon, path: string): Promise<Reply> {
  const r = await rest(d, path);
  assert.equal(r.status, 200, `${path}: ${r.text}`);
  const ext = /\.(json|bin|hex)(\?|$)/.exec(path)?.[1] ?? 'json';
  assert.equal(r.type, { json: 'application/json', bin: 'application/octet-stream', hex: 'text/plain' }[ext], path);
  if (ext === 'hex') assert.match(r.text, /^[0-9a-f]*\n$/);
  return r;
}

/** An error answer: the status and `{"error": text}`. */
async function fails(d: Daemon, path: string, status: number, error: string | RegExp): Promise<void> {
  const r = await rest(d, path);
  assert.equal(r.status, status, `${path}: ${r.text}`);
  assert.equal(r.type, 'application/json');
  const message = (r.json as { error: string }).error;
  if (typeof error === 'string') assert.equal(message, error, path);
  else assert.match(message, error, path);
}

/** Spends output 0 of `txid` (worth `value`, paying ADDRESS): `pay` to OTHER, the rest back to ADDRESS minus FEE. */
async function spendToOther(d: Daemon, txid: string, value: bigint, pay: bigint): Promise<string> {
  const raw = await d.call<string>('createrawtransaction', [{ txid, vout: 0 }], [{ [OTHER]: coins(pay) }, { [ADDRESS]: coins(value - pay - FEE) }]);
  return d.call<string>('sendrawtransaction', KEY.signP2wpkh(raw, [value]));
}

interface BlockJson {
  hash: string;
  confirmations: number;
  height: number;
  version: number;
  merkleroot: string;
  time: number;
  nonce: string;
  bits: string;
  difficulty: number;
  tx: string[];
  previousblockhash?: string;
  nextblockhash?: string;
  size: number;
}

interface AddressJson {
  address: string;
  balance: number;
  totalReceived: number;
  totalSent: number;
  unconfirmedBalance: number;
  txApperances: number;
  unconfirmedTxApperances: number;
  transactions: string[];
  totalItems: number;
  from: number;
  to: number;
}

/** /rest/address's page fields for a first page holding all of `transactions`. */
const wholeList = (transactions: string[]) => ({ transactions, totalItems: transactions.length, from: 0, to: transactions.length });

test('REST on a real csd: every endpoint in every format, .bin decoded against .json, and every error', async () => {
  const d = new Daemon({ args: ['-rest', '-restratelimit=0'] });
  try {
    await d.start();
    const hashes = await d.call<string[]>('generatetoaddress', 101, ADDRESS);
    const coinbase = async (height: number) => (await ok(d, `/rest/block/${hashes[height - 1]}.json`)).json as BlockJson;
    const cb1 = (await coinbase(1)).tx[0];
    const cb2 = (await coinbase(2)).tx[0];
    const value = blockSubsidy(1, REGTEST);
    const pooled = await spendToOther(d, cb1, value, 500_000_000n);

    // chaininfo: JSON only; the document's fields with their types.
    const info = (await ok(d, '/rest/chaininfo.json')).json as Record<string, unknown>;
    assert.deepEqual([info.chain, info.blocks, info.headers, info.bestblockhash], ['regtest', 101, 101, hashes[100]]);
    assert.equal(typeof info.difficulty, 'number');
    assert.equal(typeof info.verificationprogress, 'number');
    assert.deepEqual((await ok(d, '/rest/chaininfo')).json, info);
    await fails(d, '/rest/chaininfo.bin', 404, 'output format not found (available: .json)');
    await fails(d, '/rest/chaininfo.hex', 404, 'output format not found (available: .json)');
    await fails(d, '/rest/chaininfo/extra', 400, 'Invalid URI format. Expected /rest/chaininfo.json');

    // block: the document's Block fields; .bin is the stored block, .hex its hex.
    const block = (await ok(d, `/rest/block/${hashes[4]}.json`)).json as BlockJson;
    assert.deepEqual(
      [block.hash, block.height, block.confirmations, block.previousblockhash, block.nextblockhash],
      [hashes[4], 5, 97, hashes[3], hashes[5]],
    );
    for (const [field, type] of Object.entries({
      version: 'number',
      merkleroot: 'string',
      time: 'number',
      nonce: 'string',
      bits: 'string',
      difficulty: 'number',
    })) {
      assert.equal(typeof block[field as keyof BlockJson], type, field);
    }
    assert.ok(block.tx.every((t) => typeof t === 'string'));
    const bin = (await ok(d, `/rest/block/${hashes[4]}.bin`)).body;
    const decoded = Block.decode(bin);
    assert.deepEqual(
      [decoded.header.hashHex, decoded.txs.map((t) => t.txidHex), bin.length, hashToHex(decoded.header.merkleRoot)],
      [block.hash, block.tx, block.size, block.merkleroot],
    );
    assert.equal((await ok(d, `/rest/block/${hashes[4]}.hex`)).text, `${bin.toString('hex')}\n`);
    assert.deepEqual((await ok(d, `/rest/block/notxdetails/${hashes[4]}.json`)).json, block);
    assert.deepEqual((await ok(d, `/rest/block/notxdetails/${hashes[4]}.bin`)).body, bin);
    assert.equal(((await ok(d, `/rest/block/${hashes[100]}`)).json as BlockJson).nextblockhash, undefined);
    await fails(d, `/rest/block/${UNKNOWN_HASH}.json`, 404, 'Block not found');
    await fails(d, `/rest/block/${UNKNOWN_HASH}.bin`, 404, 'Block not found');
    await fails(d, '/rest/block/xyz.json', 400, 'Invalid hash: xyz');
    await fails(d, `/rest/block/other/${hashes[4]}`, 400, /^Invalid URI format/);
    await fails(d, `/rest/block/${hashes[4]}.xml`, 404, 'output format not found (available: .json, .bin, .hex)');

    // headers: both path forms, count 1..2000, along the active chain.
    const headerHashes = (body: Buffer) => {
      const r = new Reader(body);
      const out: string[] = [];
      while (r.remaining > 0) out.push(BlockHeader.read(r).hashHex);
      return out;
    };
    const headersJson = (await ok(d, `/rest/headers/3/${hashes[0]}.json`)).json as BlockJson[];
    assert.deepEqual(
      headersJson.map((h) => h.hash),
      hashes.slice(0, 3),
    );
    assert.deepEqual(
      headersJson.map((h) => h.height),
      [1, 2, 3],
    );
    const headersBin = (await ok(d, `/rest/headers/3/${hashes[0]}.bin`)).body;
    assert.deepEqual(headerHashes(headersBin), hashes.slice(0, 3));
    assert.equal((await ok(d, `/rest/headers/3/${hashes[0]}.hex`)).text, `${headersBin.toString('hex')}\n`);
    assert.deepEqual(headerHashes((await ok(d, `/rest/headers/${hashes[0]}.bin?count=2`)).body), hashes.slice(0, 2));
    assert.equal(((await ok(d, `/rest/headers/${hashes[0]}.json`)).json as unknown[]).length, 5);
    assert.deepEqual(
      ((await ok(d, `/rest/headers/2000/${hashes[98]}.json`)).json as BlockJson[]).map((h) => h.hash),
      hashes.slice(98),
    );
    for (const count of ['0', '2001', 'abc']) {
      await fails(d, `/rest/headers/${count}/${hashes[0]}.json`, 400, `Header count is invalid or out of acceptable range (1-2000): ${count}`);
    }
    await fails(d, `/rest/headers/${hashes[0]}.json?count=2001`, 400, 'Header count is invalid or out of acceptable range (1-2000): 2001');
    await fails(d, `/rest/headers/3/${UNKNOWN_HASH}.json`, 404, 'Block not found');
    await fails(d, '/rest/headers/3/zz.bin', 400, 'Invalid hash: zz');
    await fails(d, '/rest/headers/1/2/3', 400, /^Invalid URI format/);

    // blockhashbyheight: .bin in internal order, .hex and .json in display order.
    assert.deepEqual((await ok(d, '/rest/blockhashbyheight/7.json')).json, { blockhash: hashes[6] });
    assert.equal(hashToHex((await ok(d, '/rest/blockhashbyheight/7.bin')).body), hashes[6]);
    assert.equal((await ok(d, '/rest/blockhashbyheight/7.hex')).text, `${hashes[6]}\n`);
    await fails(d, '/rest/blockhashbyheight/102.json', 404, 'Block height out of range');
    await fails(d, '/rest/blockhashbyheight/-1.json', 400, 'Invalid height: -1');
    await fails(d, '/rest/blockhashbyheight/one', 400, 'Invalid height: one');

    // tx: confirmed (through the transaction index) and unconfirmed.
    const confirmed = (await ok(d, `/rest/tx/${cb2}.json`)).json as Record<string, unknown> & {
      vout: { scriptPubKey: Record<string, string> }[];
      hex: string;
    };
    assert.deepEqual([confirmed.txid, confirmed.blockhash, confirmed.confirmations], [cb2, hashes[1], 100]);
    for (const field of ['hash', 'version', 'size', 'vsize', 'weight', 'locktime', 'vin', 'time', 'blocktime']) assert.ok(field in confirmed, field);
    assert.deepEqual(Object.keys(confirmed.vout[0].scriptPubKey), ['asm', 'hex', 'address', 'type']);
    assert.deepEqual([confirmed.vout[0].scriptPubKey.address, confirmed.vout[0].scriptPubKey.type], [ADDRESS, 'witness_v0_keyhash']);
    const txBin = (await ok(d, `/rest/tx/${cb2}.bin`)).body;
    assert.equal(Transaction.decode(txBin).txidHex, cb2);
    assert.equal(txBin.toString('hex'), confirmed.hex);
    assert.equal((await ok(d, `/rest/tx/${cb2}.hex`)).text, `${confirmed.hex}\n`);
    const unconfirmed = (await ok(d, `/rest/tx/${pooled}`)).json as Record<string, unknown> & { vin: Record<string, unknown>[] };
    assert.equal(unconfirmed.txid, pooled);
    assert.equal(unconfirmed.blockhash, undefined);
    assert.deepEqual(Object.keys(unconfirmed.vin[0]), ['txid', 'vout', 'scriptSig', 'txinwitness', 'sequence']);
    assert.deepEqual(unconfirmed.vin[0].scriptSig, { asm: '', hex: '' });
    assert.equal(Transaction.decode((await ok(d, `/rest/tx/${pooled}.bin`)).body).txidHex, pooled);
    await fails(d, `/rest/tx/${UNKNOWN_HASH}`, 404, 'Transaction not found');
    await fails(d, '/rest/tx/1234', 400, 'Invalid hash: 1234');

    // mempool.
    const mempoolInfo = (await ok(d, '/rest/mempool/info.json')).json as Record<string, unknown>;
    assert.deepEqual([mempoolInfo.loaded, mempoolInfo.size, mempoolInfo.maxmempool], [true, 1, 300_000_000]);
    for (const field of ['bytes', 'usage', 'mempoolminfee', 'minrelaytxfee']) assert.equal(typeof mempoolInfo[field], 'number', field);
    const contents = (await ok(d, '/rest/mempool/contents.json')).json as Record<string, { wtxid: string }>;
    assert.deepEqual(Object.keys(contents), [pooled]);
    assert.deepEqual((await ok(d, '/rest/mempool/contents.json?verbose=false')).json, [pooled]);
    const withSequence = (await ok(d, '/rest/mempool/contents.json?verbose=false&mempool_sequence=true')).json as {
      txids: string[];
      mempool_sequence: number;
    };
    assert.deepEqual(withSequence.txids, [pooled]);
    assert.equal(typeof withSequence.mempool_sequence, 'number');
    await fails(d, '/rest/mempool/contents.json?verbose=yes', 400, 'The "verbose" query parameter must be either "true" or "false".');
    await fails(
      d,
      '/rest/mempool/contents.json?mempool_sequence=true',
      400,
      'Verbose results cannot contain mempool sequence values. (hint: set "verbose=false")',
    );
    await fails(d, '/rest/mempool/other.json', 400, 'Invalid URI format. Expected /rest/mempool/<info|contents>.json');
    await fails(d, '/rest/mempool/info.bin', 404, 'output format not found (available: .json)');

    // getutxos (BIP64): coinbase 1 is spent by the mempool, coinbase 2 unspent, `pooled`'s
    // output exists only in the mempool, the last outpoint nowhere.
    const outpoints = `${cb1}-0/${cb2}-0/${pooled}-0/${UNKNOWN_HASH}-3`;
    interface UtxosJson {
      chainHeight: number;
      chaintipHash: string;
      bitmap: string;
      utxos: { height: number; value: number; scriptPubKey: { hex: string; address: string } }[];
    }
    const chainOnly = (await ok(d, `/rest/getutxos/${outpoints}.json`)).json as UtxosJson;
    assert.deepEqual([chainOnly.chainHeight, chainOnly.chaintipHash, chainOnly.bitmap], [101, hashes[100], '1100']);
    assert.deepEqual(
      chainOnly.utxos.map((u) => [u.height, u.value, u.scriptPubKey.address]),
      [
        [1, coins(value), ADDRESS],
        [2, coins(blockSubsidy(2, REGTEST)), ADDRESS],
      ],
    );
    for (const prefix of ['checkmempool', '1']) {
      const withPool = (await ok(d, `/rest/getutxos/${prefix}/${outpoints}.json`)).json as UtxosJson;
      assert.equal(withPool.bitmap, '0110');
      assert.deepEqual(
        withPool.utxos.map((u) => [u.height, u.value, u.scriptPubKey.address]),
        [
          [2, coins(blockSubsidy(2, REGTEST)), ADDRESS],
          [2147483647, 5, OTHER],
        ],
      );
    }
    const utxosBin = (await ok(d, `/rest/getutxos/checkmempool/${outpoints}.bin`)).body;
    const r = new Reader(utxosBin);
    const parsed = {
      chainHeight: r.i32le(),
      chaintipHash: hashToHex(r.bytes(32)),
      bitmap: [...r.varBytes()],
      utxos: Array.from({ length: r.compactSize() }, () => ({
        version: r.u32le(),
        height: r.u32le(),
        value: r.i64le(),
        script: toHex(r.varBytes()),
      })),
    };
    r.end();
    const withPool = (await ok(d, `/rest/getutxos/checkmempool/${outpoints}.json`)).json as UtxosJson;
    assert.deepEqual(parsed, {
      chainHeight: withPool.chainHeight,
      chaintipHash: withPool.chaintipHash,
      bitmap: [0b0110],
      utxos: withPool.utxos.map((u) => ({ version: 0, height: u.height, value: BigInt(Math.round(u.value * 1e8)), script: u.scriptPubKey.hex })),
    });
    assert.equal((await ok(d, `/rest/getutxos/checkmempool/${outpoints}.hex`)).text, `${utxosBin.toString('hex')}\n`);
    await fails(d, '/rest/getutxos', 400, 'Error: empty request');
    await fails(d, '/rest/getutxos/checkmempool.json', 400, 'Error: empty request');
    await fails(d, `/rest/getutxos/${cb1}.json`, 400, `Parse error: '${cb1}' is not an outpoint <txid>-<n>`);
    await fails(d, `/rest/getutxos/${cb1}-4294967296`, 400, /^Parse error/);
    const sixteen = Array.from({ length: 16 }, (_, i) => `${cb2}-${i}`).join('/');
    await fails(d, `/rest/getutxos/checkmempool/${sixteen}.json`, 400, 'Error: max outpoints exceeded (max: 15, tried: 16)');

    // Anything else.
    await fails(d, '/rest/nothing', 404, 'Unknown REST endpoint: /rest/nothing');
    await fails(d, '/rest/address/notanaddress', 400, /^Invalid address: notanaddress/);
    const post = await d.http('', { method: 'POST', path: '/rest/chaininfo.json', auth: null });
    assert.equal(post.status, 405);
    // REST needs no credentials; JSON-RPC still does.
    assert.equal((await d.http('{}', { auth: null })).status, 401);
  } finally {
    await d.cleanup();
  }
});

test('REST address index on a real csd: mining to an address, spending from it, mempool activity and a reorg', async () => {
  const d = new Daemon({ args: ['-rest', '-restratelimit=0'] });
  const address = async (a: string) => (await ok(d, `/rest/address/${a}?from=0&to=1000`)).json as AddressJson;
  try {
    await d.start();
    const hashes = await d.call<string[]>('generatetoaddress', 101, ADDRESS);
    let mined = 0n;
    for (let h = 1; h <= 101; h++) mined += blockSubsidy(h, REGTEST);
    const coinbases: string[] = [];
    for (const hash of hashes) coinbases.push(((await ok(d, `/rest/block/notxdetails/${hash}`)).json as BlockJson).tx[0]);
    const newestFirst = [...coinbases].reverse();
    const mining: AddressJson = {
      address: ADDRESS,
      balance: coins(mined),
      totalReceived: coins(mined),
      totalSent: 0,
      unconfirmedBalance: 0,
      txApperances: 101,
      unconfirmedTxApperances: 0,
      ...wholeList(newestFirst),
    };
    assert.deepEqual(await address(ADDRESS), mining);
    // Field order is the document's.
    assert.deepEqual(Object.keys(await address(ADDRESS)), Object.keys(mining));
    // An address never seen: zeros, not an error.
    assert.deepEqual(await address(OTHER), { ...mining, address: OTHER, balance: 0, totalReceived: 0, txApperances: 0, ...wholeList([]) });

    // Spending: in the mempool first.
    const value = blockSubsidy(1, REGTEST);
    const pay = 500_000_000n;
    const spent = await spendToOther(d, coinbases[0], value, pay);
    const pending: AddressJson = {
      ...mining,
      unconfirmedBalance: coins(-pay - FEE),
      unconfirmedTxApperances: 1,
      ...wholeList([spent, ...newestFirst]),
    };
    assert.deepEqual(await address(ADDRESS), pending);
    const otherPending: AddressJson = {
      ...mining,
      address: OTHER,
      balance: 0,
      totalReceived: 0,
      txApperances: 0,
      unconfirmedBalance: coins(pay),
      unconfirmedTxApperances: 1,
      ...wholeList([spent]),
    };
    assert.deepEqual(await address(OTHER), otherPending);

    // Confirmed in a block mined to a third address.
    const [confirmingBlock] = await d.call<string[]>('generatetoaddress', 1, MINER);
    const settled: AddressJson = {
      ...mining,
      balance: coins(mined - pay - FEE),
      totalReceived: coins(mined + value - pay - FEE),
      totalSent: coins(value),
      txApperances: 102,
      ...wholeList([spent, ...newestFirst]),
    };
    assert.deepEqual(await address(ADDRESS), settled);
    const otherSettled: AddressJson = {
      ...otherPending,
      balance: coins(pay),
      totalReceived: coins(pay),
      txApperances: 1,
      unconfirmedBalance: 0,
      unconfirmedTxApperances: 0,
    };
    assert.deepEqual(await address(OTHER), otherSettled);
    assert.equal(((await ok(d, `/rest/tx/${spent}`)).json as { blockhash: string }).blockhash, confirmingBlock);

    // Pages: 50 by default, any `from`/`to` window of the same list, the totals on every page.
    const { transactions: _all, totalItems: _n, from: _f, to: _t, ...settledTotals } = settled;
    const paged = async (query: string) => (await ok(d, `/rest/address/${ADDRESS}${query}`)).json as AddressJson;
    assert.deepEqual(await paged(''), { ...settledTotals, transactions: settled.transactions.slice(0, 50), totalItems: 102, from: 0, to: 50 });
    assert.deepEqual(await paged('?from=100&to=200'), {
      ...settledTotals,
      transactions: settled.transactions.slice(100),
      totalItems: 102,
      from: 100,
      to: 102,
    });
    assert.deepEqual((await paged('.json?from=1&to=3')).transactions, newestFirst.slice(0, 2));
    await fails(d, `/rest/address/${ADDRESS}?from=0&to=1001`, 400, 'Invalid to: 1001 (a decimal from 1 to 1000)');
    await fails(d, `/rest/address/${ADDRESS}?from=x`, 400, 'Invalid from: x (a decimal from 0 to 2147483647)');

    // Reorg: invalidating the block takes the spend out of the confirmed side and the mempool
    // takes it back.
    await d.call('invalidateblock', confirmingBlock);
    assert.deepEqual(await address(ADDRESS), pending);
    assert.deepEqual(await address(OTHER), otherPending);
    assert.equal((await address(MINER)).txApperances, 0);
    assert.equal(((await ok(d, `/rest/tx/${spent}`)).json as { blockhash?: string }).blockhash, undefined);

    // A new branch confirms it again.
    const branch = await d.call<string[]>('generatetoaddress', 2, MINER);
    assert.deepEqual(await address(ADDRESS), settled);
    assert.deepEqual(await address(OTHER), otherSettled);
    assert.deepEqual((await address(MINER)).txApperances, 2);
    const moved = (await ok(d, `/rest/tx/${spent}`)).json as { blockhash: string; confirmations: number };
    assert.deepEqual([moved.blockhash, moved.confirmations], [branch[0], 2]);
  } finally {
    await d.cleanup();
  }
});

test('REST rate limits on a real csd: restratelimit per endpoint group, half of it for address and mempool', async () => {
  const d = new Daemon({ args: ['-rest', '-restratelimit=4'] });
  try {
    await d.start();
    for (let i = 0; i < 4; i++) await ok(d, '/rest/chaininfo.json');
    const limited = await rest(d, '/rest/chaininfo.json');
    assert.equal(limited.status, 429);
    assert.deepEqual(limited.json, { error: 'Rate limit exceeded' });
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    // Each group has its own budget.
    for (let i = 0; i < 4; i++) await ok(d, '/rest/blockhashbyheight/0.json');
    await fails(d, '/rest/blockhashbyheight/0.json', 429, 'Rate limit exceeded');
    for (let i = 0; i < 2; i++) await ok(d, '/rest/mempool/info.json');
    await fails(d, '/rest/mempool/contents.json', 429, 'Rate limit exceeded');
    for (let i = 0; i < 2; i++) await ok(d, `/rest/address/${ADDRESS}`);
    await fails(d, `/rest/address/${ADDRESS}`, 429, 'Rate limit exceeded');
    // JSON-RPC has its own limit.
    assert.equal(await d.call('getblockcount'), 0);
  } finally {
    await d.cleanup();
  }
});

test('kill -9 while mining leaves the indexes consistent with the chain after the restart', async () => {
  const d = new Daemon({ args: ['-rest', '-restratelimit=0'] });
  try {
    await d.start();
    await d.call('generatetoaddress', 20, ADDRESS);
    // Mine in the background and kill the process part way through: the index writes follow
    // each chain write, so the kill may fall between the two.
    const mining = d.call('generatetoaddress', 400, ADDRESS).catch(() => null);
    await new Promise((resolve) => setTimeout(resolve, 700));
    await d.kill('SIGKILL');
    await mining;
    await d.start();
    const height = await d.call<number>('getblockcount');
    let reply: Reply;
    do reply = await rest(d, `/rest/address/${ADDRESS}?to=1000`);
    while (reply.status === 503);
    const a = reply.json as AddressJson;
    let mined = 0n;
    for (let h = 1; h <= height; h++) mined += blockSubsidy(h, REGTEST);
    assert.deepEqual([a.txApperances, a.transactions.length, a.totalReceived], [height, height, coins(mined)]);
    for (const h of [1, Math.ceil(height / 2), height]) {
      const hash = await d.call<string>('getblockhash', h);
      const coinbase = ((await ok(d, `/rest/block/${hash}`)).json as BlockJson).tx[0];
      assert.equal(((await ok(d, `/rest/tx/${coinbase}`)).json as { blockhash: string }).blockhash, hash);
      assert.equal(a.transactions[height - h], coinbase);
    }
  } finally {
    await d.cleanup();
  }
});

test('indexes switched on for an existing chain are built in the background, then kept across restarts', async () => {
  const d = new Daemon({ args: ['-rest', '-restratelimit=0'] });
  try {
    await d.start(['-txindex=0', '-addressindex=0']);
    const hashes = await d.call<string[]>('generatetoaddress', 300, ADDRESS);
    const cb = ((await ok(d, `/rest/block/${hashes[9]}`)).json as BlockJson).tx[0];
    await fails(d, `/rest/address/${ADDRESS}`, 501, 'Address index is disabled: start csd with -addressindex=1');
    await fails(d, `/rest/tx/${cb}`, 501, /transaction index is disabled/);
    await assert.rejects(
      d.call('getrawtransaction', cb),
      (e: unknown) => e instanceof RpcCallError && e.code === -5 && /Use -txindex/.test(e.message),
    );
    await d.stop();

    await d.start();
    // Until the indexes have caught up the answers are 503, never partial.
    let answer: Reply;
    for (;;) {
      answer = await rest(d, `/rest/address/${ADDRESS}`);
      if (answer.status === 200) break;
      assert.equal(answer.status, 503, answer.text);
      assert.match((answer.json as { error: string }).error, /^Index is still syncing \(height \d+ of 300\)$/);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((answer.json as AddressJson).txApperances, 300);
    for (;;) {
      const tx = await rest(d, `/rest/tx/${cb}`);
      if (tx.status === 200) break;
      assert.equal(tx.status, 503, tx.text);
    }
    const found = await d.call<{ blockhash: string }>('getrawtransaction', cb, true);
    assert.equal(found.blockhash, hashes[9]);
    const log = readFileSync(join(d.datadir, 'regtest', 'debug.log'), 'utf8');
    assert.match(log, /"index":"txindex".*"msg":"index synced"/);
    assert.match(log, /"index":"addrindex".*"msg":"index synced"/);

    // A restart resumes from the stored markers: nothing to catch up.
    await d.stop();
    await d.start();
    assert.equal((await rest(d, `/rest/address/${ADDRESS}`)).status, 200);
    const after = readFileSync(join(d.datadir, 'regtest', 'debug.log'), 'utf8').slice(log.length);
    assert.doesNotMatch(after, /index syncing/);
  } finally {
    await d.cleanup();
  }
});

test('an address index written in an older record format is rebuilt at start, answering 503 until it is, with its progress in the log', async () => {
  const d = new Daemon({ args: ['-rest', '-restratelimit=0'] });
  try {
    await d.start();
    const hashes = await d.call<string[]>('generatetoaddress', 200, ADDRESS);
    await d.stop();
    // Version 1 records (what a csd from before the format change leaves behind).
    const db = ChainDatabase.open(join(d.datadir, 'regtest', 'chainstate'));
    db.write(() => db.putMeta(`${ADDRESS_INDEX_MARKER}.version`, Buffer.from('1')));
    await db.close();

    await d.start();
    let answer: Reply;
    for (;;) {
      answer = await rest(d, `/rest/address/${ADDRESS}?from=0&to=3`);
      if (answer.status === 200) break;
      assert.equal(answer.status, 503, answer.text);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const a = answer.json as AddressJson;
    const newest = ((await ok(d, `/rest/block/${hashes[199]}`)).json as BlockJson).tx[0];
    assert.deepEqual([a.txApperances, a.totalItems, a.transactions.length, a.transactions[0]], [200, 200, 3, newest]);
    const log = readFileSync(d.debugLogPath, 'utf8');
    assert.match(log, /"index":"addrindex".*"from":1.*"to":2.*"msg":"index format changed: rebuilding the index from genesis"/);
    assert.match(log, /"index":"addrindex".*"msg":"index synced"/);
    assert.doesNotMatch(log, /"index":"txindex".*"msg":"index format changed/);
  } finally {
    await d.cleanup();
  }
});
