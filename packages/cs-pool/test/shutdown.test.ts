// cs-pool's shutdown against miners that do not cooperate: a process that cannot exit because one
// connection never closes is a pool that cannot be restarted or upgraded.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import type { Daemon } from '../../csd/test/daemon.ts';
import { PoolProcess, startNode } from './pool-harness.ts';

let node: Daemon;
let pool: PoolProcess;
let address: string;

before(async () => {
  const started = await startNode();
  node = started.node;
  address = await node.call<string>('getnewaddress');
  await node.call('generatetoaddress', 1, address);
  pool = new PoolProcess(node, started.zmq);
  await pool.start();
});

after(async () => {
  await pool?.cleanup();
  await node?.cleanup();
});

test('SIGTERM: a miner that never hangs up after client.reconnect is cut off and the pool exits', { timeout: 60_000 }, async () => {
  // Half-open allowed: this miner keeps its side open after the pool ends the connection.
  const stubborn = connect({ port: pool.ports!.plain, host: '127.0.0.1', allowHalfOpen: true });
  await once(stubborn, 'connect');
  const received: Buffer[] = [];
  stubborn.on('data', (d: Buffer) => received.push(d));
  const ended = once(stubborn, 'end');
  // Logged in, so the login timeout does not drop it first.
  stubborn.write(`{"id":1,"method":"mining.subscribe","params":[]}\n{"id":2,"method":"mining.authorize","params":["${address}.stubborn","x"]}\n`);
  await new Promise<void>((resolve) => {
    const check = () => (/"id":2,"result":true/.test(Buffer.concat(received).toString()) ? resolve() : stubborn.once('data', check));
    stubborn.once('data', check);
  });
  assert.equal(await pool.stop('SIGTERM'), 0, 'the pool exits cleanly');
  // The pool's end of the connection arrived; the miner's side was never closed, yet the pool exited.
  await ended;
  assert.match(Buffer.concat(received).toString(), /"method":"client\.reconnect"/, 'the miner was told to reconnect first');
  stubborn.destroy();
});
