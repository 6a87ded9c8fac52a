import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AllowList } from './allowip.ts';
import { writeCookie } from '@cs/runtime/datadir';
import { RpcError, RpcErrorCode } from './errors.ts';
import { withJsonText } from '../format/json-value.ts';
import { silentLogger } from './logger.ts';
import { RpcRegistry } from './registry.ts';
import { RpcHttpServer, type RpcServerOptions } from './server.ts';
import { basicAuth, httpRequest, type TestResponse } from './test-client.ts';
import { Warmup } from './warmup.ts';

const USER = 'alice';
const PASSWORD = 'correct horse';
const AUTH = basicAuth(USER, PASSWORD);

interface Fixture {
  readonly port: number;
  readonly server: RpcHttpServer;
  readonly registry: RpcRegistry;
  /** How often the `touch` method ran (to see notifications execute). */
  readonly touches: { count: number };
  rpc(body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
}

function registerTestMethods(registry: RpcRegistry, touches: { count: number }): void {
  const common = { category: 'Util', result: 'n    (numeric) the answer', examples: [{ args: [] }] } as const;
  registry.register({
    ...common,
    name: 'getblockchaininfo',
    category: 'Blockchain',
    description: 'A fixed chain summary.',
    params: [],
    handler: async () => ({ chain: 'regtest', blocks: 0 }),
  });
  const kept = withJsonText({ kept: true, text: 'a "quoted" value', list: [1, null] });
  registry.register({
    ...common,
    name: 'getkept',
    description: 'A shared answer serialized once.',
    params: [],
    handler: async () => kept,
  });
  registry.register({
    ...common,
    name: 'add',
    description: 'Adds two numbers.',
    params: [
      { name: 'a', type: 'number', description: 'first addend' },
      { name: 'b', type: 'number', default: 1, description: 'second addend' },
    ],
    handler: async ([a, b]) => a + b,
  });
  registry.register({
    ...common,
    name: 'send',
    description: 'Echoes an amount in base units.',
    params: [
      { name: 'address', type: 'string', description: 'where to' },
      { name: 'amount', type: 'amount', description: 'how much, in coins' },
    ],
    handler: async ([address, amount]) => `${address}:${amount}`,
  });
  registry.register({
    ...common,
    name: 'touch',
    description: 'Counts its calls.',
    params: [],
    handler: async () => ++touches.count,
  });
  registry.register({
    ...common,
    name: 'whereami',
    description: 'Returns the request path.',
    params: [],
    handler: async (_args, ctx) => ctx.uri,
  });
  registry.register({
    ...common,
    name: 'crash',
    description: 'Throws a plain Error.',
    params: [],
    handler: async () => {
      throw new Error('boom');
    },
  });
  registry.register({
    ...common,
    name: 'refuse',
    description: 'Throws an RpcError.',
    params: [],
    handler: async () => {
      throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Block height out of range');
    },
  });
}

async function start(t: TestContext, options: Partial<RpcServerOptions> = {}): Promise<Fixture> {
  const registry = options.registry ?? new RpcRegistry();
  const touches = { count: 0 };
  registerTestMethods(registry, touches);
  const server = new RpcHttpServer({
    credentials: [{ user: USER, password: PASSWORD }],
    logger: silentLogger,
    authFailureDelayMs: 10,
    ...options,
    registry,
  });
  const { port } = await server.listen(0);
  t.after(() => server.close());
  return {
    port,
    server,
    registry,
    touches,
    rpc: (body, headers = {}) =>
      httpRequest({
        port,
        headers: { authorization: AUTH, 'content-type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
  };
}

function json(res: TestResponse): unknown {
  assert.equal(res.headers['content-type'], 'application/json');
  return JSON.parse(res.text);
}

// --- authentication ---

test('a request without credentials gets 401 with the Basic challenge', async (t) => {
  const { port } = await start(t);
  const res = await httpRequest({ port, body: '{"method":"add","params":[1]}' });
  assert.equal(res.status, 401);
  assert.equal(res.headers['www-authenticate'], 'Basic realm="jsonrpc"');
  assert.equal(res.text, '');
});

test('a wrong password or a malformed Authorization header gets 401', async (t) => {
  const { port } = await start(t);
  const body = '{"method":"add","params":[1]}';
  for (const authorization of [
    basicAuth(USER, 'wrong'),
    basicAuth('bob', PASSWORD),
    `Bearer ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
    `basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`,
    'Basic !!!not-base64!!!',
    `Basic ${Buffer.from(`${USER}${PASSWORD}`).toString('base64')}`,
    'Basic ',
  ]) {
    const res = await httpRequest({ port, headers: { authorization }, body });
    assert.equal(res.status, 401, authorization);
    assert.equal(res.headers['www-authenticate'], 'Basic realm="jsonrpc"');
  }
});

test('the delay after a wrong password holds back only that client', async (t) => {
  const { port, rpc } = await start(t, { authFailureDelayMs: 60_000 });
  let wrongAnswered = false;
  const wrong = request({ host: '127.0.0.1', port, method: 'POST', agent: false, headers: { authorization: basicAuth(USER, 'guess') } }, () => {
    wrongAnswered = true;
  });
  wrong.on('error', () => {});
  wrong.end('{"method":"touch"}');
  for (let i = 0; i < 3; i++) assert.equal((await rpc({ method: 'touch', id: i })).status, 200);
  assert.equal(wrongAnswered, false, 'the wrong password is still waiting out its delay');
  wrong.destroy();
});

test('the cookie credential and rpcuser/rpcpassword are both accepted', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'csd-rpc-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const cookie = await writeCookie(join(dir, '.cookie'));
  assert.equal(cookie.user, '__cookie__');
  assert.match(cookie.password, /^[0-9a-f]{64}$/);
  const { port } = await start(t, { credentials: [{ user: USER, password: PASSWORD }, cookie] });
  const body = '{"method":"add","params":[2,3],"id":1}';
  for (const authorization of [basicAuth(cookie.user, cookie.password), AUTH]) {
    const res = await httpRequest({ port, headers: { authorization }, body });
    assert.equal(res.status, 200);
    assert.deepEqual(json(res), { result: 5, error: null, id: 1 });
  }
  const res = await httpRequest({ port, headers: { authorization: basicAuth('__cookie__', 'f'.repeat(64)) }, body });
  assert.equal(res.status, 401);
});

// --- rpcallowip, methods, paths, limits ---

test('a client outside rpcallowip gets 403 before authentication, on every path', async (t) => {
  const { port } = await start(t, { allowList: new AllowList(['127.0.0.1']) });
  const body = '{"method":"touch","id":1}';
  const outside = await httpRequest({ port, localAddress: '127.0.0.2', headers: { authorization: AUTH }, body });
  assert.equal(outside.status, 403);
  const metrics = await httpRequest({ port, localAddress: '127.0.0.2', method: 'GET', path: '/metrics' });
  assert.equal(metrics.status, 403);
  const inside = await httpRequest({ port, localAddress: '127.0.0.1', headers: { authorization: AUTH }, body });
  assert.equal(inside.status, 200);
});

test('JSON-RPC takes only POST (405); unknown paths are 404', async (t) => {
  const { port } = await start(t);
  const get = await httpRequest({ port, method: 'GET', headers: { authorization: AUTH } });
  assert.equal(get.status, 405);
  assert.equal(get.headers.allow, 'POST');
  const putMetrics = await httpRequest({ port, method: 'PUT', path: '/metrics' });
  assert.equal(putMetrics.status, 405);
  assert.equal(putMetrics.headers.allow, 'GET');
  const unknown = await httpRequest({ port, path: '/nope', headers: { authorization: AUTH }, body: '{}' });
  assert.equal(unknown.status, 404);
});

test('a body over the limit is refused with 413, declared or streamed', async (t) => {
  const { port } = await start(t, { maxBodyBytes: 64 });
  const big = JSON.stringify({ method: 'add', params: [1, 2], id: 'x'.repeat(100) });
  const declared = await httpRequest({ port, headers: { authorization: AUTH }, body: big });
  assert.equal(declared.status, 413);
  assert.equal(declared.headers.connection, 'close');

  const streamed = await new Promise<number>((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/', agent: false, headers: { authorization: AUTH } }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('error', reject);
    req.write(big.slice(0, 50)); // chunked: no Content-Length to check up front
    req.end(big.slice(50));
  });
  assert.equal(streamed, 413);

  const small = await httpRequest({ port, headers: { authorization: AUTH }, body: '{"method":"add","params":[1]}' });
  assert.equal(small.status, 200);
});

test('a client that disconnects in the middle of its body does not disturb the server', async (t) => {
  const { port, rpc } = await start(t);
  await new Promise<void>((resolve) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(`POST / HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH}\r\nContent-Length: 100\r\n\r\n{"method":`);
      setImmediate(() => socket.destroy());
    });
    socket.on('close', () => resolve());
  });
  assert.deepEqual(json(await rpc({ id: 1, method: 'add', params: [1] })), { result: 2, error: null, id: 1 });
});

test('over rpcratelimit a client gets 429 with Retry-After until its window ends', async (t) => {
  let clock = 1_000_000;
  const { rpc } = await start(t, { rateLimit: 2, now: () => clock });
  assert.equal((await rpc({ method: 'touch', id: 1 })).status, 200);
  clock += 30_000;
  assert.equal((await rpc({ method: 'touch', id: 2 })).status, 200);
  const limited = await rpc({ method: 'touch', id: 3 });
  assert.equal(limited.status, 429);
  assert.equal(limited.headers['retry-after'], '30');
  assert.deepEqual(json(limited), { result: null, error: { code: -32000, message: 'Rate limit exceeded' }, id: 3 });
  const limited2 = await rpc({ jsonrpc: '2.0', method: 'touch', id: 4 });
  assert.equal(limited2.status, 429);
  assert.deepEqual(json(limited2), { jsonrpc: '2.0', error: { code: -32000, message: 'Rate limit exceeded' }, id: 4 });
  clock += 30_000; // the window that opened with request 1 is over
  const again = await rpc({ method: 'touch', id: 5 });
  assert.equal(again.status, 200);
  assert.deepEqual(json(again), { result: 3, error: null, id: 5 });
});

test('rpcratelimit=0 turns the limit off', async (t) => {
  const { rpc } = await start(t, { rateLimit: 0 });
  for (let i = 0; i < 150; i++) assert.equal((await rpc({ method: 'touch', id: i })).status, 200);
});

// --- CORS ---

test('CORS: the configured origin gets credentials-enabled headers and an unauthenticated preflight', async (t) => {
  const origin = 'https://wallet.example';
  const { port, rpc } = await start(t, { corsDomain: origin });
  const preflight = await httpRequest({
    port,
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers['access-control-allow-origin'], origin);
  assert.equal(preflight.headers['access-control-allow-credentials'], 'true');
  assert.equal(preflight.headers['access-control-allow-methods'], 'POST, GET, OPTIONS');
  assert.equal(preflight.headers['access-control-allow-headers'], 'authorization, content-type');

  const call = await rpc({ method: 'add', params: [1], id: 1 }, { origin });
  assert.equal(call.status, 200);
  assert.equal(call.headers['access-control-allow-origin'], origin);
  assert.equal(call.headers['access-control-allow-credentials'], 'true');
  const denied = await httpRequest({ port, headers: { origin }, body: '{}' });
  assert.equal(denied.status, 401);
  assert.equal(denied.headers['access-control-allow-origin'], origin, 'the page may read the 401');
});

test('CORS: other origins, or no rpccorsdomain, get no CORS headers', async (t) => {
  const { port, rpc } = await start(t, { corsDomain: 'https://wallet.example' });
  const other = 'https://evil.example';
  const call = await rpc({ method: 'add', params: [1], id: 1 }, { origin: other });
  assert.equal(call.status, 200);
  assert.equal(call.headers['access-control-allow-origin'], undefined);
  assert.equal(call.headers['access-control-allow-credentials'], undefined);
  const preflight = await httpRequest({ port, method: 'OPTIONS', headers: { origin: other, 'access-control-request-method': 'POST' } });
  assert.equal(preflight.status, 405);
  assert.equal(preflight.headers['access-control-allow-origin'], undefined);

  const plain = await start(t);
  const res = await plain.rpc({ method: 'add', params: [1], id: 1 }, { origin: 'https://wallet.example' });
  assert.equal(res.headers['access-control-allow-origin'], undefined);
});

// --- JSON-RPC envelope ---

test('a body that is not JSON is a -32700 parse error with HTTP 500', async (t) => {
  const { rpc } = await start(t);
  const nested = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
  // Nesting deeper than Core's 512 levels is a parse error too; 200,000 levels in the id would
  // overflow the stack of the JSON writer echoing it.
  const deepId = `{"method":"getblockchaininfo","id":${nested(200_000)}}`;
  for (const body of ['this is bad', '', '{"method":', nested(513), `[${nested(512)}]`, deepId]) {
    const res = await rpc(body);
    assert.equal(res.status, 500);
    assert.deepEqual(json(res), { result: null, error: { code: -32700, message: 'Parse error' }, id: null });
  }
  // 512 levels are read (here: a batch whose one element is not a request).
  const deepest = await rpc(`[${nested(511)}]`);
  assert.equal(deepest.status, 200);
  assert.equal((json(deepest) as { error: { code: number } }[])[0].error.code, -32600);
});

test('malformed requests are -32600 with HTTP 400, shaped by the version read so far', async (t) => {
  const { rpc } = await start(t);
  const cases: [unknown, string, object][] = [
    [42, 'Invalid Request object', { result: null, id: null }],
    ['"getblockchaininfo"', 'Invalid Request object', { result: null, id: null }],
    [{ id: 1, method: 5 }, 'Method must be a string', { result: null, id: 1 }],
    [{ id: 2 }, 'Missing method', { result: null, id: 2 }],
    [{ id: 3, method: 'add', params: 'one' }, 'Params must be an array or object', { result: null, id: 3 }],
    [{ id: 4, jsonrpc: 2, method: 'add' }, 'jsonrpc field must be a string', { result: null, id: 4 }],
    [{ id: 5, jsonrpc: '3.0', method: 'add' }, 'JSON-RPC version not supported', { result: null, id: 5 }],
    [{ id: 6, jsonrpc: '2.0', method: null }, 'Missing method', { jsonrpc: '2.0', id: 6 }],
  ];
  for (const [request, message, shape] of cases) {
    const res = await rpc(typeof request === 'string' ? request : JSON.stringify(request));
    assert.equal(res.status, 400, message);
    assert.deepEqual(json(res), { ...shape, error: { code: -32600, message } });
  }
});

test('JSON-RPC 1.0: result, error and id always; HTTP 404 for an unknown method, 500 for other errors', async (t) => {
  const { rpc } = await start(t);
  const ok = await rpc({ jsonrpc: '1.0', id: 'a', method: 'add', params: [1, 2] });
  assert.equal(ok.status, 200);
  assert.deepEqual(json(ok), { result: 3, error: null, id: 'a' });
  const noVersion = await rpc({ method: 'add', params: [1] });
  assert.deepEqual(json(noVersion), { result: 2, error: null, id: null });
  const missing = await rpc({ id: 'b', method: 'nosuchmethod' });
  assert.equal(missing.status, 404);
  assert.deepEqual(json(missing), { result: null, error: { code: -32601, message: 'Method not found' }, id: 'b' });
  const refused = await rpc({ id: 'c', method: 'refuse' });
  assert.equal(refused.status, 500);
  assert.deepEqual(json(refused), { result: null, error: { code: -8, message: 'Block height out of range' }, id: 'c' });
});

test('JSON-RPC 2.0: jsonrpc member, only one of result/error, HTTP 200 even for errors', async (t) => {
  const { rpc } = await start(t);
  const ok = await rpc({ jsonrpc: '2.0', id: 7, method: 'add', params: [1, 2] });
  assert.equal(ok.status, 200);
  assert.deepEqual(json(ok), { jsonrpc: '2.0', result: 3, id: 7 });
  const missing = await rpc({ jsonrpc: '2.0', id: 8, method: 'nosuchmethod' });
  assert.equal(missing.status, 200);
  assert.deepEqual(json(missing), { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 8 });
  const refused = await rpc({ jsonrpc: '2.0', id: 9, method: 'refuse' });
  assert.equal(refused.status, 200);
  assert.deepEqual(json(refused), { jsonrpc: '2.0', error: { code: -8, message: 'Block height out of range' }, id: 9 });
  const nullId = await rpc({ jsonrpc: '2.0', id: null, method: 'add', params: [1] });
  assert.equal(nullId.status, 200, 'an explicit null id is not a notification');
  assert.deepEqual(json(nullId), { jsonrpc: '2.0', result: 2, id: null });
});

test('a result serialized once (withJsonText) gives the same bytes as one serialized per reply', async (t) => {
  const { rpc } = await start(t);
  const result = { kept: true, text: 'a "quoted" value', list: [1, null] };
  for (const envelope of [{ id: 1 }, { id: 'x"y' }, { id: null }, { jsonrpc: '2.0', id: 2 }, { jsonrpc: '2.0', id: null }]) {
    const res = await rpc({ ...envelope, method: 'getkept' });
    const expected = 'jsonrpc' in envelope ? { jsonrpc: '2.0', result, id: envelope.id } : { result, error: null, id: envelope.id };
    assert.equal(res.text, `${JSON.stringify(expected)}\n`, `reply to ${JSON.stringify(envelope)}`);
  }
  const batch = await rpc([{ id: 3, method: 'getkept' }]);
  assert.deepEqual(json(batch), [{ result, error: null, id: 3 }], 'batches serialize it as any result');
});

test('JSON-RPC 2.0 notifications run and get 204 with no body, even when they fail', async (t) => {
  const { rpc, touches } = await start(t);
  const res = await rpc({ jsonrpc: '2.0', method: 'touch' });
  assert.equal(res.status, 204);
  assert.equal(res.text, '');
  assert.equal(touches.count, 1);
  const failing = await rpc({ jsonrpc: '2.0', method: 'refuse' });
  assert.equal(failing.status, 204);
  const legacy = await rpc({ method: 'touch' });
  assert.equal(legacy.status, 200, 'without jsonrpc 2.0 a missing id is not a notification');
  assert.equal(touches.count, 2);
});

test('batches: one reply per call in order, notifications left out, errors inline, HTTP 200', async (t) => {
  const { rpc, touches } = await start(t);
  const res = await rpc([
    { jsonrpc: '2.0', id: 1, method: 'add', params: [1, 1] },
    { jsonrpc: '2.0', method: 'touch' },
    { jsonrpc: '2.0', id: 2, method: 'nosuchmethod' },
    { id: 3, method: 'add', params: [2] },
    { jsonrpc: '2.0', id: 4, pizza: 'sausage' },
    17,
    { id: 5, method: 'crash' },
  ]);
  assert.equal(res.status, 200);
  assert.deepEqual(json(res), [
    { jsonrpc: '2.0', result: 2, id: 1 },
    { jsonrpc: '2.0', error: { code: -32601, message: 'Method not found' }, id: 2 },
    { result: 3, error: null, id: 3 },
    { jsonrpc: '2.0', error: { code: -32600, message: 'Missing method' }, id: 4 },
    { result: null, error: { code: -32600, message: 'Invalid Request object' }, id: null },
    { result: null, error: { code: -1, message: 'boom' }, id: 5 },
  ]);
  assert.equal(touches.count, 1);
});

test('an empty batch is -32600; a batch of notifications only is 204', async (t) => {
  const { rpc, touches } = await start(t);
  const empty = await rpc([]);
  assert.equal(empty.status, 400);
  assert.deepEqual(json(empty), { result: null, error: { code: -32600, message: 'Empty batch' }, id: null });
  const notifications = await rpc([
    { jsonrpc: '2.0', method: 'touch' },
    { jsonrpc: '2.0', method: 'touch' },
  ]);
  assert.equal(notifications.status, 204);
  assert.equal(notifications.text, '');
  assert.equal(touches.count, 2);
});

// --- arguments ---

test('named parameters map onto positions; unknown or doubled names are -8', async (t) => {
  const { rpc } = await start(t);
  assert.deepEqual(json(await rpc({ id: 1, method: 'add', params: { b: 10, a: 1 } })), { result: 11, error: null, id: 1 });
  assert.deepEqual(json(await rpc({ id: 2, method: 'add', params: { a: 5 } })), { result: 6, error: null, id: 2 });
  assert.deepEqual(json(await rpc({ id: 3, method: 'add', params: { args: [1], b: 3 } })), { result: 4, error: null, id: 3 });
  const unknown = await rpc({ id: 4, method: 'add', params: { a: 1, c: 2 } });
  assert.equal(unknown.status, 500);
  assert.deepEqual(json(unknown), { result: null, error: { code: -8, message: 'Unknown named parameter c' }, id: 4 });
  const twice = await rpc({ id: 5, method: 'add', params: { args: [1, 2], b: 3 } });
  assert.deepEqual(json(twice), {
    result: null,
    error: { code: -8, message: 'Parameter b specified twice both as positional and named argument' },
    id: 5,
  });
});

test("a wrong JSON type is -3 with Core's wording", async (t) => {
  const { rpc } = await start(t);
  const res = await rpc({ id: 1, method: 'add', params: ['1', true] });
  assert.equal(res.status, 500);
  assert.deepEqual(json(res), {
    result: null,
    error: {
      code: -3,
      message:
        'Wrong type passed:\n{\n    "Position 1 (a)": "JSON value of type string is not of expected type number",\n' +
        '    "Position 2 (b)": "JSON value of type bool is not of expected type number"\n}',
    },
    id: 1,
  });
});

test("amount arguments: coins to base units, Core's -3 errors for bad amounts", async (t) => {
  const { rpc } = await start(t);
  const result = (params: unknown[]) => rpc({ id: 1, method: 'send', params }).then((r) => json(r) as { result: unknown; error: unknown });
  assert.equal((await result(['addr', 0.1])).result, 'addr:10000000');
  assert.equal((await result(['addr', '21000000'])).result, 'addr:2100000000000000');
  assert.deepEqual((await result(['addr', 1e-9])).error, { code: -3, message: 'Invalid amount' });
  assert.deepEqual((await result(['addr', -1])).error, { code: -3, message: 'Amount out of range' });
  assert.deepEqual((await result(['addr', true])).error, { code: -3, message: 'Amount is not a number or string' });
});

test("the wrong number of arguments is -1 with the method's help as message", async (t) => {
  const { rpc, registry } = await start(t);
  for (const params of [[], [1, 2, 3]]) {
    const res = await rpc({ id: 1, method: 'add', params });
    assert.equal(res.status, 500);
    const body = json(res) as { error: { code: number; message: string } };
    assert.equal(body.error.code, -1);
    assert.equal(body.error.message, registry.help('add'));
    assert.match(body.error.message, /^add a \( b \)\n/);
  }
});

test('a handler that throws is -1 with its message only, and the server keeps serving', async (t) => {
  const { rpc } = await start(t);
  const res = await rpc({ id: 1, method: 'crash' });
  assert.equal(res.status, 500);
  assert.deepEqual(json(res), { result: null, error: { code: -1, message: 'boom' }, id: 1 });
  assert.doesNotMatch(res.text, /at .*\.ts/);
  assert.deepEqual(json(await rpc({ id: 2, method: 'add', params: [1] })), { result: 2, error: null, id: 2 });
});

// --- node state, paths, metrics, shutdown ---

test('during warmup calls get -28 with the status; allowed methods still answer', async (t) => {
  const warmup = new Warmup('Loading block index…');
  const registry = new RpcRegistry(warmup);
  registry.register({
    name: 'ping',
    category: 'Control',
    description: 'Answers during warmup.',
    params: [],
    result: 'null',
    examples: [{ args: [] }],
    allowedInWarmup: true,
    handler: async () => null,
  });
  const { rpc } = await start(t, { registry });
  const res = await rpc({ id: 1, method: 'getblockchaininfo' });
  assert.equal(res.status, 500);
  assert.deepEqual(json(res), { result: null, error: { code: -28, message: 'Loading block index…' }, id: 1 });
  assert.equal((json(await rpc({ id: 2, method: 'nosuchmethod' })) as { error: { code: number } }).error.code, -28);
  assert.deepEqual(json(await rpc({ id: 3, method: 'ping' })), { result: null, error: null, id: 3 });
  warmup.set('Verifying blocks…');
  assert.equal((json(await rpc({ id: 4, method: 'getblockchaininfo' })) as { error: { message: string } }).error.message, 'Verifying blocks…');
  warmup.finish();
  assert.deepEqual(json(await rpc({ id: 5, method: 'getblockchaininfo' })), { result: { chain: 'regtest', blocks: 0 }, error: null, id: 5 });
});

test('/wallet/<name> reaches the same methods with the path in the call context', async (t) => {
  const { port } = await start(t);
  const res = await httpRequest({ port, path: '/wallet/my%20wallet', headers: { authorization: AUTH }, body: '{"method":"whereami","id":1}' });
  assert.deepEqual(json(res), { result: '/wallet/my%20wallet', error: null, id: 1 });
});

test('GET routes added by other modules are served without auth, behind rpcallowip', async (t) => {
  const { port, server } = await start(t);
  server.addGetRoute(
    '/rest/',
    (_req, res, ctx) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ rest: ctx.path }));
    },
    { prefix: true },
  );
  server.addGetRoute('/rest/broken', () => {
    throw new Error('route failed');
  });
  const res = await httpRequest({ port, method: 'GET', path: '/rest/chaininfo.json?x=1' });
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.text), { rest: 'chaininfo.json' });
  const broken = await httpRequest({ port, method: 'GET', path: '/rest/broken' });
  assert.equal(broken.status, 500);
  assert.deepEqual(JSON.parse(broken.text), { error: 'Internal server error' });
  assert.throws(() => server.addGetRoute('/', () => {}), /added twice/);
});

test('/metrics exposes request counts, latency, statuses, rate-limit and auth failures', async (t) => {
  const clock = 0;
  const { port, rpc } = await start(t, { rateLimit: 3, now: () => clock });
  await rpc({ id: 1, method: 'add', params: [1] });
  await rpc({ id: 2, method: 'nosuchmethod' });
  await rpc({ id: 3, method: 'refuse' });
  await rpc({ id: 4, method: 'add', params: [1] });
  await httpRequest({ port, body: '{}' });
  const res = await httpRequest({ port, method: 'GET', path: '/metrics' });
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'text/plain; version=0.0.4; charset=utf-8');
  const text = res.text;
  assert.match(text, /^# TYPE csd_rpc_requests_total counter$/m);
  assert.match(text, /^csd_rpc_requests_total\{method="add",outcome="ok"\} 1$/m);
  assert.match(text, /^csd_rpc_requests_total\{method="\(unknown\)",outcome="error"\} 1$/m);
  assert.match(text, /^csd_rpc_requests_total\{method="refuse",outcome="error"\} 1$/m);
  assert.match(text, /^csd_rpc_request_duration_seconds_count\{method="add"\} 1$/m);
  assert.match(text, /^csd_rpc_request_duration_seconds_bucket\{method="add",le="\+Inf"\} 1$/m);
  assert.match(text, /^csd_rpc_errors_total\{code="-32601"\} 1$/m);
  assert.match(text, /^csd_http_responses_total\{code="200"\} 1$/m);
  assert.match(text, /^csd_http_responses_total\{code="404"\} 1$/m);
  assert.match(text, /^csd_http_responses_total\{code="429"\} 1$/m);
  assert.match(text, /^csd_http_responses_total\{code="401"\} 1$/m);
  assert.match(text, /^csd_rpc_rate_limited_total 1$/m);
  assert.match(text, /^csd_rpc_auth_failures_total 1$/m);
});

test('keep-alive: one connection carries many requests', async (t) => {
  const { port } = await start(t);
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const sockets = new Set<unknown>();
  for (let i = 0; i < 5; i++) {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', agent, headers: { authorization: AUTH } }, (res) => {
        sockets.add(res.socket);
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end('{"method":"touch"}');
    });
    assert.equal(status, 200);
  }
  assert.equal(sockets.size, 1);
});

test('close() lets a call in progress finish, closes keep-alive connections, then refuses new ones', async (t) => {
  const registry = new RpcRegistry();
  let release: () => void = () => {};
  let started: () => void = () => {};
  const running = new Promise<void>((resolve) => (started = resolve));
  registry.register({
    name: 'slow',
    category: 'Util',
    description: 'Waits until released.',
    params: [],
    result: '"done"',
    examples: [{ args: [] }],
    handler: async () => {
      started();
      await new Promise<void>((resolve) => (release = resolve));
      return 'done';
    },
  });
  const { server, port } = await start(t, { registry });
  const agent = new Agent({ keepAlive: true });
  t.after(() => agent.destroy());
  const post = (body: string) =>
    new Promise<TestResponse>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, method: 'POST', agent, headers: { authorization: AUTH } }, (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  // One keep-alive connection left idle, one busy with a call in progress.
  assert.equal((await post('{"method":"getblockchaininfo","id":0}')).headers.connection, 'keep-alive');
  const inFlight = post('{"method":"slow","id":1}');
  await running;
  assert.equal(registry.stopping.aborted, false);
  const closed = server.close();
  // Long calls (long polls, generate, rescans) watch this signal to end early.
  assert.equal(registry.stopping.aborted, true);
  release();
  const res = await inFlight;
  assert.equal(res.status, 200);
  assert.equal(res.headers.connection, 'close');
  assert.deepEqual(json(res), { result: 'done', error: null, id: 1 });
  await closed;
  await assert.rejects(httpRequest({ port, headers: { authorization: AUTH }, body: '{}' }), /ECONNREFUSED/);
});
