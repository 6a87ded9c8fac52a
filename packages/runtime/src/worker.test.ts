import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { startWorker } from './worker.ts';

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
