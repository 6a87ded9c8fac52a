/**
 * The solver threads (-threads): each gets the current job and searches its own random NONCE_2
 * space; found shares come back through `onShare`. Counters live in shared memory so that the
 * hashrate is read without messages.
 */
import type { Worker } from 'node:worker_threads';
import { startWorker } from '@cs/runtime/worker';
import type { FoundShare, SolverJob } from './messages.ts';

export class SolverPool {
  private readonly workers: Worker[] = [];
  private readonly counts: BigUint64Array;
  private failure: string | null = null;

  constructor(
    readonly threads: number,
    cpuLimit: number,
    private readonly onShare: (share: FoundShare) => void,
    private readonly onCrash: (message: string) => void,
  ) {
    const counters = new SharedArrayBuffer(threads * 8);
    this.counts = new BigUint64Array(counters);
    for (let index = 0; index < threads; index++) {
      const worker = startWorker(import.meta.url, 'solver-worker-main', { workerData: { counters, index, cpuLimit } });
      worker.on('message', (m: FoundShare) => this.onShare(m));
      worker.on('error', (e) => {
        this.failure ??= e.message;
        this.onCrash(e.message);
      });
      this.workers.push(worker);
    }
  }

  /** Starts (or switches) every thread on a job. */
  mine(job: SolverJob): void {
    if (this.failure) return;
    for (const w of this.workers) w.postMessage(job);
  }

  /** Stops solving until the next job (no pool connection). */
  idle(): void {
    for (const w of this.workers) w.postMessage({ kind: 'idle' });
  }

  /** Equihash solutions found by every thread since the start (the unit of Sol/s). */
  solutions(): bigint {
    let solutions = 0n;
    for (let i = 0; i < this.threads; i++) solutions += Atomics.load(this.counts, i);
    return solutions;
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
