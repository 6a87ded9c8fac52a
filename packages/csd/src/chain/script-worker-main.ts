import { parentPort } from 'node:worker_threads';
import { WorkerSession, type WorkerMessage, type WorkerReply } from './script-work.ts';

if (!parentPort) throw new Error('script-worker-main must run in a worker thread');
const port = parentPort;
const reply = (r: WorkerReply) => port.postMessage(r);

// Sessions in the order they began: a block's outputs all arrive before the next block's begin, so
// a session has run out of inputs to claim by the time the worker reads the next one's messages.
const sessions = new Map<number, WorkerSession>();
const finished = (r: WorkerReply) => {
  sessions.delete(r.session);
  reply(r);
};

port.on('message', (m: WorkerMessage) => {
  try {
    if (m.kind === 'begin') {
      const session = new WorkerSession(m, finished);
      sessions.set(m.session, session);
      session.start();
      return;
    }
    const session = sessions.get(m.session);
    if (!session) return;
    if (m.kind === 'spent') session.receive(m.spent);
    else session.finish(null);
  } catch (e) {
    reply({ session: m.session, failure: null, crash: e instanceof Error ? e.message : String(e) });
  }
});
