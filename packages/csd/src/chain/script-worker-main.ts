import { parentPort } from 'node:worker_threads';
import { Transaction } from '@cs/consensus';
import { runScriptChecks } from './script-check.ts';
import type { WorkerJob, WorkerResult } from './script-verifier.ts';

if (!parentPort) throw new Error('script-worker-main must run in a worker thread');
const port = parentPort;

port.on('message', (job: WorkerJob) => {
  let result: WorkerResult;
  try {
    const items = job.items.map((it) => ({ ...it, tx: Transaction.decode(it.tx) }));
    result = { id: job.id, failure: runScriptChecks(items, job.flags) };
  } catch (e) {
    result = { id: job.id, failure: null, crash: e instanceof Error ? e.message : String(e) };
  }
  port.postMessage(result);
});
