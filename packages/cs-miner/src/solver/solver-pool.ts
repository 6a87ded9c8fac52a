/**
 * The solver threads (-threads): each gets the current job and searches its own random NONCE_2
 * space; found shares come back through `onShare`. Counters live in shared memory so that the
 * hashrate is read without messages.
 */
import { Worker } from 'node:worker_threads';
import { COUNTERS_PER_THREAD, type FoundShare, type SolverJob } from './messages.ts';

export interface SolverCounts {
  /** Equihash solutions found (the unit of Sol/s). */
  readonly solutions: bigint;
  readonly nonces: bigint;
}

export class SolverPool {
  private readonly workers: Worker[] = [];
  private readonly counts: BigUint64Array;
  private failure: string | null = null;

  constructor(
    readonly threads: number,
    private readonly onShare: (share: FoundShare) => void,
    private readonly onCrash: (message: string) => void,
  ) {
    const counters = new SharedArrayBuffer(threads * COUNTERS_PER_THREAD * 8);
    this.counts = new BigUint64Array(counters);
    for (let index = 0; index < threads; index++) {
      const worker = new Worker(new URL('./solver-worker.js', import.meta.url), { workerData: { counters, index } });
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

  totals(): SolverCounts {
    let solutions = 0n;
    let nonces = 0n;
    for (let i = 0; i < this.threads; i++) {
      solutions += Atomics.load(this.counts, i * COUNTERS_PER_THREAD);
      nonces += Atomics.load(this.counts, i * COUNTERS_PER_THREAD + 1);
    }
    return { solutions, nonces };
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
  }
}
