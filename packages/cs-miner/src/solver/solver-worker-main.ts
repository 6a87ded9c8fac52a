/**
 * One solver thread: solves nonce after nonce for the latest job and posts every solution whose
 * hash meets the share target. Work runs in slices of about SLICE_MS between which the thread
 * takes its messages, so a new job is picked up within a slice (or, for ZelHash, after the solve
 * under way: a (125,4) solve takes minutes and cannot be interrupted). Under -cpulimit the thread
 * sleeps after each slice for as long as keeps its solving to that share of the time.
 */
import { getRandomValues } from 'node:crypto';
import { parentPort, workerData } from 'node:worker_threads';
import { HEADER_INPUT_BYTES, hashToBigInt, mineHeader } from '@cs/consensus';
import { shareHash } from '@cs/stratum';
import type { FoundShare, SolverJob, ToSolver } from './messages.ts';

const SLICE_MS = 50;
/**
 * The longest sleep between slices under -cpulimit: a low limit shortens the slices instead, so
 * that a new job still starts within about this long.
 */
const MAX_PAUSE_MS = 200;

const { counters, index, cpuLimit } = workerData as { counters: SharedArrayBuffer; index: number; cpuLimit: number };
const counts = new BigUint64Array(counters);

let job: SolverJob | null = null;
let header = new Uint8Array(0);
let scheduled = false;
/** Running estimate of one nonce's solve time, to size slices. */
let msPerNonce = 1;

parentPort!.on('message', (m: ToSolver) => {
  if (m.kind === 'idle') {
    job = null;
    return;
  }
  job = m;
  header = m.header140.slice();
  if (!scheduled) schedule();
});

function schedule(pauseMs = 0): void {
  scheduled = true;
  if (pauseMs > 0) setTimeout(slice, pauseMs);
  else setImmediate(slice);
}

/** The sleep after a slice of `ms` that keeps solving to `percent` of the thread's time. */
function pauseAfter(ms: number, percent: number): number {
  return (ms * (100 - percent)) / percent;
}

function slice(): void {
  scheduled = false;
  const current = job;
  if (!current) return;
  // A random NONCE_2 per slice: threads (and restarts) never search the same nonces, without any
  // coordination; mineHeader counts upwards from it within the slice.
  getRandomValues(header.subarray(HEADER_INPUT_BYTES + current.nonce1Length));
  const sliceMs = Math.min(SLICE_MS, (MAX_PAUSE_MS * cpuLimit) / (100 - cpuLimit));
  const nonces = Math.max(1, Math.floor(sliceMs / msPerNonce));
  const started = performance.now();
  let solutions = 0n;
  mineHeader(current.params, header, {
    maxNonces: nonces,
    counterOffset: current.nonce1Length,
    accept: (h, solution) => {
      solutions++;
      if (hashToBigInt(shareHash(h, solution)) <= current.target) {
        const share: FoundShare = { kind: 'share', jobId: current.jobId, header140: h, solution };
        parentPort!.postMessage(share);
      }
      return false;
    },
  });
  const elapsed = performance.now() - started;
  msPerNonce = Math.max(0.01, elapsed / nonces);
  Atomics.add(counts, index, solutions);
  schedule(pauseAfter(elapsed, cpuLimit));
}
