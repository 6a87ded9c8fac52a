import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Transaction, TxOut } from '@cs/consensus';
import { runScriptChecks, type ScriptCheckItem, type ScriptFailure } from './script-check.ts';

export interface WorkerJob {
  readonly id: number;
  readonly flags: number;
  readonly items: readonly (Omit<ScriptCheckItem, 'tx'> & { readonly tx: Uint8Array })[];
}

export interface WorkerResult {
  readonly id: number;
  readonly failure: ScriptFailure | null;
  readonly crash?: string;
}

/** Below this many inputs in a block, message passing costs more than the parallelism gains. */
const PARALLEL_MIN_INPUTS = 64;
/** Inputs per batch: small enough to balance the threads, large enough to amortize a message. */
const BATCH_INPUTS = 125;

/**
 * Batches a worker may hold at once. Two: the worker starts the second as soon as it finishes
 * the first, without waiting for the calling thread (busy verifying a batch of its own) to
 * notice the result and send more.
 */
const WORKER_DEPTH = 2;

interface Slot {
  readonly worker: Worker;
  /** The session whose batches the worker is running, and how many. */
  session: ScriptCheckSession | null;
  inFlight: number;
}

/**
 * Verifies the scripts of a block's transactions on several threads (Core's -par and check
 * queue): `threads - 1` workers plus the calling thread, which takes batches itself once it has
 * finished looking up the block's inputs. Batches are handed out as threads become free, so
 * a slow thread never holds up the others.
 */
export class ScriptVerifier {
  private readonly slots: Slot[] = [];
  private readonly pending = new Map<number, (r: WorkerResult) => void>();
  private nextId = 1;

  /** `threads` 0 means one per core; 1 verifies on the calling thread only. */
  constructor(threads: number) {
    const n = threads <= 0 ? availableParallelism() : threads;
    for (let i = 1; i < n; i++) {
      const worker = new Worker(new URL('./script-worker.js', import.meta.url));
      const slot: Slot = { worker, session: null, inFlight: 0 };
      worker.on('message', (r: WorkerResult) => {
        const resolve = this.pending.get(r.id);
        this.pending.delete(r.id);
        const session = slot.session;
        if (--slot.inFlight === 0) slot.session = null;
        resolve?.(r);
        session?.workerFree(slot);
      });
      worker.on('error', (e) => {
        for (const resolve of this.pending.values()) resolve({ id: 0, failure: null, crash: e.message });
        this.pending.clear();
      });
      this.slots.push(slot);
    }
  }

  get threads(): number {
    return this.slots.length + 1;
  }

  /** A batch of checks for one block under one set of flags. */
  session(flags: number, expectedInputs: number): ScriptCheckSession {
    return new ScriptCheckSession(this, flags, this.slots.length > 0 && expectedInputs >= PARALLEL_MIN_INPUTS);
  }

  /** Workers with room for another batch of `session`. */
  freeSlots(session: ScriptCheckSession): Slot[] {
    return this.slots.filter((s) => s.inFlight < WORKER_DEPTH && (s.session === null || s.session === session));
  }

  run(slot: Slot, session: ScriptCheckSession, flags: number, items: readonly ScriptCheckItem[]): Promise<WorkerResult> {
    slot.session = session;
    slot.inFlight++;
    const job: WorkerJob = { id: this.nextId++, flags, items: items.map((it) => ({ ...it, tx: it.tx.encode() })) };
    return new Promise((resolve) => {
      this.pending.set(job.id, resolve);
      slot.worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.slots.map((s) => s.worker.terminate()));
    this.slots.length = 0;
  }
}

export class ScriptCheckSession {
  private batch: ScriptCheckItem[] = [];
  private batchInputs = 0;
  /** Batches waiting for a thread. */
  private readonly queue: ScriptCheckItem[][] = [];
  private readonly running: Promise<WorkerResult>[] = [];
  private readonly failures: ScriptFailure[] = [];

  constructor(
    private readonly verifier: ScriptVerifier,
    private readonly flags: number,
    private readonly parallel: boolean,
  ) {}

  /** Queues the inputs of one transaction; spent[i] is the output its input i spends. */
  add(tx: Transaction, txIndex: number, spent: readonly TxOut[]): void {
    if (tx.isCoinbase()) return;
    if (!this.parallel) {
      this.batch.push({ tx, txIndex, spent, start: 0, end: tx.inputs.length });
      return;
    }
    // Large transactions are cut into batch-sized input ranges.
    for (let start = 0; start < tx.inputs.length; ) {
      const end = Math.min(tx.inputs.length, start + (BATCH_INPUTS - this.batchInputs));
      this.batch.push({ tx, txIndex, spent: spent.slice(start, end), start, end });
      this.batchInputs += end - start;
      start = end;
      if (this.batchInputs >= BATCH_INPUTS) this.seal();
    }
  }

  private seal(): void {
    if (this.batch.length === 0) return;
    this.queue.push(this.batch);
    this.batch = [];
    this.batchInputs = 0;
    for (const slot of this.verifier.freeSlots(this)) this.workerFree(slot);
  }

  /** Tops up a worker with waiting batches. */
  workerFree(slot: Parameters<ScriptVerifier['run']>[0]): void {
    while (slot.inFlight < WORKER_DEPTH) {
      const next = this.queue.shift();
      if (!next) return;
      this.running.push(this.verifier.run(slot, this, this.flags, next));
    }
  }

  /** Resolves to the first failure (in block order), or null when every script passed. */
  async finish(): Promise<ScriptFailure | null> {
    if (!this.parallel) return runScriptChecks(this.batch, this.flags);
    this.seal();
    // The calling thread works through the queue too, letting worker results (which hand out
    // the next batches) through between its own batches.
    for (let next = this.queue.shift(); next; next = this.queue.shift()) {
      const f = runScriptChecks(next, this.flags);
      if (f) this.failures.push(f);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const results = await Promise.all(this.running);
    for (const r of results) {
      if (r.crash) throw new Error(`script verification worker failed: ${r.crash}`);
      if (r.failure) this.failures.push(r.failure);
    }
    if (this.failures.length === 0) return null;
    return this.failures.reduce((a, b) => (b.txIndex < a.txIndex || (b.txIndex === a.txIndex && b.input < a.input) ? b : a));
  }
}
