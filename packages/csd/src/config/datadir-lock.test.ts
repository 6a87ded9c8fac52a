import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DataDirLockedError, lockDataDir } from '@cs/runtime/datadir';

const root = mkdtempSync(join(tmpdir(), 'cs-lock-'));
const repo = fileURLToPath(new URL('../../../../', import.meta.url));
const holder = fileURLToPath(new URL('./fixtures/hold-lock.ts', import.meta.url));
const children = new Set<ChildProcess>();
after(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
});

/** Starts the fixture, which starts up like csd: loadConfig, create the data directory, lock. */
function startNode(...args: string[]): ChildProcess {
  const child = spawn(process.execPath, ['--conditions=@cs/source', '--import', 'tsx', holder, ...args], {
    cwd: repo,
    env: { ...process.env, HOME: root },
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Resolves once the child prints "locked" (it holds the lock), rejects if it exits first. */
function locked(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('locked\n')) resolve();
    });
    child.stderr?.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('exit', (code) => reject(new Error(`exited ${code} before locking: ${err}`)));
  });
}

async function outcome(child: ChildProcess): Promise<{ code: number | null; stderr: string }> {
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stderr };
}

test('a second lock on the same directory fails while the first is held, also through a symlink', async () => {
  const dir = join(root, 'in-process');
  mkdirSync(dir);
  symlinkSync(dir, join(root, 'link'));
  const lock = await lockDataDir(dir);
  await assert.rejects(lockDataDir(dir), {
    name: 'DataDirLockedError',
    message: `Cannot obtain a lock on data directory ${dir}. csd is probably already running.`,
  });
  await assert.rejects(lockDataDir(join(root, 'link')), DataDirLockedError);
  const other = join(root, 'other');
  mkdirSync(other);
  const otherLock = await lockDataDir(other);
  await lock.release();
  await lock.release();
  const again = await lockDataDir(dir);
  await again.release();
  await otherLock.release();
});

test('another program name is another lock on the same directory', async () => {
  const dir = join(root, 'programs');
  mkdirSync(dir);
  const node = await lockDataDir(dir);
  const bridge = await lockDataDir(dir, 'cs-bridge');
  await assert.rejects(lockDataDir(dir, 'cs-bridge'), {
    message: `Cannot obtain a lock on data directory ${dir}. cs-bridge is probably already running.`,
  });
  await bridge.release();
  await node.release();
});

test('a second csd process on the same network directory exits with the lock message and leaves the first running', async () => {
  const dataDir = join(root, 'processes');
  const first = startNode(`-datadir=${dataDir}`, '-regtest');
  await locked(first);

  const second = await outcome(startNode(`-datadir=${dataDir}`, '-regtest'));
  assert.equal(second.code, 1);
  assert.equal(second.stderr, `Error: Cannot obtain a lock on data directory ${join(dataDir, 'regtest')}. csd is probably already running.\n`);
  assert.equal(first.exitCode, null, 'the first one is still running');
  await assert.rejects(lockDataDir(join(dataDir, 'regtest')), DataDirLockedError, 'and still holds its lock');

  // Another network's folder is another lock.
  const testnet = startNode(`-datadir=${dataDir}`, '-testnet');
  await locked(testnet);
  testnet.kill('SIGTERM');

  // kill -9 leaves nothing behind: the kernel frees the socket name with the process.
  first.kill('SIGKILL');
  await once(first, 'exit');
  const restarted = startNode(`-datadir=${dataDir}`, '-regtest');
  await locked(restarted);
  restarted.kill('SIGKILL');
  await once(restarted, 'exit');
});
