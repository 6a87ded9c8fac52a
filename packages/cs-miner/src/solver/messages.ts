/** Messages between the solver threads and the miner's main thread. */
import type { EquihashParams } from '@cs/consensus';

/** Work for one thread: the 140-byte header with NONCE_1 in place (NONCE_2 is the thread's to vary). */
export interface SolverJob {
  readonly kind: 'job';
  /** Bumped by every new job or target, so that shares of an older one can be told apart. */
  readonly generation: number;
  readonly jobId: string;
  readonly params: EquihashParams;
  readonly header140: Uint8Array;
  readonly nonce1Length: number;
  /** Shares at or below this go to the pool. */
  readonly target: bigint;
}

export type ToSolver = SolverJob | { readonly kind: 'idle' };

export interface FoundShare {
  readonly kind: 'share';
  readonly generation: number;
  readonly jobId: string;
  readonly header140: Uint8Array;
  readonly solution: Uint8Array;
}

/** Per-thread counters in shared memory: [solutions, nonces] for thread i at 2i, 2i+1. */
export const COUNTERS_PER_THREAD = 2;
