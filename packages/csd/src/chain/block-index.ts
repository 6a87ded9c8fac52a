import { BlockHeader, Reader, Writer, blockProof } from '@cs/consensus';

/** Validation progress and failure marks of a block index entry (Core's BlockStatus, simplified). */
export const BlockStatus = {
  /** Header checks passed (PoW, context). */
  VALID_HEADER: 1,
  /** The full block is stored. */
  HAVE_DATA: 2,
  /** The block was connected to the chain once: its transactions and scripts are valid. */
  VALID_SCRIPTS: 4,
  /** The block itself broke a rule (or invalidateblock marked it). */
  FAILED_VALID: 8,
  /** An ancestor is FAILED_VALID. */
  FAILED_CHILD: 16,
} as const;

export const FAILED_MASK = BlockStatus.FAILED_VALID | BlockStatus.FAILED_CHILD;

/** One node of the block tree, kept in memory for every known block. */
export class BlockIndexEntry {
  readonly hashHex: string;

  constructor(
    readonly hash: Uint8Array,
    readonly header: BlockHeader,
    readonly height: number,
    readonly prev: BlockIndexEntry | null,
    /** Total work of the chain up to and including this block. */
    readonly chainWork: bigint,
    public status: number,
    public txCount: number,
    /** Arrival order: among equal-work tips, the first one seen wins (Core's nSequenceId). */
    readonly sequence: number,
  ) {
    this.hashHex = header.hashHex;
  }

  static child(header: BlockHeader, prev: BlockIndexEntry | null, sequence: number): BlockIndexEntry {
    const work = (prev?.chainWork ?? 0n) + blockProof(header.bits);
    return new BlockIndexEntry(header.hash, header, prev ? prev.height + 1 : 0, prev, work, 0, 0, sequence);
  }

  get time(): number {
    return this.header.time;
  }

  isFailed(): boolean {
    return (this.status & FAILED_MASK) !== 0;
  }

  hasData(): boolean {
    return (this.status & BlockStatus.HAVE_DATA) !== 0;
  }

  /** The ancestor at `height` (this entry when equal), walking back through prev links. */
  ancestor(height: number): BlockIndexEntry | null {
    if (height > this.height || height < 0) return null;
    let e: BlockIndexEntry = this;
    while (e.height > height) e = e.prev!;
    return e;
  }

  /** BIP113 median time past: the median of this block's and its ten predecessors' times. */
  medianTimePast(): number {
    const times: number[] = [];
    for (let e: BlockIndexEntry | null = this; e && times.length < 11; e = e.prev) times.push(e.time);
    times.sort((a, b) => a - b);
    return times[Math.floor(times.length / 2)];
  }

  encode(): Buffer {
    const w = new Writer(200 + this.header.solution.length);
    this.header.write(w);
    w.u32le(this.height).u32le(this.status).u32le(this.txCount).varInt(this.sequence);
    const bytes = w.finish();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
}

/** What a stored index record holds; the entry is rebuilt once its parent is loaded. */
export interface StoredIndexRecord {
  readonly header: BlockHeader;
  readonly height: number;
  readonly status: number;
  readonly txCount: number;
  readonly sequence: number;
}

export function decodeIndexRecord(bytes: Uint8Array): StoredIndexRecord {
  const r = new Reader(bytes);
  const header = BlockHeader.read(r);
  const rec = { header, height: r.u32le(), status: r.u32le(), txCount: r.u32le(), sequence: r.varInt() };
  r.end('block index record');
  return rec;
}

/** Core's CBlockIndexWorkComparator, as "is `a` a better tip than `b`". */
export function betterTip(a: BlockIndexEntry, b: BlockIndexEntry): boolean {
  if (a.chainWork !== b.chainWork) return a.chainWork > b.chainWork;
  return a.sequence < b.sequence;
}

/** The last common ancestor of two entries. */
export function findFork(a: BlockIndexEntry, b: BlockIndexEntry): BlockIndexEntry {
  let x: BlockIndexEntry | null = a;
  let y: BlockIndexEntry | null = b;
  while (x && y && x !== y) {
    if (x.height > y.height) x = x.prev;
    else if (y.height > x.height) y = y.prev;
    else {
      x = x.prev;
      y = y.prev;
    }
  }
  if (!x || !y) throw new Error('blocks share no ancestor');
  return x;
}
