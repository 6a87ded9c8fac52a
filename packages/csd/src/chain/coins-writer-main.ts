/**
 * The coins writer thread's entry. Its loop is imported, not started statically, so that a thread
 * whose modules fail to load (LMDB's native binding, say) still answers: the connecting thread may
 * be blocked in Atomics.wait for a reply, and a thread that only died would leave it there.
 */
import { type MessagePort, workerData } from 'node:worker_threads';
import { IDLE } from './coins-writer-protocol.ts';

try {
  await import('./coins-writer-thread.ts');
} catch (e) {
  const { state, port } = workerData as { state: Int32Array; port: MessagePort };
  const error = `the coins writer thread did not start: ${e instanceof Error ? e.message : String(e)}`;
  port.on('message', (m: { kind: string }) => {
    if (m.kind === 'close') return port.close();
    port.postMessage({ error });
    Atomics.store(state, 0, IDLE);
    Atomics.notify(state, 0);
  });
}
