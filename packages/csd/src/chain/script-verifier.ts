import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';
import { startWorker } from '@cs/runtime/worker';
import type { Transaction, TxOut } from '@cs/consensus';
import { runScriptChecks, type ScriptCheckItem, type ScriptFailure } from './script-check.ts';
import { CheckClaims, InputChecker, encodeSpent, type WorkerMessage, type WorkerReply } from './script-work.ts';

/**
 * Blocks smaller than this are verified on the calling thread: starting the workers costs more
 * than the parallelism gains. The size of 64 inputs (41 bytes each at least), so that the
 * workers start on the raw block before the calling thread has even decoded it.
 */
const PARALLEL_MIN_BYTES = 64 * 41;

/**
 * Spent outputs are sent to the workers in packets of at least this many inputs: a message per
 * transaction would cost more than it saves on blocks of small transactions, while a packet is
 * small enough that the workers start long before the calling thread has looked up every input.
 */
const PACKET_INPUTS = 64;

/**
 * The workers' young generation (MiB): each of its two halves gets 32 MiB, where V8's default
 * (48 MiB) gives 16. A worker allocates all the time (each block decoded, each signature
 * hash) while what it decoded lives for a block or two, so at the default it is collected several
 * times a second, each collection copying the blocks then live. In 3 of 9 measured -reindex runs
 * of 500 blocks those collections took 15-30 ms and promoted most of what they copied (2.4-2.9 s
 * of the worker's time, 22-23 full collections); in the others 0.4-0.5 s. At this size: 93-96
 * collections instead of 165, 0.33-0.35 s, two full collections, in 5 runs of 5; 32 MiB more
 * memory per worker.
 */
const WORKER_YOUNG_GENERATION_MB = 64;

/**
 * Verifies the scripts of a block on several threads (Core's -par and check queue): `threads - 1`
 * workers plus the calling thread. Each worker receives the block once, in shared memory, then the
 * outputs its inputs spend as the calling thread looks them up. Sessions may overlap (the next
 * block's begins while this one's finishes): workers take them in the order they began. Inputs
 * are claimed in small chunks from one shared counter (Atomics), so every thread stays busy until
 * the last input and no thread finishes long before the others.
 */
export class ScriptVerifier {
  private readonly workers: Worker[] = [];
  private readonly waiting = new Map<number, (r: WorkerReply) => void>();
  private nextId = 1;
  /** Why a worker died: its thread is gone, so no later block can be verified in parallel. */
  private crashed: string | undefined;

  /** `threads` 0 means one per core; 1 verifies on the calling thread only. */
  constructor(threads: number) {
    const n = threads <= 0 ? availableParallelism() : threads;
    for (let i = 1; i < n; i++) {
      const worker = startWorker(import.meta.url, 'script-worker-main', {
        resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
      });
      worker.on('message', (r: WorkerReply) => this.waiting.get(r.session)?.(r));
      worker.on('error', (e) => {
        this.crashed ??= e.message;
        for (const deliver of this.waiting.values()) deliver({ session: 0, failure: null, crash: e.message });
      });
      this.workers.push(worker);
    }
  }

  get threads(): number {
    return this.workers.length + 1;
  }

  /**
   * The script checks of one block under one set of flags. `raw` is the block's serialization:
   * workers decode their own copy of the transactions from it.
   */
  session(raw: Uint8Array, flags: number): ScriptCheckSession {
    if (this.workers.length === 0 || raw.length < PARALLEL_MIN_BYTES) return new SerialCheckSession(flags);
    if (this.crashed) throw new Error(`script verification worker failed: ${this.crashed}`);
    const id = this.nextId++;
    const shared = new Uint8Array(new SharedArrayBuffer(raw.length));
    shared.set(raw);
    const claims = CheckClaims.create();
    let replies = 0;
    const results: WorkerReply[] = [];
    const done = new Promise<WorkerReply[]>((resolve) => {
      this.waiting.set(id, (r) => {
        results.push(r);
        // A crashed worker never answers again: one crash report settles the session.
        if (r.crash || ++replies === this.workers.length) {
          this.waiting.delete(id);
          resolve(results);
        }
      });
    });
    const post = (m: WorkerMessage) => {
      for (const w of this.workers) w.postMessage(m);
    };
    post({ kind: 'begin', session: id, flags, block: shared, claims: claims.buffer, threads: this.threads });
    return new ParallelCheckSession(id, flags, claims, this.threads, post, done);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.terminate()));
    this.workers.length = 0;
  }
}

/** The script checks of one block, fed transaction by transaction while its inputs are looked up. */
export interface ScriptCheckSession {
  /** Queues the inputs of transaction `txIndex`; spent[i] is the output its input i spends. */
  add(tx: Transaction, txIndex: number, spent: readonly TxOut[]): void;
  /** Hands every queued input to the script threads (the block's last transaction was added). */
  flush(): void;
  /** Resolves to the first failure found (lowest in block order), or null when every script passed. */
  finish(): Promise<ScriptFailure | null>;
  /** Abandons the checks (the block failed another rule); resolves once no thread works on them. */
  abort(): Promise<void>;
}

class SerialCheckSession implements ScriptCheckSession {
  private readonly items: ScriptCheckItem[] = [];

  constructor(private readonly flags: number) {}

  add(tx: Transaction, txIndex: number, spent: readonly TxOut[]): void {
    if (!tx.isCoinbase()) this.items.push({ tx, txIndex, spent });
  }

  flush(): void {}

  async finish(): Promise<ScriptFailure | null> {
    return runScriptChecks(this.items, this.flags);
  }

  async abort(): Promise<void> {}
}

class ParallelCheckSession implements ScriptCheckSession {
  private readonly checker: InputChecker;
  private packet: TxOut[] = [];
  /** Inputs whose spent outputs have been sent to the workers. */
  private published = 0;

  constructor(
    private readonly id: number,
    flags: number,
    private readonly claims: CheckClaims,
    private readonly threads: number,
    private readonly post: (m: WorkerMessage) => void,
    private readonly done: Promise<WorkerReply[]>,
  ) {
    this.checker = new InputChecker(flags);
  }

  add(tx: Transaction, txIndex: number, spent: readonly TxOut[]): void {
    if (tx.isCoinbase()) return;
    this.checker.addTransaction(tx, txIndex);
    this.checker.addSpent(spent);
    for (const out of spent) this.packet.push(out);
    if (this.packet.length >= PACKET_INPUTS) this.flush();
  }

  flush(): void {
    if (this.packet.length === 0) return;
    this.published += this.packet.length;
    this.post({ kind: 'spent', session: this.id, spent: encodeSpent(this.packet), upTo: this.published });
    this.packet = [];
  }

  async finish(): Promise<ScriptFailure | null> {
    this.flush();
    // The calling thread claims chunks like any worker; it never has to wait for data.
    let failure = this.checker.run(this.claims, this.checker.total, this.threads);
    const replies = await this.done;
    for (const r of replies) {
      if (r.crash) throw new Error(`script verification worker failed: ${r.crash}`);
      if (r.failure && (!failure || before(r.failure, failure))) failure = r.failure;
    }
    return failure;
  }

  async abort(): Promise<void> {
    this.claims.abort();
    this.post({ kind: 'abort', session: this.id });
    await this.done;
  }
}

function before(a: ScriptFailure, b: ScriptFailure): boolean {
  return a.txIndex < b.txIndex || (a.txIndex === b.txIndex && a.input < b.input);
}
