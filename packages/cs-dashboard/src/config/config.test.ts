import assert from 'node:assert/strict';
import { test } from 'node:test';
import { refuseRpc } from '../upstream/rpc-whitelist.ts';
import { ConfigError as BaseConfigError } from '@cs/runtime/config';
import { ConfigError, configFromFile, configFromFlags, loadConfig, publicView, readFlags } from './config.ts';

const node = { rpcUrl: 'http://127.0.0.1:16180', rpcUser: 'alice', rpcPassword: 'secret' };

test('a conf file with one node takes the defaults: REST on the RPC URL, no feed, listen 127.0.0.1:8180', () => {
  const c = configFromFile({ nodes: [node] });
  assert.deepEqual([c.host, c.port, c.logLevel, c.ask], ['127.0.0.1', 8180, 'info', true]);
  assert.deepEqual(c.nodes[0], {
    name: 'node1',
    rpcUrl: node.rpcUrl,
    auth: { user: 'alice', password: 'secret' },
    restUrl: node.rpcUrl,
    wsUrl: null,
  });
  assert.deepEqual([c.poolUrl, c.bridgeUrl, c.bridgeKey], [null, null, null]);
});

test('every part of the conf file is read, and command-line flags override listen, loglevel and ask', () => {
  const c = configFromFile(
    {
      listen: '0.0.0.0:9000',
      nodes: [
        { name: 'a', ...node, wsUrl: 'ws://127.0.0.1:16181', restUrl: 'http://127.0.0.1:16190/' },
        { name: 'b', rpcUrl: 'http://10.0.0.2:16180', rpcCookieFile: '/var/lib/cs/.cookie' },
      ],
      pool: { apiUrl: 'http://127.0.0.1:4000' },
      bridge: { apiUrl: 'http://127.0.0.1:3533', apiKey: 'k'.repeat(20) },
      logLevel: 'debug',
    },
    readFlags(['-listen=[::1]:9001', '-ask=0']),
  );
  assert.deepEqual([c.host, c.port, c.logLevel, c.ask], ['::1', 9001, 'debug', false]);
  assert.equal(c.nodes[0].restUrl, 'http://127.0.0.1:16190', 'a trailing slash is dropped');
  assert.deepEqual(c.nodes[1].auth, { cookieFile: '/var/lib/cs/.cookie' });
  assert.deepEqual([c.poolUrl, c.bridgeUrl, c.bridgeKey], ['http://127.0.0.1:4000', 'http://127.0.0.1:3533', 'k'.repeat(20)]);
});

test('flags alone describe one node, its pool and its bridge', () => {
  const c = configFromFlags(
    readFlags([
      '-rpcurl=http://127.0.0.1:16180',
      '-rpcuser=u',
      '-rpcpassword=p',
      '-wsurl=ws://127.0.0.1:16181',
      '--poolurl=http://127.0.0.1:4000',
      '-listen=127.0.0.1:0',
    ]),
  );
  assert.deepEqual([c.nodes.length, c.nodes[0].wsUrl, c.poolUrl, c.port], [1, 'ws://127.0.0.1:16181', 'http://127.0.0.1:4000', 0]);
});

test('mistakes are ConfigErrors that say what to fix', () => {
  const bad: [unknown, RegExp][] = [
    [[], /one JSON object/],
    [{}, /needs "nodes"/],
    [{ nodes: [{ rpcUrl: 'ftp://x' }] }, /nodes\[0\].rpcUrl must start with http:\/\/ or https:\/\//],
    [{ nodes: [{ rpcUrl: 'http://x' }] }, /give rpcUser and rpcPassword, or rpcCookieFile/],
    [{ nodes: [{ ...node, rpcPassword: undefined }] }, /rpcUser and rpcPassword go together/],
    [{ nodes: [{ ...node, wsUrl: 'http://x' }] }, /wsUrl must start with ws:\/\/ or wss:\/\//],
    [
      {
        nodes: [
          { name: 'a', ...node },
          { name: 'a', ...node },
        ],
      },
      /node names must differ/,
    ],
    [{ nodes: [node], listen: '8080' }, /listen must be host:port/],
    [{ nodes: [node], bridge: { apiKey: 'k' } }, /needs the bridge API URL/],
    [{ nodes: [node], logLevel: 'loud' }, /loglevel must be one of/],
  ];
  for (const [json, message] of bad)
    assert.throws(
      () => configFromFile(json),
      (e: Error) => e instanceof ConfigError && message.test(e.message),
      String(message),
    );
  assert.throws(() => readFlags(['-rpcuser']), { message: "Invalid value for -rpcuser: '' (expected a non-empty <user>)" });
  assert.throws(() => readFlags(['-nosuch=1']), { message: 'Invalid parameter -nosuch' });
  assert.throws(() => configFromFlags(readFlags([])), /give -conf=<file> or at least -rpcurl=<url>/);
});

test("the command line reads as csd's: mistakes name the option, the last occurrence wins, -noask", () => {
  const c = configFromFlags(readFlags(['-rpcurl=http://a:1', '-rpccookiefile=/c', '-listen=127.0.0.1:1', '-listen=127.0.0.1:2', '-noask']));
  assert.deepEqual([c.port, c.ask, c.logLevel], [2, false, 'info']);
  for (const [argv, message] of [
    [['-ask=yes'], "Invalid value for -ask: 'yes' (expected 0 or 1)"],
    [['-listen=8080'], "Invalid value for -listen: '8080' (expected host:port, e.g. 127.0.0.1:8180)"],
    [['-loglevel=loud'], "Invalid value for -loglevel: 'loud' (expected one of trace, debug, info, warn, error, fatal, silent)"],
    [['-conf'], "Invalid value for -conf: '' (expected a file name)"],
    [['-norpcurl'], 'Negating of -rpcurl is meaningless and therefore forbidden'],
    [['conf.json'], "unexpected argument 'conf.json' (options are -name=value; cs-dashboard -help)"],
  ] as const) {
    assert.throws(
      () => readFlags(argv),
      (e: Error) => e instanceof BaseConfigError && e.message === message,
      argv.join(' '),
    );
  }
  assert.throws(() => loadConfig(['-conf=/nonexistent.json', '-bridgekey=k']), { message: '-bridgekey goes in the conf file when -conf is given' });
  assert.throws(() => loadConfig(['-conf=/nonexistent.json']), { message: 'cannot read the conf file /nonexistent.json: ENOENT' });
});

test('what browsers and logs see carries no credential', () => {
  const c = configFromFile({
    nodes: [{ ...node, rpcUrl: 'http://bob:hunter2@127.0.0.1:16180' }],
    bridge: { apiUrl: 'http://127.0.0.1:3533', apiKey: 'bridge-secret-key-123' },
  });
  const text = JSON.stringify(publicView(c));
  for (const secret of ['secret', 'hunter2', 'bob', 'bridge-secret-key-123']) assert.ok(!text.includes(secret), `${secret} is not shown`);
  assert.equal(publicView(c).ask, true, 'the ask form is on with a bridge URL and key');
});

test('the RPC whitelist lets reads through and refuses every write', () => {
  assert.equal(refuseRpc({ method: 'getblock', params: ['00', 1] }), null);
  for (const method of ['getopoirequest', 'getopoiaudit', 'listopoiaudits', 'getmodelmanifest', 'listmodelmanifests'])
    assert.equal(refuseRpc({ method }), null, method);
  const writes = ['sendtoaddress', 'stop', 'submitopoirequest', 'dumpprivkey', 'generatetoaddress', 'setban', 'invalidateblock'];
  const opoiWrites = [
    'registermodelmanifest',
    'publishopoianswer',
    'submitopoichallenge',
    'submitopoiverdictcommit',
    'submitopoiverdict',
    'claimopoipayout',
  ];
  for (const method of [...writes, ...opoiWrites]) assert.match(refuseRpc({ method })!, /not on the dashboard's read-only list/, method);
  assert.match(refuseRpc([{ method: 'getblockcount' }])!, /one JSON object/, 'no batches');
  assert.match(refuseRpc({ method: 'getblock', params: 'x' })!, /"params" must be an array/);
});
