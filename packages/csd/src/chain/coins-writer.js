// Worker-thread entry for the coins writer. Plain JavaScript so that it can register the
// TypeScript loader before importing the writer: workers do not inherit the main thread's.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

try {
  register();
  await import('./coins-writer-main.ts');
} catch (e) {
  // The main thread may be blocked waiting for an answer: every request gets this failure.
  const { state, port } = workerData;
  const error = `the coins writer thread did not start: ${e instanceof Error ? e.message : String(e)}`;
  port.on('message', (m) => {
    if (m.kind === 'close') return port.close();
    port.postMessage({ error });
    Atomics.store(state, 0, 0);
    Atomics.notify(state, 0);
  });
}
