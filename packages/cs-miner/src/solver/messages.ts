/** Messages between the solver threads and the miner's main thread. */
import type { EquihashParams } from '@cs/consensus';

/** Work for one thread: the 140-byte header with NONCE_1 in place (NONCE_2 is the thread's to vary). */
export interface SolverJob {
  readonly kind: 'job';
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
  readonly jobId: string;
  readonly header140: Uint8Array;
  readonly solution: Uint8Array;
}
