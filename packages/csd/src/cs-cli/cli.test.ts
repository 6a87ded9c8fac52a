/**
 * The real cs-cli program (bin/cs-cli.js in a child process) against a small JSON-RPC server
 * started here on a free loopback port.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { writeCookie } from '@cs/runtime/datadir';
import { freePort } from '../../test/daemon.ts';

const root = mkdtempSync(join(tmpdir(), 'cs-cli-'));
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const servers = new Set<Server>();
after(() => {
  for (const server of servers) server.close();
  rmSync(root, { recursive: true, force: true });
});

interface Seen {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly contentType: string | undefined;
  readonly authorization: string | undefined;
  readonly body: string;
}

type Answer = { readonly status?: number; readonly body: string };

/** A JSON-RPC server answering with `answer(request, index)`; records what it was sent. */
async function rpcServer(answer: (request: Seen, index: number) => Answer, port = 0) {
  const requests: Seen[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const seen = {
        method: req.method,
        url: req.url,
        contentType: req.headers['content-type'],
        authorization: req.headers.authorization,
        body,
      };
      const reply = answer(seen, requests.length);
      requests.push(seen);
      res.writeHead(reply.status ?? 200, { 'Content-Type': 'application/json' });
      res.end(reply.body);
    });
  });
  servers.add(server);
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  return { port: (server.address() as AddressInfo).port, requests };
}

const result = (json: string): Answer => ({ body: `{"result":${json},"error":null,"id":"cs-cli"}` });
const rpcError = (status: number, code: number, message: string): Answer => ({
  status,
  body: JSON.stringify({ result: null, error: { code, message }, id: 'cs-cli' }),
});
const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

let homes = 0;
/** A HOME whose ~/.cs holds `conf` as cs.conf. */
function home(conf = ''): string {
  const dir = join(root, `home${homes++}`);
  mkdirSync(join(dir, '.cs'), { recursive: true });
  writeFileSync(join(dir, '.cs', 'cs.conf'), conf);
  return dir;
}

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function startCli(args: readonly string[], options: { home?: string; input?: string } = {}) {
  const child = spawn(process.execPath, [join(repo, 'packages/csd/bin/cs-cli.js'), ...args], {
    cwd: repo,
    env: { PATH: process.env.PATH, HOME: options.home ?? home() },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdin.end(options.input ?? '');
  return {
    done: (async (): Promise<Run> => {
      const [code] = (await once(child, 'exit')) as [number | null];
      return { code, stdout, stderr };
    })(),
  };
}

const cli = (args: readonly string[], options?: { home?: string; input?: string }) => startCli(args, options).done;

test('sends a JSON-RPC 1.0 envelope with Basic auth from -rpcuser/-rpcpassword and prints the result', async () => {
  const server = await rpcServer(() => result('42'));
  const run = await cli([`-rpcport=${server.port}`, '-rpcuser=alice', '-rpcpassword=s3cret', 'getblockcount']);
  assert.deepEqual(run, { code: 0, stdout: '42\n', stderr: '' });
  const [seen] = server.requests;
  assert.equal(seen.method, 'POST');
  assert.equal(seen.url, '/');
  assert.equal(seen.contentType, 'application/json');
  assert.equal(seen.authorization, basic('alice:s3cret'));
  assert.equal(seen.body, '{"jsonrpc":"1.0","id":"cs-cli","method":"getblockcount","params":[]}\n');
});

test('without a password the cookie of the selected network is used; settings come from cs.conf sections', async () => {
  const server = await rpcServer(() => result('"ok"'));
  const h = home(`regtest=1\nrpcallowip=10.0.0.0/8\nzmqpubrawtx=tcp://127.0.0.1:28332\n[regtest]\nrpcport=${server.port}\n`);
  mkdirSync(join(h, '.cs', 'regtest'));
  const cookie = await writeCookie(join(h, '.cs', 'regtest', '.cookie'));
  const run = await cli(['uptime'], { home: h });
  assert.deepEqual(run, { code: 0, stdout: 'ok\n', stderr: '' });
  assert.equal(server.requests[0].authorization, basic(`__cookie__:${cookie.password}`));

  writeFileSync(join(h, '.cs', 'cs.conf'), `regtest=1\nrpcuser=bob\nrpcpassword=pw\n[regtest]\nrpcport=${server.port}\n`);
  await cli(['uptime'], { home: h });
  assert.equal(server.requests[1].authorization, basic('bob:pw'), 'rpcpassword beats the cookie');
});

test('params are converted per method and position; output: strings raw, null as nothing, JSON indented', async () => {
  const answers = [result('"00ab"'), result('null'), result('{"fee":0.00001000,"list":[],"n":{"x":[1,true]}}')];
  const server = await rpcServer((_, i) => answers[i]);
  const port = `-rpcport=${server.port}`;
  assert.deepEqual(await cli([port, '-rpcpassword=x', 'getblockhash', '0']), { code: 0, stdout: '00ab\n', stderr: '' });
  assert.deepEqual(await cli([port, '-rpcpassword=x', 'stop']), { code: 0, stdout: '', stderr: '' });
  const run = await cli([port, '-rpcpassword=x', 'sendtoaddress', 'csrt1q', '0.1', '', '', 'true']);
  assert.equal(run.code, 0);
  assert.equal(run.stdout, '{\n  "fee": 0.00001000,\n  "list": [\n  ],\n  "n": {\n    "x": [\n      1,\n      true\n    ]\n  }\n}\n');
  const bodies = server.requests.map((r) => JSON.parse(r.body) as { method: string; params: unknown });
  assert.deepEqual(bodies[0].params, [0]);
  assert.deepEqual(bodies[2].params, ['csrt1q', 0.1, '', '', true]);
});

test('-named sends an object; -stdin appends one argument per line; -stdinrpcpass reads the password first', async () => {
  const server = await rpcServer(() => result('true'));
  const port = `-rpcport=${server.port}`;
  await cli([port, '-rpcpassword=x', '-named', 'getblock', 'blockhash=ab', 'verbosity=2']);
  assert.equal(server.requests[0].body, '{"jsonrpc":"1.0","id":"cs-cli","method":"getblock","params":{"blockhash":"ab","verbosity":2}}\n');
  await cli([port, '-rpcpassword=x', '-stdin', 'walletpassphrase'], { input: 'my secret phrase\n60\n' });
  assert.match(server.requests[1].body, /"params":\["my secret phrase",60\]/);
  const run = await cli([port, '-rpcuser=u', '-stdinrpcpass', '-stdin', 'getblockhash'], { input: 'pa ss\n7\n' });
  assert.equal(run.code, 0);
  assert.equal(server.requests[2].authorization, basic('u:pa ss'));
  assert.match(server.requests[2].body, /"params":\[7\]/);
  assert.deepEqual(await cli([port, '-stdinrpcpass', 'uptime']), {
    code: 1,
    stdout: '',
    stderr: 'error: -stdinrpcpass specified but failed to read from standard input\n',
  });
});

test('RPC errors print code and message to stderr and exit with |code| (the shell keeps the low 8 bits)', async () => {
  const server = await rpcServer((request) =>
    request.body.includes('"nosuchmethod"') ? rpcError(404, -32601, 'Method not found') : rpcError(500, -8, 'Invalid parameter'),
  );
  const port = `-rpcport=${server.port}`;
  assert.deepEqual(await cli([port, '-rpcpassword=x', 'getblock', 'zz']), {
    code: 8,
    stdout: '',
    stderr: 'error code: -8\nerror message:\nInvalid parameter\n',
  });
  assert.deepEqual(await cli([port, '-rpcpassword=x', 'nosuchmethod']), {
    code: 32601 % 256,
    stdout: '',
    stderr: 'error code: -32601\nerror message:\nMethod not found\n',
  });
});

test('HTTP statuses are read as bitcoin-cli reads them', async () => {
  const answers: Answer[] = [
    { status: 401, body: '' },
    { status: 401, body: '' },
    { status: 503, body: 'busy' },
    { status: 403, body: '' },
    { status: 200, body: '' },
    { status: 200, body: 'not json' },
  ];
  const server = await rpcServer((_, i) => answers[i]);
  const port = `-rpcport=${server.port}`;
  const error = async (args: readonly string[]) => {
    const run = await cli([port, ...args, 'getblockcount']);
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    return run.stderr;
  };
  assert.equal(await error(['-rpcpassword=wrong']), 'error: Authorization failed: Incorrect rpcuser or rpcpassword\n');
  assert.match(
    await error([]),
    /^error: Could not locate RPC credentials\. No authentication cookie could be found, and RPC password is not set\. {2}See -rpcpassword and -stdinrpcpass\. {2}Configuration file: \(.*cs\.conf\)\n$/,
  );
  assert.equal(await error(['-rpcpassword=x']), 'error: Server response: busy\n');
  assert.equal(await error(['-rpcpassword=x']), 'error: server returned HTTP error 403\n');
  assert.equal(await error(['-rpcpassword=x']), 'error: no response from server\n');
  assert.equal(await error(['-rpcpassword=x']), "error: couldn't parse reply from server\n");
});

test('a JSON position that is not JSON is refused before anything is sent', async () => {
  const server = await rpcServer(() => result('1'));
  const run = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', 'getblockhash', 'tip']);
  assert.deepEqual(run, { code: 1, stdout: '', stderr: 'error: Error parsing JSON: tip\n' });
  assert.equal(server.requests.length, 0);
});

test('connection refused: the Core message with a hint, exit 1', async () => {
  const port = await freePort();
  const run = await cli([`-rpcport=${port}`, '-rpcpassword=x', 'getblockcount']);
  assert.equal(run.code, 1);
  assert.equal(
    run.stderr,
    `error: Could not connect to the server 127.0.0.1:${port}\n\n` +
      'Make sure the csd server is running and that you are connecting to the correct RPC port.\n' +
      'Use "cs-cli -help" for more info.\n',
  );
  const viaConnect = await cli([`-rpcconnect=127.0.0.1:${port}`, '-rpcpassword=x', 'getblockcount']);
  assert.match(viaConnect.stderr, new RegExp(`^error: Could not connect to the server 127\\.0\\.0\\.1:${port}\\n`), 'port taken from -rpcconnect');
});

test('-rpcwait keeps trying until a server that starts late answers', async () => {
  const port = await freePort();
  const waiting = startCli([`-rpcport=${port}`, '-rpcpassword=x', '-rpcwait', 'getblockcount']);
  // Let the client find nothing listening at least once; the outcome does not depend on how often.
  await sleep(1500);
  const server = await rpcServer(() => result('7'), port);
  assert.deepEqual(await waiting.done, { code: 0, stdout: '7\n', stderr: '' });
  assert.equal(server.requests.length, 1);
});

test('-rpcwait also waits out warm-up (-28) answers', async () => {
  const server = await rpcServer((_, i) => (i < 2 ? rpcError(500, -28, 'Loading block index...') : result('"ready"')));
  const run = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', '-rpcwait', 'getblockcount']);
  assert.deepEqual(run, { code: 0, stdout: 'ready\n', stderr: '' });
  assert.equal(server.requests.length, 3);
  const once = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', 'getblockcount']);
  assert.equal(once.stdout, 'ready\n');
});

test('-rpcwaittimeout gives up with the last transient error', async () => {
  const port = await freePort();
  const run = await cli([`-rpcport=${port}`, '-rpcpassword=x', '-rpcwait', '-rpcwaittimeout=1', 'getblockcount']);
  assert.equal(run.code, 1);
  assert.match(run.stderr, new RegExp(`^error: timeout on transient error: Could not connect to the server 127\\.0\\.0\\.1:${port}\\n`));
});

test('usage, help, version and configuration errors', async () => {
  const bare = await cli([]);
  assert.equal(bare.code, 1);
  assert.match(bare.stdout, /^cs RPC client version v\d+\.\d+\.\d+\n\nUsage: {2}cs-cli \[options\] <command> \[params\]/);
  assert.equal(bare.stderr, 'Error: too few parameters\n');

  const help = await cli(['-help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /-rpcwait\n/);
  assert.equal((await cli(['-?'])).stdout, help.stdout);
  assert.match((await cli(['-version'])).stdout, /^cs RPC client version v\d+\.\d+\.\d+\n$/);

  assert.deepEqual(await cli(['-rpcwait']), { code: 1, stdout: '', stderr: 'error: too few parameters (need at least command)\n' });
  assert.deepEqual(await cli(['-foo', 'getblockcount']), {
    code: 1,
    stdout: '',
    stderr: 'Error parsing command line arguments: Invalid parameter -foo\n',
  });
  assert.deepEqual(await cli(['-rpcport=x', 'getblockcount']), {
    code: 1,
    stdout: '',
    stderr: "Error parsing command line arguments: Invalid value for -rpcport: 'x' (expected an integer 1..65535)\n",
  });
  const badConf = await cli(['getblockcount'], { home: home('rpcport=x\n') });
  assert.match(badConf.stderr, /^Error reading configuration file: Invalid value for -rpcport: 'x' .* line 1\n$/);
  assert.equal((await cli(['-help'], { home: home('rpcport=x\n') })).code, 0, 'help works with a broken cs.conf');
  const missing = join(root, 'missing');
  assert.deepEqual(await cli([`-datadir=${missing}`, 'getblockcount']), {
    code: 1,
    stdout: '',
    stderr: `Error: Specified data directory "${missing}" does not exist.\n`,
  });
  assert.deepEqual(await cli(['-regtest', '-testnet', 'getblockcount']), {
    code: 1,
    stdout: '',
    stderr: 'Error: Invalid combination of -regtest, -testnet and -chain. Can use at most one.\n',
  });
});

test('-rpcwallet sends the request to the wallet path, its name URL-encoded', async () => {
  const server = await rpcServer(() => result('1.5'));
  const run = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', '-rpcwallet=my wallet/1', 'getbalance']);
  assert.deepEqual(run, { code: 0, stdout: '1.5\n', stderr: '' });
  assert.equal(server.requests[0].url, '/wallet/my%20wallet%2F1');
  const empty = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', '-rpcwallet=', 'getbalance']);
  assert.equal(empty.code, 0);
  assert.equal(server.requests[1].url, '/wallet/');
});

test('-generate asks for a new address, then mines to it, and prints both as bitcoin-cli does', async () => {
  const server = await rpcServer((seen) => (JSON.parse(seen.body).method === 'getnewaddress' ? result('"csrt1qexample"') : result('["aa","bb"]')));
  const run = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', '-generate', '2', '1000']);
  assert.deepEqual(run, { code: 0, stdout: '{\n  "address": "csrt1qexample",\n  "blocks": [\n    "aa",\n    "bb"\n  ]\n}\n', stderr: '' });
  assert.deepEqual(
    server.requests.map((r) => JSON.parse(r.body)).map((b) => [b.method, b.params]),
    [
      ['getnewaddress', []],
      ['generatetoaddress', [2, 'csrt1qexample', 1000]],
    ],
  );
  // One block by default.
  await cli([`-rpcport=${server.port}`, '-rpcpassword=x', '-generate']);
  assert.deepEqual(JSON.parse(server.requests[3].body).params, [1, 'csrt1qexample']);

  const tooMany = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', '-generate', '1', '2', '3']);
  assert.deepEqual(tooMany, { code: 1, stdout: '', stderr: 'error: too many arguments (maximum 2 for nblocks and maxtries)\n' });
  const zero = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', '-generate', '0']);
  assert.equal(zero.stderr, 'error: the first argument (number of blocks to generate, default: 1) must be an integer value greater than zero\n');
  assert.equal(server.requests.length, 4, 'nothing sent for bad arguments');

  // A node without a wallet: getnewaddress's error is the answer.
  const noWallet = await rpcServer(() => rpcError(404, -32601, 'Method not found'));
  const refused = await cli([`-rpcport=${noWallet.port}`, '-rpcpassword=x', '-generate']);
  assert.deepEqual(refused, { code: 32601 % 256, stdout: '', stderr: 'error code: -32601\nerror message:\nMethod not found\n' });
});

test("a port in both -rpcconnect and -rpcport: -rpcport is used, with bitcoin-cli's warning", async () => {
  const server = await rpcServer(() => result('7'));
  const unused = await freePort();
  const run = await cli([`-rpcconnect=127.0.0.1:${unused}`, `-rpcport=${server.port}`, '-rpcpassword=x', 'getblockcount']);
  assert.deepEqual(run, {
    code: 0,
    stdout: '7\n',
    stderr: `Warning: Port specified in both -rpcconnect and -rpcport. Using -rpcport ${server.port}\n`,
  });
  const quiet = await cli([`-rpcconnect=127.0.0.1`, `-rpcport=${server.port}`, '-rpcpassword=x', 'getblockcount']);
  assert.equal(quiet.stderr, '');
});

test('-netinfo prints the peer dashboard from getnetworkinfo and getpeerinfo; a level lists each peer', async () => {
  const network = '{"subversion":"/csd:0.1.0/","protocolversion":70016,"localaddresses":[{"address":"127.0.0.1","port":36125}]}';
  const now = Math.floor(Date.now() / 1000);
  const peers = `[{"id":3,"addr":"127.0.0.1:5000","network":"ipv4","inbound":true,"connection_type":"inbound","pingtime":0.01,"minping":0.005,"lastsend":${now},"lastrecv":${now},"conntime":${now - 120},"version":70016,"subver":"/csd:0.1.0/"},{"id":4,"addr":"[::1]:36125","network":"ipv6","inbound":false,"connection_type":"manual","lastsend":${now},"lastrecv":${now},"conntime":${now},"version":70016,"subver":"/csd:0.1.0/"}]`;
  const server = await rpcServer((seen) => (JSON.parse(seen.body).method === 'getnetworkinfo' ? result(network) : result(peers)));
  const summary = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', '-netinfo']);
  assert.equal(summary.code, 0);
  assert.match(summary.stdout, /^cs client \/csd:0\.1\.0\/ - server 70016\/csd:0\.1\.0\//);
  assert.match(summary.stdout, /\nin\s+1\s+0\s+1\nout\s+0\s+1\s+1\ntotal\s+1\s+1\s+2\n/);
  assert.match(summary.stdout, /Local addresses: 127\.0\.0\.1:36125/);
  assert.doesNotMatch(summary.stdout, /127\.0\.0\.1:5000/);
  const listed = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', '-netinfo', '1']);
  // Seconds since send/receive and minutes connected depend on when the client ran: any number.
  assert.match(listed.stdout, /in\s+ipv4\s+5\s+10\s+\d+\s+\d+\s+\d+\s+3\s+127\.0\.0\.1:5000\s+70016\/csd:0\.1\.0\//);
  assert.match(listed.stdout, /out\s+manual\s+ipv6/);
  const bad = await cli([`-rpcport=${server.port}`, '-rpcpassword=x', '-netinfo', '9']);
  assert.deepEqual(bad, { code: 1, stdout: '', stderr: 'error: invalid -netinfo level 9: expected 0 to 4\n' });
});
