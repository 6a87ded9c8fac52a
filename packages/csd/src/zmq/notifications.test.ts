import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadConfig } from '../config/node-config.ts';
import { zmqNotifications } from './notifications.ts';

test("notifiers come topic by topic in Core's order then opoi, endpoints as given, each with its topic's hwm", () => {
  const config = loadConfig([
    '-regtest',
    '-noconf',
    '-zmqpubopoi=tcp://127.0.0.1:4',
    '-zmqpubopoihwm=7',
    '-zmqpubsequence=tcp://127.0.0.1:3',
    '-zmqpubrawtx=tcp://127.0.0.1:2',
    '-zmqpubrawtx=tcp://127.0.0.1:1',
    '-zmqpubhashblock=tcp://127.0.0.1:1',
    '-zmqpubrawtxhwm=5',
  ]);
  assert.deepEqual(zmqNotifications(config.options), [
    { topic: 'hashblock', address: 'tcp://127.0.0.1:1', hwm: 1000 },
    { topic: 'rawtx', address: 'tcp://127.0.0.1:2', hwm: 5 },
    { topic: 'rawtx', address: 'tcp://127.0.0.1:1', hwm: 5 },
    { topic: 'sequence', address: 'tcp://127.0.0.1:3', hwm: 1000 },
    { topic: 'opoi', address: 'tcp://127.0.0.1:4', hwm: 7 },
  ]);
  assert.deepEqual(zmqNotifications(loadConfig(['-regtest', '-noconf']).options), []);
});
