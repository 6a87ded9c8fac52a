import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Log } from './log.ts';

test('text lines for people, JSON objects for machines, below -loglevel dropped', () => {
  const lines: string[] = [];
  const text = new Log(false, 'info', (l) => lines.push(l));
  text.log('info', 'connected and authorized', { pool: 'stratum+tcp://h:1', reason: 'two words' });
  text.log('debug', 'share accepted');
  text.status({ hashrate: 1.5 }, '1.50 Sol/s');
  assert.equal(lines.length, 2);
  assert.match(lines[0], /^\S+Z info {2}connected and authorized pool=stratum\+tcp:\/\/h:1 reason="two words"\n$/);
  assert.match(lines[1], /^\S+Z 1\.50 Sol\/s\n$/);

  const json: string[] = [];
  const machine = new Log(true, 'debug', (l) => json.push(l));
  machine.log('debug', 'share accepted', { job: '1' });
  machine.status({ hashrate: 1.5, accepted: 2 }, 'ignored in JSON');
  const [event, status] = json.map((l) => JSON.parse(l));
  assert.deepEqual({ ...event, time: 0 }, { time: 0, level: 'debug', msg: 'share accepted', job: '1' });
  assert.deepEqual({ ...status, time: 0 }, { time: 0, level: 'info', msg: 'status', hashrate: 1.5, accepted: 2 });
});
