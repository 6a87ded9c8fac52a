import { Block, PrecomputedTxData, verifyInput, type Transaction, type TxOut } from '@cs/consensus';
import type { ScriptFailure } from './script-check.ts';

// What the calling thread and the script workers share while they verify one block.

/** Calling thread to worker. */
export type WorkerMessage =
  | {
      readonly kind: 'begin';
      readonly session: number;
      readonly flags: number;
      /** The serialized block, in shared memory. */
      readonly block: Uint8Array;
      readonly claims: SharedArrayBuffer;
      readonly threads: number;
    }
  /** Outputs spent by the next inputs in block order; `upTo` counts every input sent so far. */
  | { readonly kind: 'spent'; readonly session: number; readonly spent: Uint8Array; readonly upTo: number }
  | { readonly kind: 'abort'; readonly session: number };

/** Worker to calling thread: one per session, when the worker has nothing more to check. */
export interface WorkerReply {
  readonly session: number;
  readonly failure: ScriptFailure | null;
  readonly crash?: string;
}

/** Largest claim: ~16 signature checks, under a millisecond; claims shrink towards the end. */
const MAX_CHUNK = 16;
const NEXT = 0;
const ABORTED = 1;

/**
 * The shared counter threads claim inputs from (in block order, coinbase excluded), plus an abort
 * flag set by the first thread to find a failure or by the calling thread when the block fails
 * another rule: the others stop at their next claim.
 */
export class CheckClaims {
  private constructor(private readonly cells: Int32Array) {}

  static create(): CheckClaims {
    return new CheckClaims(new Int32Array(new SharedArrayBuffer(8)));
  }

  static attach(buffer: SharedArrayBuffer): CheckClaims {
    return new CheckClaims(new Int32Array(buffer));
  }

  get buffer(): SharedArrayBuffer {
    return this.cells.buffer as SharedArrayBuffer;
  }

  /**
   * Claims the next inputs below `limit`, as [start, end), or null when none are left below it or
   * the checks were aborted. Chunks are a quarter of each thread's fair share of what remains, so
   * they shrink as the block nears its end and the threads finish together.
   */
  claim(limit: number, total: number, threads: number): [number, number] | null {
    for (;;) {
      if (Atomics.load(this.cells, ABORTED) !== 0) return null;
      const start = Atomics.load(this.cells, NEXT);
      if (start >= limit) return null;
      const size = Math.max(1, Math.min(MAX_CHUNK, Math.floor((total - start) / (threads * 4)), limit - start));
      if (Atomics.compareExchange(this.cells, NEXT, start, start + size) === start) return [start, start + size];
    }
  }

  /** Every input has been claimed, or the checks were aborted: nothing will be left to claim. */
  exhausted(total: number): boolean {
    return Atomics.load(this.cells, ABORTED) !== 0 || Atomics.load(this.cells, NEXT) >= total;
  }

  abort(): void {
    Atomics.store(this.cells, ABORTED, 1);
  }
}

/**
 * One thread's view of a block being verified: the block's inputs in order (coinbase excluded),
 * the outputs they spend as far as they are known, and BIP143's per-transaction hashes computed
 * once per thread.
 */
export class InputChecker {
  private readonly txOf: number[] = [];
  private readonly inputOf: number[] = [];
  private readonly txs = new Map<number, Transaction>();
  private readonly spent: TxOut[] = [];
  private readonly txdata = new Map<number, PrecomputedTxData>();

  constructor(private readonly flags: number) {}

  /** A checker that knows every input of `block` from the start (a worker's). */
  static forBlock(block: Block, flags: number): InputChecker {
    const checker = new InputChecker(flags);
    block.txs.forEach((tx, t) => checker.addTransaction(tx, t));
    return checker;
  }

  /** Appends the inputs of block transaction `txIndex` (nothing for the coinbase). */
  addTransaction(tx: Transaction, txIndex: number): void {
    if (tx.isCoinbase()) return;
    this.txs.set(txIndex, tx);
    for (let i = 0; i < tx.inputs.length; i++) {
      this.txOf.push(txIndex);
      this.inputOf.push(i);
    }
  }

  /** Inputs listed so far: the whole block's for a worker, those planned so far for the connecting thread. */
  get total(): number {
    return this.txOf.length;
  }

  /** How many inputs have their spent outputs. */
  get known(): number {
    return this.spent.length;
  }

  addSpent(outs: readonly TxOut[]): void {
    for (const out of outs) this.spent.push(out);
  }

  /**
   * Checks claimed inputs below `limit` until none are left; the first failure this thread
   * found (which aborts the other threads), or null.
   */
  run(claims: CheckClaims, limit: number, threads: number): ScriptFailure | null {
    for (let c = claims.claim(limit, this.total, threads); c; c = claims.claim(limit, this.total, threads)) {
      for (let k = c[0]; k < c[1]; k++) {
        const t = this.txOf[k];
        const tx = this.txs.get(t)!;
        let txdata = this.txdata.get(t);
        if (!txdata) this.txdata.set(t, (txdata = new PrecomputedTxData(tx)));
        const r = verifyInput(tx, this.inputOf[k], this.spent[k], this.flags, txdata);
        if (!r.ok) {
          claims.abort();
          return { txIndex: t, input: this.inputOf[k], error: r.error };
        }
      }
    }
    return null;
  }
}

/** Packs spent outputs for a worker: per output, value (u64 LE), script length (u32 LE), script. */
export function encodeSpent(outs: readonly TxOut[]): Uint8Array {
  let size = 0;
  for (const o of outs) size += 12 + o.scriptPubKey.length;
  const bytes = new Uint8Array(size);
  const view = new DataView(bytes.buffer);
  let p = 0;
  for (const o of outs) {
    view.setBigUint64(p, o.value, true);
    view.setUint32(p + 8, o.scriptPubKey.length, true);
    bytes.set(o.scriptPubKey, p + 12);
    p += 12 + o.scriptPubKey.length;
  }
  return bytes;
}

export function decodeSpent(bytes: Uint8Array): TxOut[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const outs: TxOut[] = [];
  for (let p = 0; p < bytes.length; ) {
    const value = view.getBigUint64(p, true);
    const len = view.getUint32(p + 8, true);
    outs.push({ value, scriptPubKey: bytes.subarray(p + 12, p + 12 + len) });
    p += 12 + len;
  }
  return outs;
}

/** A worker's side of one session. */
export class WorkerSession {
  private readonly checker: InputChecker;
  private readonly claims: CheckClaims;
  private replied = false;

  readonly id: number;
  private readonly threads: number;

  constructor(
    begin: Extract<WorkerMessage, { kind: 'begin' }>,
    private readonly reply: (r: WorkerReply) => void,
  ) {
    this.id = begin.session;
    this.threads = begin.threads;
    this.checker = InputChecker.forBlock(Block.decode(begin.block), begin.flags);
    this.claims = CheckClaims.attach(begin.claims);
  }

  /** A block without inputs to check (a large coinbase alone) is finished as soon as it begins. */
  start(): void {
    if (this.claims.exhausted(this.checker.total)) this.finish(null);
  }

  /** Takes newly sent spent outputs and checks whatever can be claimed with them. */
  receive(spent: Uint8Array): void {
    if (this.replied) return;
    this.checker.addSpent(decodeSpent(spent));
    const failure = this.checker.run(this.claims, this.checker.known, this.threads);
    // Without a failure, the worker waits for more outputs unless nothing is left to claim.
    if (failure || this.claims.exhausted(this.checker.total)) this.finish(failure);
  }

  finish(failure: ScriptFailure | null): void {
    if (this.replied) return;
    this.replied = true;
    this.reply({ session: this.id, failure });
  }
}
