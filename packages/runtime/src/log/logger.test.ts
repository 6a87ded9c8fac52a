import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatConsoleLine } from './console.ts';
import { text } from '../config/spec.ts';
import { openLogger } from './logger.ts';
import { redactPaths } from './redact.ts';

/** A program's table as the logger sees it: rpcpassword is marked sensitive, as in csd's and cs-cli's. */
const redact = redactPaths([{ rpcpassword: text({ category: 'rpc', description: 'RPC password', default: null, sensitive: true }) }]);

const root = mkdtempSync(join(tmpdir(), 'cs-log-'));
after(() => rmSync(root, { recursive: true, force: true }));

function lines(path: string): Record<string, unknown>[] {
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

test('debug.log gets JSON lines at or above the level, appended, owner-only', () => {
  const file = join(root, 'debug.log');
  writeFileSync(file, '{"level":"info","msg":"from before"}\n');
  chmodSync(file, 0o644);
  const { logger, close } = openLogger({ file, level: 'info', console: false, redact });
  logger.debug('hidden');
  logger.info({ height: 12 }, 'connected block');
  logger.error('broken');
  close();
  const entries = lines(file);
  assert.deepEqual(
    entries.map((e) => e.msg),
    ['from before', 'connected block', 'broken'],
  );
  assert.equal(entries[1].level, 'info');
  assert.equal(entries[1].height, 12);
  assert.equal(entries[1].pid, process.pid);
  assert.match(String(entries[1].time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.equal(statSync(file).mode & 0o777, 0o600);
});

test('secrets are redacted by key, at any of the first levels of nesting', () => {
  const file = join(root, 'secrets.log');
  const { logger, close } = openLogger({ file, level: 'trace', console: false, redact });
  logger.info({ rpcpassword: 'hunter2', options: { rpcpassword: 'hunter2', rpcuser: 'alice' } }, 'config');
  logger.info({ req: { headers: { authorization: 'Basic c2VjcmV0' } }, cookie: '__cookie__:abc' }, 'request');
  logger.trace({ user: { password: 'pw' } }, 'login');
  close();
  const text = readFileSync(file, 'utf8');
  for (const secret of ['hunter2', 'c2VjcmV0', '__cookie__:abc', '"pw"']) assert.ok(!text.includes(secret), secret);
  const [config, request] = lines(file);
  assert.deepEqual(config.options, { rpcpassword: '[redacted]', rpcuser: 'alice' });
  assert.deepEqual(request.req, { headers: { authorization: '[redacted]' } });
});

test('-printtoconsole adds one readable line per entry, without the secrets either', () => {
  const written: string[] = [];
  const file = join(root, 'console.log');
  const { logger, close } = openLogger({ file, level: 'warn', console: true, stdout: { write: (t: string) => written.push(t) }, redact });
  logger.info('not at this level');
  logger.warn({ peer: '1.2.3.4', password: 'pw' }, 'misbehaving');
  close();
  assert.equal(written.length, 1);
  assert.match(written[0], /^\d{4}-\d\d-\d\dT[\d:.]+Z WARN {2}misbehaving \{"peer":"1\.2\.3\.4","password":"\[redacted\]"\}\n$/);
  assert.equal(lines(file).length, 1);
});

test('console lines: message only when there are no fields', () => {
  assert.equal(formatConsoleLine('{"level":"info","time":"T","pid":1,"msg":"hello"}\n'), 'T INFO  hello\n');
  assert.equal(formatConsoleLine('not json'), 'not json\n');
});
