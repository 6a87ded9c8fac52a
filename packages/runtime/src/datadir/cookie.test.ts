import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { COOKIE_USER, readCookie, removeCookie, writeCookie } from './cookie.ts';

const root = mkdtempSync(join(tmpdir(), 'cs-cookie-'));
after(() => rmSync(root, { recursive: true, force: true }));

test('the cookie is __cookie__:<64 hex digits>, owner-only, fresh on every start', async () => {
  const path = join(root, '.cookie');
  const first = await writeCookie(path);
  assert.equal(first.user, COOKIE_USER);
  assert.match(first.password, /^[0-9a-f]{64}$/);
  assert.equal(readFileSync(path, 'utf8'), `__cookie__:${first.password}`);
  assert.equal(statSync(path).mode & 0o777, 0o600);
  assert.equal(existsSync(`${path}.tmp`), false);
  const second = await writeCookie(path);
  assert.notEqual(second.password, first.password);
  assert.deepEqual(await readCookie(path), second);
});

test('a leftover temporary file with loose permissions does not leak into the cookie', async () => {
  const path = join(root, 'leftover');
  writeFileSync(`${path}.tmp`, 'stale');
  chmodSync(`${path}.tmp`, 0o666);
  await writeCookie(path);
  assert.equal(statSync(path).mode & 0o777, 0o600);
});

test('removing the cookie on shutdown; reading a missing or malformed cookie gives null', async () => {
  const path = join(root, 'gone');
  await writeCookie(path);
  await removeCookie(path);
  assert.equal(existsSync(path), false);
  await removeCookie(path);
  assert.equal(await readCookie(path), null);
  writeFileSync(path, 'no colon here');
  assert.equal(await readCookie(path), null);
  writeFileSync(path, 'user:pass:with:colons\nignored');
  assert.deepEqual(await readCookie(path), { user: 'user', password: 'pass:with:colons' });
});
