import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, renameSync, statSync } from 'node:fs';
import { Daemon, RpcCallError, freePort } from './daemon.ts';

const ADDRESS = 'csrt1qw508d6qejxtdg4y5r3zarvary0c5xw7k6zfa8x';

test('SIGHUP reopens debug.log (logrotate) and the node keeps running', async () => {
  const d = new Daemon();
  try {
    await d.start();
    renameSync(d.debugLogPath, `${d.debugLogPath}.1`);
    d.proc!.kill('SIGHUP');
    let reopened = '';
    while (!reopened.includes('debug.log reopened')) {
      await new Promise((r) => setTimeout(r, 20));
      reopened = existsSync(d.debugLogPath) ? readFileSync(d.debugLogPath, 'utf8') : '';
    }
    assert.match(readFileSync(`${d.debugLogPath}.1`, 'utf8'), /csd started/);
    assert.equal(statSync(d.debugLogPath).mode & 0o777, 0o600);
    assert.equal(await d.call('getblockcount'), 0);
    assert.equal(await d.call('stop'), 'csd stopping');
    assert.equal(await d.exited(), 0);
    assert.match(readFileSync(d.debugLogPath, 'utf8'), /shutdown: done/);
  } finally {
    await d.cleanup();
  }
});

test('a console that goes away (closed stdout pipe) is dropped: the node keeps running and stops cleanly', async () => {
  const d = new Daemon({ console: true, args: ['-loglevel=debug'] });
  try {
    await d.start();
    assert.match(d.stdout, /INFO +csd started/);
    // The reader of csd's stdout goes away, as with `csd -printtoconsole | head -1`.
    d.proc!.stdout!.destroy();
    // Debug logging writes a line per block to a console that now fails every write.
    assert.equal((await d.call<string[]>('generatetoaddress', 20, ADDRESS)).length, 20);
    assert.equal(await d.call('getblockcount'), 20);
    const log = readFileSync(d.debugLogPath, 'utf8');
    assert.doesNotMatch(log, /EPIPE|uncaught exception/);
    assert.ok(log.length < 1_000_000, `debug.log grew to ${log.length} bytes`);
    assert.equal(await d.call('stop'), 'csd stopping');
    assert.equal(await d.exited(), 0);
  } finally {
    await d.cleanup();
  }
});

test('a shutdown requested during -reindex stops it, exits cleanly without a cookie, and the next start reindexes again', async () => {
  const d = new Daemon({ cookie: true });
  try {
    await d.start();
    const blocks = 800;
    await d.call('generatetoaddress', blocks, ADDRESS);
    const tip = await d.call<string>('getbestblockhash');
    await d.stop();

    await d.launch(['-reindex']);
    // The RPC server is up and says what it is doing while the blocks are connected again.
    let status = '';
    while (status !== 'Reindexing blocks...') {
      assert.equal(d.proc!.exitCode, null, `csd exited: ${d.stderr}`);
      try {
        await d.call('getblockcount');
        assert.fail('the reindex ended before it could be interrupted');
      } catch (e) {
        if (e instanceof RpcCallError) status = e.message;
      }
      await new Promise((r) => setTimeout(r, 10));
    }
    d.proc!.kill('SIGTERM');
    assert.equal(await d.exited(), 0);
    const log = readFileSync(d.debugLogPath, 'utf8');
    assert.match(log, /reindex interrupted/);
    assert.match(log, /startup interrupted by a shutdown request/);
    assert.equal(existsSync(d.cookiePath), false, 'the cookie is removed');

    // The reindex marker is still there: the next start rebuilds everything and ends on the same tip.
    await d.start();
    assert.equal(await d.call('getblockcount'), blocks);
    assert.equal(await d.call('getbestblockhash'), tip);
    const utxo = await d.call<{ height: number; txouts: number }>('gettxoutsetinfo', 'none');
    assert.deepEqual([utxo.height, utxo.txouts], [blocks, blocks]);
    assert.match(readFileSync(d.debugLogPath, 'utf8'), /reindex complete/);
  } finally {
    await d.cleanup();
  }
});

test('a start that fails once the RPC server is up (a ZeroMQ endpoint that cannot be bound) leaves no cookie behind', async () => {
  const d = new Daemon({ cookie: true });
  try {
    d.rpcPort = await freePort();
    // The RPC server takes the port first, so the ZeroMQ publisher cannot bind it.
    await d.launch([`-zmqpubhashblock=tcp://127.0.0.1:${d.rpcPort}`]);
    assert.equal(await d.exited(), 1);
    assert.match(d.stderr, /Error: Unable to bind ZeroMQ publisher \(hashblock\)/);
    assert.equal(existsSync(d.cookiePath), false);
  } finally {
    await d.cleanup();
  }
});

test('-rpcbind takes its own port, as Core: addr:port', async () => {
  const d = new Daemon();
  try {
    const port = await freePort();
    await d.launch(['-rpcallowip=127.0.0.1', `-rpcbind=127.0.0.1:${port}`]);
    const listening = d.rpcPort;
    d.rpcPort = port;
    let count: number | null = null;
    while (count === null) {
      assert.equal(d.proc!.exitCode, null, `csd exited: ${d.stderr}`);
      count = await d.call<number>('getblockcount').catch(() => null);
      await new Promise((r) => setTimeout(r, 50));
    }
    assert.equal(count, 0);
    // Nothing listens on -rpcport when every bind names another port.
    d.rpcPort = listening;
    await assert.rejects(d.call('getblockcount'), /fetch failed/);
    d.rpcPort = port;
  } finally {
    await d.stop();
    await d.cleanup();
  }
});

test('-rpcallowip without -rpcbind binds loopback only and says so, as Core', async () => {
  const d = new Daemon({ args: ['-rpcallowip=10.0.0.0/8'] });
  try {
    await d.start();
    assert.equal(await d.call('getblockcount'), 0);
    assert.match(readFileSync(d.debugLogPath, 'utf8'), /option -rpcallowip was specified without -rpcbind; this doesn't usually make sense/);
  } finally {
    await d.stop();
    await d.cleanup();
  }
});

test('relay policy options reach the mempool: -incrementalrelayfee, -dustrelayfee, -bytespersigop', async () => {
  const d = new Daemon({ args: ['-incrementalrelayfee=0.00002', '-dustrelayfee=0.0001', '-bytespersigop=30'] });
  try {
    await d.start();
    const info = await d.call<{ incrementalrelayfee: number; minrelaytxfee: number }>('getmempoolinfo');
    assert.deepEqual([info.incrementalrelayfee, info.minrelaytxfee], [0.00002, 0.00001]);
  } finally {
    await d.stop();
    await d.cleanup();
  }
});
