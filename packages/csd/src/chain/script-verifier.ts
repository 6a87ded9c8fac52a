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
/** Inputs per job: small enough to keep every worker busy, large enough to amortize a message. */
const JOB_INPUTS = 250;

/**
 * Verifies the scripts of a block's transactions on worker threads (Core's -par and its check
 * queue). Checks are queued while the block's inputs are still being looked up, so the serial
 * UTXO work overlaps with signature verification.
 */
export class ScriptVerifier {
  private readonly workers: { worker: Worker; busy: number }[] = [];
  private readonly pending = new Map<number, (r: WorkerResult) => void>();
  private nextId = 1;

  /** `threads` 0 means one per core; 1 verifies on the calling thread only. */
  constructor(threads: number) {
    const n = threads <= 0 ? availableParallelism() : threads;
    if (n <= 1) return;
    for (let i = 0; i < n; i++) {
      const worker = new Worker(new URL('./script-worker.js', import.meta.url));
      const slot = { worker, busy: 0 };
      worker.on('message', (r: WorkerResult) => {
        slot.busy--;
        const resolve = this.pending.get(r.id);
        this.pending.delete(r.id);
        resolve?.(r);
      });
      worker.on('error', (e) => {
        for (const resolve of this.pending.values()) resolve({ id: 0, failure: null, crash: e.message });
        this.pending.clear();
      });
      this.workers.push(slot);
    }
  }

  get threads(): number {
    return Math.max(1, this.workers.length);
  }

  /** A batch of checks for one block under one set of flags. */
  session(flags: number, expectedInputs: number): ScriptCheckSession {
    return new ScriptCheckSession(this, flags, this.workers.length > 0 && expectedInputs >= PARALLEL_MIN_INPUTS);
  }

  /** Hands a job to the least busy worker. */
  dispatch(flags: number, items: readonly ScriptCheckItem[]): Promise<WorkerResult> {
    const slot = this.workers.reduce((a, b) => (b.busy < a.busy ? b : a));
    slot.busy++;
    const job: WorkerJob = { id: this.nextId++, flags, items: items.map((it) => ({ ...it, tx: it.tx.encode() })) };
    return new Promise((resolve) => {
      this.pending.set(job.id, resolve);
      slot.worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.worker.terminate()));
    this.workers.length = 0;
  }
}

export class ScriptCheckSession {
  private batch: ScriptCheckItem[] = [];
  private batchInputs = 0;
  private readonly jobs: Promise<WorkerResult>[] = [];
  private readonly inline: ScriptCheckItem[] = [];

  constructor(
    private readonly verifier: ScriptVerifier,
    private readonly flags: number,
    private readonly parallel: boolean,
  ) {}

  /** Queues the inputs of one transaction; spent[i] is the output its input i spends. */
  add(tx: Transaction, txIndex: number, spent: readonly TxOut[]): void {
    if (tx.isCoinbase()) return;
    if (!this.parallel) {
      this.inline.push({ tx, txIndex, spent, start: 0, end: tx.inputs.length });
      return;
    }
    // Large transactions are cut into job-sized input ranges.
    for (let start = 0; start < tx.inputs.length; ) {
      const end = Math.min(tx.inputs.length, start + (JOB_INPUTS - this.batchInputs));
      this.batch.push({ tx, txIndex, spent: spent.slice(start, end), start, end });
      this.batchInputs += end - start;
      start = end;
      if (this.batchInputs >= JOB_INPUTS) this.flush();
    }
  }

  private flush(): void {
    if (this.batch.length === 0) return;
    this.jobs.push(this.verifier.dispatch(this.flags, this.batch));
    this.batch = [];
    this.batchInputs = 0;
  }

  /** Resolves to the first failure (in block order), or null when every script passed. */
  async finish(): Promise<ScriptFailure | null> {
    if (!this.parallel) return runScriptChecks(this.inline, this.flags);
    this.flush();
    const results = await Promise.all(this.jobs);
    for (const r of results) {
      if (r.crash) throw new Error(`script verification worker failed: ${r.crash}`);
    }
    return results.map((r) => r.failure).find((f) => f !== null) ?? null;
  }
}
