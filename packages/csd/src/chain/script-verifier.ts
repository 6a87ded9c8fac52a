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

/** Below this many inputs the message passing costs more than the parallelism gains. */
const PARALLEL_MIN_INPUTS = 64;

/**
 * Verifies the scripts of a block's transactions, spread over worker threads (Core's -par).
 * Inputs are split into one contiguous range per worker, so a single transaction with thousands
 * of inputs is shared out as well as many small ones.
 */
export class ScriptVerifier {
  private readonly workers: Worker[] = [];
  private readonly pending = new Map<number, (r: WorkerResult) => void>();
  private nextId = 1;

  /** `threads` 0 means one per core; 1 verifies on the calling thread only. */
  constructor(threads: number) {
    const n = threads <= 0 ? availableParallelism() : threads;
    if (n <= 1) return;
    for (let i = 0; i < n; i++) {
      const w = new Worker(new URL('./script-worker.js', import.meta.url));
      w.on('message', (r: WorkerResult) => {
        const resolve = this.pending.get(r.id);
        this.pending.delete(r.id);
        resolve?.(r);
      });
      w.on('error', (e) => {
        for (const resolve of this.pending.values()) resolve({ id: 0, failure: null, crash: e.message });
        this.pending.clear();
      });
      this.workers.push(w);
    }
  }

  get threads(): number {
    return Math.max(1, this.workers.length);
  }

  /**
   * Checks every non-coinbase input of `txs` (spent[t][i] is the output spent by input i of tx t).
   * Resolves to the first failure found, or null when all scripts pass.
   */
  async verify(txs: readonly Transaction[], spent: readonly (readonly TxOut[])[], flags: number): Promise<ScriptFailure | null> {
    let total = 0;
    for (let t = 0; t < txs.length; t++) if (!txs[t].isCoinbase()) total += txs[t].inputs.length;
    if (total === 0) return null;
    if (this.workers.length === 0 || total < PARALLEL_MIN_INPUTS) {
      return runScriptChecks(rangeItems(txs, spent, 0, total), flags);
    }
    const per = Math.ceil(total / this.workers.length);
    const jobs: Promise<WorkerResult>[] = [];
    for (let w = 0, from = 0; from < total; w++, from += per) {
      const items = rangeItems(txs, spent, from, Math.min(total, from + per)).map((it) => ({ ...it, tx: it.tx.encode() }));
      jobs.push(this.post(this.workers[w], { id: this.nextId++, flags, items }));
    }
    const results = await Promise.all(jobs);
    for (const r of results) {
      if (r.crash) throw new Error(`script verification worker failed: ${r.crash}`);
    }
    return results.map((r) => r.failure).find((f) => f !== null) ?? null;
  }

  private post(worker: Worker, job: WorkerJob): Promise<WorkerResult> {
    return new Promise((resolve) => {
      this.pending.set(job.id, resolve);
      worker.postMessage(job);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}

/** The items covering inputs [from, to) of the flattened list of non-coinbase inputs. */
function rangeItems(txs: readonly Transaction[], spent: readonly (readonly TxOut[])[], from: number, to: number): ScriptCheckItem[] {
  const items: ScriptCheckItem[] = [];
  let offset = 0;
  for (let t = 0; t < txs.length && offset < to; t++) {
    const tx = txs[t];
    if (tx.isCoinbase()) continue;
    const n = tx.inputs.length;
    const start = Math.max(0, from - offset);
    const end = Math.min(n, to - offset);
    if (start < end) items.push({ tx, txIndex: t, spent: spent[t].slice(start, end), start, end });
    offset += n;
  }
  return items;
}
