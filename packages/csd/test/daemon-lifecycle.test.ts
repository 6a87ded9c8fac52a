import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Transaction, fromHex, toHex } from '@cs/consensus';
import { ChainDatabase, SCHEMA_VERSION } from '../src/storage/database.ts';
import { CLI_BIN, CSD_ARGV, Daemon, RpcCallError, freePort } from './daemon.ts';
import { TestKey } from './test-key.ts';

test('csd starts, refuses a second instance on the same data directory, stops cleanly and restarts on the same tip', async () => {
  const d = new Daemon();
  try {
    await d.start();
    const address = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';
    const hashes = await d.call<string[]>('generatetoaddress', 5, address);
    assert.equal(hashes.length, 5);

    // A second daemon on the same directory exits at once with Core's message; the first keeps serving.
    const second = spawnSync(process.execPath, [...CSD_ARGV, ...d.baseArgs(), '-rpcport=1'], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(second.status, 1);
    assert.match(second.stderr, /Cannot obtain a lock on data directory .*regtest\. csd is probably already running\./);
    assert.equal(await d.call('getblockcount'), 5);

    assert.equal(await d.call('stop'), 'csd stopping');
    assert.equal(await d.exited(), 0);
    await d.start();
    assert.equal(await d.call('getblockcount'), 5);
    assert.equal(await d.call('getbestblockhash'), hashes[4]);

    // SIGTERM is a clean shutdown too.
    d.proc!.kill('SIGTERM');
    assert.equal(await d.exited(), 0);
  } finally {
    await d.cleanup();
  }
});

test('cookie authentication when no rpcpassword is set: owner-only file, removed at shutdown', async () => {
  const d = new Daemon({ cookie: true });
  try {
    await d.start();
    assert.equal(statSync(d.cookiePath).mode & 0o777, 0o600);
    // umask 077: the database (which holds the wallet's keys) is owner-only too.
    assert.equal(statSync(join(d.datadir, 'regtest', 'chainstate', 'data.mdb')).mode & 0o777, 0o600);
    const cookie = readFileSync(d.cookiePath, 'utf8').trim();
    assert.match(cookie, /^__cookie__:[0-9a-f]{64}$/);
    const bad = await d.http(JSON.stringify({ method: 'getblockcount', params: [], id: 1 }), { auth: '__cookie__:00' });
    assert.equal(bad.status, 401);

    // cs-cli finds the cookie in the same data directory, as bitcoin-cli does.
    const cli = (...args: string[]) =>
      spawnSync(process.execPath, [CLI_BIN, '-regtest', `-datadir=${d.datadir}`, `-rpcport=${d.rpcPort}`, ...args], { encoding: 'utf8' });
    const count = cli('getblockcount');
    assert.deepEqual([count.status, count.stdout], [0, '0\n']);
    const hashes = cli('generatetoaddress', '2', 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x');
    assert.equal(JSON.parse(hashes.stdout).length, 2);
    const header = cli('-named', 'getblockheader', `blockhash=${JSON.parse(hashes.stdout)[1]}`, 'verbose=false');
    assert.match(header.stdout, /^04000000[0-9a-f]+\n$/);
    const missing = cli('getblockhash', '99');
    assert.deepEqual([missing.status, missing.stderr], [8, 'error code: -8\nerror message:\nBlock height out of range\n']);
    const unknown = cli('nosuchmethod');
    assert.equal(unknown.status, 89);

    assert.equal(await d.call('stop'), 'csd stopping');
    await d.exited();
    assert.equal(existsSync(d.cookiePath), false);
  } finally {
    await d.cleanup();
  }
});

test('a malformed or unknown option fails at start naming the option', async () => {
  const d = new Daemon();
  try {
    d.rpcPort = await freePort();
    const unknown = spawnSync(process.execPath, [...CSD_ARGV, ...d.baseArgs(), '-nosuchoption=1'], { encoding: 'utf8' });
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /nosuchoption/);
    const bad = spawnSync(process.execPath, [...CSD_ARGV, ...d.baseArgs(), '-rpcratelimit=lots'], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /rpcratelimit/);
    writeFileSync(join(d.datadir, 'cs.conf'), 'regtest=1\n[regtest]\nrpcport=notaport\n');
    const conf = spawnSync(process.execPath, [...CSD_ARGV, `-datadir=${d.datadir}`], { encoding: 'utf8' });
    assert.equal(conf.status, 1);
    assert.match(conf.stderr, /rpcport.*line 3/);
  } finally {
    await d.cleanup();
  }
});

test('kill -9 while mining leaves a consistent chain: every committed block survives and the UTXO set adds up', async () => {
  const d = new Daemon();
  try {
    await d.start();
    const address = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';
    await d.call('generatetoaddress', 20, address);
    // Mine in the background and kill the process part way through.
    const mining = d.call('generatetoaddress', 400, address).catch(() => null);
    await new Promise((r) => setTimeout(r, 700));
    await d.kill('SIGKILL');
    await mining;
    await d.start();
    const height = await d.call<number>('getblockcount');
    assert.ok(height >= 20, `height ${height}`);
    const info = await d.call<{ height: number; total_amount: number; txouts: number }>('gettxoutsetinfo');
    assert.equal(info.height, height);
    // Regtest subsidy: 12.5 coins halving every 150 blocks; nothing was spent or burnt.
    let expected = 0;
    for (let h = 1; h <= height; h++) expected += 1_250_000_000 / 2 ** Math.floor(h / 150);
    assert.equal(Math.round(info.total_amount * 1e8), Math.round(expected));
    // The node keeps working after the crash.
    await d.call('generatetoaddress', 1, address);
    assert.equal(await d.call('getblockcount'), height + 1);
  } finally {
    await d.cleanup();
  }
});

test('-reindex writes a large UTXO set on the writer thread: after a stop it is there, after a kill -9 the next start replays it', async () => {
  const key = new TestKey(new Uint8Array(32).fill(0x21));
  const d = new Daemon();
  try {
    await d.start();
    const hashes = await d.call<string[]>('generatetoaddress', 104, key.address);
    // 12,000 coins, past the 10,000 from which a batch goes to the writer thread: four standard
    // transactions of 3,000 outputs, each spending a coinbase.
    for (const hash of hashes.slice(0, 4)) {
      const cb = (await d.call<{ tx: string[] }>('getblock', hash)).tx[0];
      const amount = BigInt(Math.round((await d.call<{ value: number }>('gettxout', cb, 0)).value * 1e8));
      const template = Transaction.decode(fromHex(await d.call<string>('createrawtransaction', [{ txid: cb, vout: 0 }], [{ [key.address]: 1 }])));
      const output = { ...template.outputs[0], value: (amount - 1_000_000n) / 3_000n };
      const fan = key.signInput(new Transaction({ ...template, outputs: Array(3_000).fill(output) }), 0, amount);
      await d.call('sendrawtransaction', toHex(fan.encode()));
    }
    await d.call('generatetoaddress', 1, key.address);
    const tip = await d.call('getbestblockhash');
    const utxos = await d.call<{ txouts: number }>('gettxoutsetinfo');
    assert.ok(utxos.txouts > 12_000, `${utxos.txouts} coins`);
    await d.stop();
    const log = () => readFileSync(join(d.datadir, 'regtest', 'debug.log'), 'utf8');

    // Stopped cleanly: the batch lands before the process ends.
    await d.start(['-reindex', '-loglevel=debug']);
    assert.equal(await d.call('getbestblockhash'), tip);
    assert.deepEqual(await d.call('gettxoutsetinfo'), utxos);
    await d.stop();
    assert.match(log(), /"coins":1\d{4},"height":105,"ms":\d+,"thread":"writer","msg":"coins cache written"/);

    // Killed as soon as the reindexed node answers, while the writer thread starts and writes (in
    // trials, every kill landed before its commit). Either way the next start has the same tip and
    // set: replayed from the blocks, or as the writer left it.
    for (let i = 0; i < 2; i++) {
      await d.start(['-reindex']);
      await d.kill('SIGKILL');
      await d.start();
      assert.equal(await d.call('getbestblockhash'), tip);
      assert.deepEqual(await d.call('gettxoutsetinfo'), utxos);
      await d.stop();
    }
  } finally {
    await d.cleanup();
  }
});

test('RPC errors over real HTTP: auth, methods, statuses, batches, rate limit, CORS', async () => {
  const d = new Daemon({ args: ['-rpcratelimit=40', '-rpccorsdomain=https://wallet.example'] });
  try {
    await d.start();
    const body = (method: string, params: unknown[] = [], extra: Record<string, unknown> = {}) =>
      JSON.stringify({ jsonrpc: '1.0', id: 7, method, params, ...extra });

    const noAuth = await d.http(body('getblockcount'), { auth: null });
    assert.equal(noAuth.status, 401);
    assert.equal(noAuth.headers.get('www-authenticate'), 'Basic realm="jsonrpc"');
    assert.equal((await d.http(body('getblockcount'), { auth: 'test:wrong' })).status, 401);

    const unknown = await d.http(body('nosuchmethod'));
    assert.equal(unknown.status, 404);
    assert.deepEqual(unknown.json!.error, { code: -32601, message: 'Method not found' });

    const v2 = await d.http(body('nosuchmethod', [], { jsonrpc: '2.0' }));
    assert.equal(v2.status, 200);
    assert.equal(v2.json!.error!.code, -32601);

    const parse = await d.http('{not json');
    assert.equal(parse.status, 500);
    assert.equal(parse.json!.error!.code, -32700);

    const badParam = await d.http(body('getblockhash', ['x']));
    assert.equal(badParam.json!.error!.code, -3);
    const range = await d.http(body('getblockhash', [999]));
    assert.deepEqual(range.json!.error, { code: -8, message: 'Block height out of range' });
    const arity = await d.http(body('getblockhash', []));
    assert.equal(arity.json!.error!.code, -1);

    const batch = await d.http(
      JSON.stringify([
        { id: 1, method: 'getblockcount', params: [] },
        { id: 2, method: 'nosuch', params: [] },
      ]),
    );
    assert.equal(batch.status, 200);
    const replies = JSON.parse(batch.body) as { id: number; error: { code: number } | null; result: unknown }[];
    assert.equal(replies[0].result, 0);
    assert.equal(replies[1].error!.code, -32601);

    assert.equal((await d.http('', { method: 'GET' })).status, 405);
    assert.equal((await d.http(body('getblockcount'), { path: '/nope' })).status, 404);

    const preflight = await d.http('', {
      method: 'OPTIONS',
      auth: null,
      headers: { origin: 'https://wallet.example', 'access-control-request-method': 'POST' },
    });
    assert.ok(preflight.status === 204 || preflight.status === 200);
    assert.equal(preflight.headers.get('access-control-allow-origin'), 'https://wallet.example');
    const cors = await d.http(body('getblockcount'), { headers: { origin: 'https://wallet.example' } });
    assert.equal(cors.headers.get('access-control-allow-origin'), 'https://wallet.example');
    const otherOrigin = await d.http(body('getblockcount'), { headers: { origin: 'https://evil.example' } });
    assert.equal(otherOrigin.headers.get('access-control-allow-origin'), null);

    // An announced body over 32 MiB is refused before it is read.
    const status = await new Promise<string>((resolve, reject) => {
      const sock = connect(d.rpcPort, '127.0.0.1', () => {
        const auth = Buffer.from(`${d.user}:${d.password}`).toString('base64');
        sock.write(`POST / HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${auth}\r\nContent-Length: ${33 * 1024 * 1024}\r\n\r\n{"method":`);
      });
      let data = '';
      sock.on('data', (b) => {
        data += b.toString();
        if (data.includes('\r\n')) {
          resolve(data.split('\r\n')[0]);
          sock.destroy();
        }
      });
      sock.on('error', reject);
    });
    assert.match(status, /^HTTP\/1\.1 413/);

    // 40 per minute: the limit is reached within this test; the 429 carries a JSON-RPC error.
    let limited;
    for (let i = 0; i < 50 && !limited; i++) {
      const r = await d.http(body('getblockcount'));
      if (r.status === 429) limited = r;
    }
    assert.ok(limited, 'no 429 after 50 requests with -rpcratelimit=40');
    assert.equal(limited.json!.error!.message, 'Rate limit exceeded');
    await assert.rejects(d.call('getblockcount'), (e: unknown) => e instanceof RpcCallError && e.message === 'Rate limit exceeded');
  } finally {
    await d.cleanup();
  }
});

test('-reindex rebuilds the block index and UTXO set from the stored blocks', async () => {
  const d = new Daemon();
  try {
    await d.start();
    await d.call('generatetoaddress', 30, 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x');
    const tip = await d.call('getbestblockhash');
    const utxos = await d.call('gettxoutsetinfo');
    await d.stop();
    // As a csd of schema 1 (JSON OPoI records), 2 (request records without an executor), 3 (stake
    // records without served manifests) or 4 (records without the audit fields) left it: refused
    // without -reindex, upgraded by it.
    const path = join(d.datadir, 'regtest', 'chainstate');
    const setSchema = async (version: string) => {
      const db = ChainDatabase.open(path, { reindex: true });
      db.write(() => db.putMeta('schema', Buffer.from(version)));
      await db.close();
    };
    for (const old of ['4', '3', '2', '1']) {
      await setSchema(old);
      await assert.rejects(d.start(), new RegExp(`has schema ${old}, this csd expects ${SCHEMA_VERSION}; start once with -reindex to upgrade it`));
    }
    await d.start(['-reindex']);
    assert.equal(await d.call('getbestblockhash'), tip);
    assert.deepEqual(await d.call('gettxoutsetinfo'), utxos);
    await d.stop();
    const log = readFileSync(join(d.datadir, 'regtest', 'debug.log'), 'utf8');
    assert.match(log, /"msg":"reindex complete"/);
    assert.match(log, /"blocks":31,"height":30/);
    const db = ChainDatabase.open(path);
    assert.equal(db.getMeta('schema')?.toString(), String(SCHEMA_VERSION), '-reindex wrote the new schema');
    await db.close();
    await d.start();
    assert.equal(await d.call('getbestblockhash'), tip);
    await d.stop();
    // A schema -reindex cannot rebuild (say, from a newer csd) is refused even with it.
    await setSchema('99');
    await assert.rejects(d.start(['-reindex']), new RegExp(`has schema 99, which this csd \\(schema ${SCHEMA_VERSION}\\) cannot read or upgrade`));
  } finally {
    await d.cleanup();
  }
});
