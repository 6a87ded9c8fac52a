/** The coins writer thread's loop: each batch in one LMDB transaction, answered before the state word changes. */
import { type MessagePort, workerData } from 'node:worker_threads';
import { ChainDatabase, type ChainstateRole } from '../storage/database.ts';
import { unpackChanges, writeChanges } from './coins-cache.ts';
import { IDLE, type WriterReply, type WriterRequest } from './coins-writer-protocol.ts';

const { path, role, state, port } = workerData as { path: string; role: ChainstateRole; state: Int32Array; port: MessagePort };
let db: ChainDatabase | null = null;

port.on('message', async (m: WriterRequest) => {
  if (m.kind === 'close') {
    port.close();
    await db?.close();
    return;
  }
  let reply: WriterReply = { error: null };
  try {
    const changes = unpackChanges(m.changes);
    const target = (db ??= ChainDatabase.attach(path, role));
    target.write(() => {
      writeChanges(target.tables.coins, changes);
      target.putMeta(m.meta.key, Buffer.from(m.meta.value));
    });
  } catch (e) {
    reply = { error: e instanceof Error ? e.message : String(e) };
  }
  // The reply first: the main thread takes it as soon as the state word changes.
  port.postMessage(reply);
  Atomics.store(state, 0, IDLE);
  Atomics.notify(state, 0);
});
