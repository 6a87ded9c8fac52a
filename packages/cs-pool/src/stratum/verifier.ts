/**
 * Equihash checks of shares, on worker threads (-verifythreads) or, with none, on the main thread.
 * The check is most of a share's cost (about 80 % of the main thread when it runs there), so on
 * threads the event loop keeps reading, answering and storing while solutions are checked, and
 * new jobs go out without waiting for a backlog of checks.
 */
import type { Worker } from 'node:worker_threads';
import { HEADER_BYTES, type EquihashParams } from '@cs/consensus';
import { startWorker } from '@cs/runtime/worker';
import { checkShareSolution, type PendingShare } from '@cs/stratum';
import type { Logger } from 'pino';
import { checkRecord, recordBytes } from './share-record.ts';

/**
 * Shares per message to a thread. A message costs a few microseconds on each side and a check
 * about 150 (regtest's 48,5); a batch leaves when full or at the end of the turn that filled it,
 * whichever comes first, so a lone share never waits for company.
 */
const BATCH = 32;

/**
 * Shares handed to the threads and not answered yet, per thread, beyond which connections stop
 * being read until half have been answered: about 40 ms of checks each, enough to keep a thread
 * busy between two turns of the event loop, while a miner flooding submits cannot queue without bound.
 */
const QUEUED_PER_THREAD = 256;

/** A share handed to a thread: its verdict (-1 until known, then 1 valid, 0 not) and who waits for it. */
interface Slot {
  verdict: number;
  readonly resolve: (ok: boolean) => void;
}

interface Batch {
  readonly bytes: Uint8Array;
  readonly slots: Slot[];
}

interface Lane {
  readonly worker: Worker;
  /** Batches sent and not answered, in order: a thread answers its batches in the order received. */
  readonly sent: Batch[];
  queued: number;
}

export class ShareVerifier {
  private readonly lanes: Lane[] = [];
  /** One header ‖ solution record. */
  private readonly record: number;
  private open: Batch | null = null;
  /** Every slot not released yet, from `head` on, in the order checked: verdicts are released in that order. */
  private readonly order: Slot[] = [];
  private head = 0;
  private flushQueued = false;
  private queued = 0;
  private readonly limit: number;
  private drained: (() => void)[] = [];
  private closing = false;

  constructor(
    threads: number,
    private readonly equihash: EquihashParams,
    private readonly log: Logger,
  ) {
    this.record = recordBytes(equihash);
    this.limit = threads * QUEUED_PER_THREAD;
    for (let i = 0; i < threads; i++) this.startLane();
  }

  get threads(): number {
    return this.lanes.length;
  }

  /**
   * The verdict on a share's solution: at once without threads, else once its thread has answered
   * and every share checked before it has its verdict, so that shares are settled in the order
   * received (a copy after its original, as on one thread) whichever thread was faster.
   */
  check(share: PendingShare): boolean | Promise<boolean> {
    if (this.lanes.length === 0) return checkShareSolution(this.equihash, share);
    return new Promise((resolve) => {
      let batch = this.open;
      if (!batch) {
        batch = { bytes: new Uint8Array(BATCH * this.record), slots: [] };
        this.open = batch;
      }
      const at = batch.slots.length * this.record;
      batch.bytes.set(share.header, at);
      batch.bytes.set(share.solution, at + HEADER_BYTES);
      const slot: Slot = { verdict: -1, resolve };
      batch.slots.push(slot);
      this.order.push(slot);
      this.queued++;
      if (batch.slots.length === BATCH) this.flush();
      else if (!this.flushQueued) {
        this.flushQueued = true;
        process.nextTick(() => {
          this.flushQueued = false;
          this.flush();
        });
      }
    });
  }

  /** Too many checks waiting: connections should stop reading until `whenDrained`. */
  get saturated(): boolean {
    return this.lanes.length > 0 && this.queued >= this.limit;
  }

  /** Calls `resume` once half of the waiting checks are answered. */
  whenDrained(resume: () => void): void {
    this.drained.push(resume);
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all(this.lanes.splice(0).map((l) => l.worker.terminate()));
  }

  private startLane(): void {
    const worker = startWorker(import.meta.url, 'verify-worker-main', { workerData: { equihash: this.equihash, record: this.record } });
    const lane: Lane = { worker, sent: [], queued: 0 };
    worker.on('message', (verdicts: Uint8Array) => {
      const batch = lane.sent.shift()!;
      for (let i = 0; i < verdicts.length; i++) batch.slots[i].verdict = verdicts[i];
      this.answered(lane, verdicts.length);
    });
    // A thread that dies takes no share with it: what it held is checked here, and the threads left carry on.
    const lost = (why: string) => {
      const index = this.lanes.indexOf(lane);
      if (this.closing || index < 0) return;
      this.lanes.splice(index, 1);
      this.log.error({ err: why, threadsLeft: this.lanes.length }, 'share verifier thread failed');
      for (const batch of lane.sent.splice(0)) this.checkHere(batch, lane);
    };
    worker.on('error', (e) => lost(e.message));
    worker.on('exit', (code) => lost(`exited with ${code}`));
    this.lanes.push(lane);
  }

  private flush(): void {
    const batch = this.open;
    if (!batch) return;
    this.open = null;
    if (this.lanes.length === 0) return this.checkHere(batch, null);
    let lane = this.lanes[0];
    for (const l of this.lanes) if (l.queued < lane.queued) lane = l;
    const count = batch.slots.length;
    const bytes = count === BATCH ? batch.bytes : batch.bytes.slice(0, count * this.record);
    lane.sent.push({ bytes, slots: batch.slots });
    lane.queued += count;
    lane.worker.postMessage(bytes);
  }

  /** A batch checked on this thread: its lane (or every lane) is gone. */
  private checkHere(batch: Batch, lane: Lane | null): void {
    batch.slots.forEach((slot, i) => {
      slot.verdict = checkRecord(this.equihash, batch.bytes, i, this.record) ? 1 : 0;
    });
    this.answered(lane, batch.slots.length);
  }

  /** `count` verdicts are in: released in order as far as they go. */
  private answered(lane: Lane | null, count: number): void {
    if (lane) lane.queued -= count;
    this.queued -= count;
    const order = this.order;
    while (this.head < order.length && order[this.head].verdict >= 0) {
      const slot = order[this.head++];
      slot.resolve(slot.verdict === 1);
    }
    if (this.head === order.length) {
      order.length = 0;
      this.head = 0;
    } else if (this.head > 4096) {
      order.splice(0, this.head);
      this.head = 0;
    }
    if (this.drained.length > 0 && this.queued <= this.limit / 2) for (const resume of this.drained.splice(0)) resume();
  }
}
