import { MAX_BLOCK_SIGOPS_COST, MAX_BLOCK_WEIGHT, WITNESS_SCALE_FACTOR, hashToHex } from '@cs/consensus';
import { feeForSize, type FeeRate } from '../policy/feerate.ts';
import type { MempoolEntry } from './entry.ts';
import { Heap } from './heap.ts';
import type { TxPool } from './pool.ts';

/** Weight and sigop cost Core's BlockAssembler keeps free for the coinbase transaction. */
export const COINBASE_RESERVED_WEIGHT = 4000;
export const COINBASE_RESERVED_SIGOPS = 400;
/** Core's -blockmaxweight default: the block limit minus the coinbase reservation. */
export const DEFAULT_BLOCK_MAX_WEIGHT = MAX_BLOCK_WEIGHT - COINBASE_RESERVED_WEIGHT;
/** Core's -blockmintxfee default: 1 unit per vbyte. */
export const DEFAULT_BLOCK_MIN_TX_FEE: FeeRate = 1000n;
/** After this many packages in a row that did not fit, a nearly full block stops looking. */
const MAX_CONSECUTIVE_FAILURES = 1000;

export interface BlockSelectionOptions {
  /** Total block weight, the coinbase's reservation included (clamped to 4,000..3,996,000 as Core does). */
  readonly maxWeight?: number;
  readonly maxSigopCost?: number;
  /** Packages paying less than this rate (modified fees) are left out. */
  readonly minFeeRate?: FeeRate;
}

export interface SelectedTx {
  readonly entry: MempoolEntry;
  /** The fee the transaction pays (without prioritisation), as getblocktemplate reports it. */
  readonly fee: bigint;
  readonly sigOpCost: number;
  readonly weight: number;
  /** 1-based positions in the selection of the transactions it spends from, per input (getblocktemplate "depends"). */
  readonly depends: readonly number[];
}

export interface BlockSelection {
  readonly txs: readonly SelectedTx[];
  /** Sum of the selected transactions' fees: what the coinbase may claim on top of the subsidy. */
  readonly totalFees: bigint;
  /** Weight and sigop cost of the selected transactions, the coinbase reservation included. */
  readonly weight: number;
  readonly sigOpCost: number;
}

/** A package's totals: a transaction with its not yet selected ancestors. */
interface Package {
  readonly entry: MempoolEntry;
  readonly size: number;
  readonly fee: bigint;
  readonly sigOpCost: number;
}

/**
 * Core's ancestor score order (CompareTxMemPoolEntryByAncestorFee): each package ranks by the
 * lower of its own and its package's fee rate, so a child cannot ride on a well-paying parent;
 * ties by txid.
 */
function ranksBefore(a: Package, b: Package): boolean {
  const [aFee, aSize] = ancestorScore(a);
  const [bFee, bSize] = ancestorScore(b);
  const left = aFee * BigInt(bSize);
  const right = bFee * BigInt(aSize);
  if (left !== right) return left > right;
  return Buffer.compare(a.entry.tx.txid, b.entry.tx.txid) < 0;
}

function ancestorScore(p: Package): [bigint, number] {
  const own = p.entry.modifiedFee * BigInt(p.size);
  const pkg = p.fee * BigInt(p.entry.vsize);
  return own > pkg ? [p.fee, p.size] : [p.entry.modifiedFee, p.entry.vsize];
}

function fullPackage(e: MempoolEntry): Package {
  return { entry: e, size: e.sizeWithAncestors, fee: e.modFeesWithAncestors, sigOpCost: e.sigOpCostWithAncestors };
}

/**
 * Core's BlockAssembler::addPackageTxs: repeatedly take the best-scoring package (a transaction
 * and its unselected ancestors, scored with modified fees), add it ancestors first if it fits, and
 * rescore the descendants of what was added. So a child paying for its parent (CPFP) lifts both.
 */
export function selectForBlock(pool: TxPool, opts: BlockSelectionOptions = {}): BlockSelection {
  const maxWeight = Math.min(Math.max(opts.maxWeight ?? DEFAULT_BLOCK_MAX_WEIGHT, COINBASE_RESERVED_WEIGHT), DEFAULT_BLOCK_MAX_WEIGHT);
  const maxSigops = opts.maxSigopCost ?? MAX_BLOCK_SIGOPS_COST;
  const minFeeRate = opts.minFeeRate ?? DEFAULT_BLOCK_MIN_TX_FEE;

  const sorted = [...pool.entries()].map(fullPackage).sort((a, b) => (ranksBefore(a, b) ? -1 : ranksBefore(b, a) ? 1 : 0));
  // Packages whose ancestors were partly selected, rescored; the heap holds every version ever
  // pushed and stale ones are skipped when they surface.
  const modified = new Map<MempoolEntry, Package>();
  const heap = new Heap<Package>(ranksBefore);
  const inBlock = new Set<MempoolEntry>();
  const failed = new Set<MempoolEntry>();
  const selected: MempoolEntry[] = [];
  let weight = COINBASE_RESERVED_WEIGHT;
  let sigOpCost = COINBASE_RESERVED_SIGOPS;
  let next = 0;
  let consecutiveFailed = 0;

  const liveModified = (): Package | undefined => {
    for (let top = heap.peek(); top; top = heap.peek()) {
      if (modified.get(top.entry) === top) return top;
      heap.pop();
    }
    return undefined;
  };

  for (;;) {
    while (next < sorted.length) {
      const e = sorted[next].entry;
      if (!modified.has(e) && !inBlock.has(e) && !failed.has(e)) break;
      next++;
    }
    const mod = liveModified();
    const plain = next < sorted.length ? sorted[next] : undefined;
    if (!plain && !mod) break;
    let pkg: Package;
    let fromModified: boolean;
    if (mod && (!plain || ranksBefore(mod, plain))) {
      pkg = mod;
      fromModified = true;
    } else {
      pkg = plain!;
      fromModified = false;
      next++;
    }

    // Everything after pays less: the order is by (ancestor) fee rate.
    if (pkg.fee < feeForSize(minFeeRate, pkg.size)) break;

    const fits = weight + WITNESS_SCALE_FACTOR * pkg.size < maxWeight && sigOpCost + pkg.sigOpCost < maxSigops;
    if (!fits) {
      if (fromModified) {
        modified.delete(pkg.entry);
        failed.add(pkg.entry);
      }
      consecutiveFailed++;
      if (consecutiveFailed > MAX_CONSECUTIVE_FAILURES && weight > maxWeight - COINBASE_RESERVED_WEIGHT) break;
      continue;
    }

    const members = [...pool.ancestorsOf(pkg.entry)].filter((a) => !inBlock.has(a));
    members.push(pkg.entry);
    // Fewer in-pool ancestors first: every parent before its children.
    members.sort((a, b) => a.countWithAncestors - b.countWithAncestors || Buffer.compare(a.tx.txid, b.tx.txid));
    for (const m of members) {
      inBlock.add(m);
      modified.delete(m);
      selected.push(m);
      weight += m.weight;
      sigOpCost += m.sigOpCost;
    }
    for (const m of members) {
      for (const d of pool.descendantsOf(m)) {
        if (inBlock.has(d)) continue;
        const before = modified.get(d) ?? fullPackage(d);
        const after = { entry: d, size: before.size - m.vsize, fee: before.fee - m.modifiedFee, sigOpCost: before.sigOpCost - m.sigOpCost };
        modified.set(d, after);
        heap.push(after);
      }
    }
    consecutiveFailed = 0;
  }

  return { txs: describe(selected), totalFees: selected.reduce((s, e) => s + e.fee, 0n), weight, sigOpCost };
}

function describe(selected: readonly MempoolEntry[]): SelectedTx[] {
  const position = new Map<string, number>();
  return selected.map((entry, i) => {
    const depends: number[] = [];
    for (const input of entry.tx.inputs) {
      const parent = position.get(hashToHex(input.prevout.txid));
      if (parent !== undefined) depends.push(parent);
    }
    position.set(entry.txid, i + 1);
    return { entry, fee: entry.fee, sigOpCost: entry.sigOpCost, weight: entry.weight, depends };
  });
}
