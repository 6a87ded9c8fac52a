import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { startProcess, startWorker } from './worker.ts';

test('a worker entry beside TypeScript sources runs through tsx, with its workerData and argv', async () => {
  const worker = startWorker(new URL('./fixtures/echo-worker.ts', import.meta.url).href, 'echo-worker', { workerData: 21, argv: ['x'] });
  const [message] = await once(worker, 'message');
  assert.deepEqual(message, { doubled: 42, argv: ['x'] });
  await worker.terminate();
});

test('a worker entry beside compiled JavaScript is started as it is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'worker-'));
  try {
    writeFileSync(join(dir, 'entry.js'), "import { parentPort, workerData } from 'node:worker_threads';\nparentPort.postMessage(workerData + 1);\n");
    const worker = startWorker(pathToFileURL(join(dir, 'starter.js')).href, 'entry', { workerData: 1 });
    const [message] = await once(worker, 'message');
    assert.equal(message, 2);
    await worker.terminate();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a process entry beside TypeScript sources runs through tsx, with its arguments and an IPC channel', async () => {
  const child = startProcess(new URL('./fixtures/echo-process.ts', import.meta.url).href, 'echo-process', ['x']);
  child.send(21);
  const [message] = await once(child, 'message');
  assert.deepEqual(message, { doubled: 42, argv: ['x'] });
  const [code] = await once(child, 'exit');
  assert.equal(code, 0);
});

test('a process entry beside compiled JavaScript is started as it is', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'process-'));
  try {
    writeFileSync(join(dir, 'entry.js'), "process.once('message', (m) => process.send(m + 1, () => process.disconnect()));\n");
    const child = startProcess(pathToFileURL(join(dir, 'starter.js')).href, 'entry', [], { execArgv: [] });
    child.send(1);
    const [message] = await once(child, 'message');
    assert.equal(message, 2);
    await once(child, 'exit');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
