import { test } from 'node:test';
import assert from 'node:assert/strict';
import { silentLogger } from '../logger.ts';
import { RpcRegistry } from '../registry.ts';
import { RpcHttpServer } from '../server.ts';
import { basicAuth, httpRequest } from '../test-client.ts';
import { Warmup } from '../warmup.ts';
import { registerControlMethods } from './control.ts';

const ctx = { uri: '/', peer: '127.0.0.1' };

function controlRegistry(options: { shutdown?: () => void; now?: () => number; warmup?: Warmup } = {}): RpcRegistry {
  const registry = new RpcRegistry(options.warmup);
  registerControlMethods(registry, { shutdown: options.shutdown ?? (() => {}), startedAt: 1_000_000, now: options.now ?? (() => 1_000_000) });
  return registry;
}

test('help lists the Control category; help <command> and unknown commands as Core', async () => {
  const registry = controlRegistry();
  assert.equal(await registry.call('help', [], ctx), '== Control ==\ngetrpcinfo\nhelp ( "command" )\nstop\nuptime');
  const stop = (await registry.call('help', ['stop'], ctx)) as string;
  assert.match(stop, /^stop\n\nRequest a graceful shutdown of csd\.\n\nResult:\n/);
  assert.match(stop, /\n> cs-cli stop\n> curl .*"method": "stop".*http:\/\/127\.0\.0\.1:16180\/$/);
  assert.equal(await registry.call('help', ['nosuch'], ctx), 'help: unknown command: nosuch');
  assert.equal(await registry.call('help', { command: 'uptime' }, ctx), registry.help('uptime'));
});

test('uptime counts whole seconds since start', async () => {
  let now = 1_000_000;
  const registry = controlRegistry({ now: () => now });
  assert.equal(await registry.call('uptime', [], ctx), 0);
  now += 61_999;
  assert.equal(await registry.call('uptime', [], ctx), 61);
});

test('getrpcinfo lists itself among the active commands', async () => {
  const info = (await controlRegistry().call('getrpcinfo', [], ctx)) as { active_commands: { method: string; duration: number }[] };
  assert.equal(info.active_commands.length, 1);
  assert.equal(info.active_commands[0].method, 'getrpcinfo');
  assert.ok(info.active_commands[0].duration >= 0);
});

test('control methods answer during warmup', async () => {
  const registry = controlRegistry({ warmup: new Warmup('Loading block index…') });
  for (const name of ['help', 'uptime', 'getrpcinfo']) await registry.call(name, [], ctx);
});

test('stop replies "csd stopping" over HTTP, then starts the shutdown', async (t) => {
  let stopped = 0;
  const server = new RpcHttpServer({
    registry: controlRegistry({ shutdown: () => stopped++ }),
    credentials: [{ user: 'u', password: 'p' }],
    logger: silentLogger,
  });
  const { port } = await server.listen(0);
  t.after(() => server.close());
  const res = await httpRequest({
    port,
    headers: { authorization: basicAuth('u', 'p') },
    body: '{"jsonrpc":"1.0","id":"s","method":"stop","params":[]}',
  });
  assert.equal(res.status, 200);
  assert.deepEqual(JSON.parse(res.text), { result: 'csd stopping', error: null, id: 's' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(stopped, 1);
});
