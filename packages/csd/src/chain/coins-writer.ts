import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads';
import { startWorker } from '@cs/runtime/worker';
import type { ChainstateRole } from '../storage/database.ts';
import type { CoinTable } from './coin-table.ts';
import { packChanges } from './coins-cache.ts';
import { IDLE, WRITING, type WriterReply, type WriterRequest } from './coins-writer-protocol.ts';

export interface WriteOutcome {
  readonly coins: number;
  /** The height of the block the batch reflects. */
  readonly height: number;
  readonly ms: number;
  readonly error: string | null;
}

/**
 * Writes a batch of cached coin changes, with the meta record saying which block they reflect, in
 * one transaction on a thread of its own, so that the connecting thread goes on while a large
 * batch (a million coins take seconds) is written. One batch at a time: `settle` waits for the one
 * in flight, synchronously, so that a write on this thread never lands before (and is then
 * overwritten by) an older batch. The thread starts with the first batch.
 */
export class CoinsWriter {
  private worker: Worker | null = null;
  private port: MessagePort | null = null;
  private readonly state = new Int32Array(new SharedArrayBuffer(4));
  private inFlight: { coins: number; height: number; started: number } | null = null;

  constructor(
    private readonly path: string,
    private readonly done: (outcome: WriteOutcome) => void,
    private readonly role: ChainstateRole = 'active',
  ) {}

  /** Writes `changes` with the meta record `meta`, which says they reflect the block at `height`. */
  start(changes: CoinTable, meta: { key: string; value: Uint8Array }, height: number): void {
    this.settle();
    const port = this.port ?? this.spawn();
    const packed = packChanges(changes);
    Atomics.store(this.state, 0, WRITING);
    this.inFlight = { coins: changes.size, height, started: performance.now() };
    port.ref();
    const request: WriterRequest = { kind: 'write', changes: packed, meta };
    port.postMessage(request, [packed.bytes.buffer as ArrayBuffer, packed.lengths.buffer as ArrayBuffer]);
  }

  /** Waits for the batch in flight, if any, and reports its outcome. */
  settle(): void {
    if (!this.inFlight) return;
    Atomics.wait(this.state, 0, WRITING);
    // The reply is posted before the state word changes, so it is there to take.
    const reply = receiveMessageOnPort(this.port!)?.message as WriterReply | undefined;
    this.finish(reply ?? { error: 'the coins writer thread ended without an answer' });
  }

  /** Settles the batch in flight and ends the thread. */
  async close(): Promise<void> {
    this.settle();
    const worker = this.worker;
    if (!worker) return;
    this.worker = null;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.ref();
    const request: WriterRequest = { kind: 'close' };
    this.port!.postMessage(request);
    await exited;
    this.port!.close();
    this.port = null;
  }

  private spawn(): MessagePort {
    const { port1, port2 } = new MessageChannel();
    const worker = startWorker(import.meta.url, 'coins-writer-main', {
      workerData: { path: this.path, role: this.role, state: this.state, port: port2 },
      transferList: [port2],
    });
    worker.unref();
    // A thread that dies without answering fails its batch; the next batch starts a new thread.
    worker.on('error', () => this.abandon(worker));
    worker.on('exit', () => this.abandon(worker));
    port1.on('message', (reply: WriterReply) => this.finish(reply));
    port1.unref();
    this.worker = worker;
    this.port = port1;
    return port1;
  }

  private abandon(worker: Worker): void {
    if (this.worker !== worker) return;
    this.worker = null;
    this.port?.close();
    this.port = null;
    if (this.inFlight) this.finish({ error: 'the coins writer thread ended without an answer' });
  }

  private finish(reply: WriterReply): void {
    const flight = this.inFlight;
    if (!flight) return;
    this.inFlight = null;
    Atomics.store(this.state, 0, IDLE);
    this.port?.unref();
    this.done({ coins: flight.coins, height: flight.height, ms: Math.round(performance.now() - flight.started), error: reply.error });
  }
}
