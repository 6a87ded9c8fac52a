import { parentPort } from 'node:worker_threads';
import { WorkerSession, type WorkerMessage, type WorkerReply } from './script-work.ts';

if (!parentPort) throw new Error('script-worker-main must run in a worker thread');
const port = parentPort;
const reply = (r: WorkerReply) => port.postMessage(r);

// One block at a time: the calling thread waits for every worker's reply before the next begins.
let session: WorkerSession | null = null;

port.on('message', (m: WorkerMessage) => {
  try {
    if (m.kind === 'begin') {
      session = new WorkerSession(m, reply);
      return;
    }
    if (session?.id !== m.session) return;
    if (m.kind === 'spent') session.receive(m.spent);
    else session.finish(null);
  } catch (e) {
    reply({ session: m.session, failure: null, crash: e instanceof Error ? e.message : String(e) });
  }
});
