import { hashToHex, outpointKey, type OutPoint } from '@cs/consensus';
import type { MempoolEntry } from './entry.ts';

/**
 * The transaction graph of the mempool (the container half of Core's CTxMemPool): entries by
 * txid and wtxid, which entry spends each outpoint, parent/child links, and the ancestor and
 * descendant totals of every entry. It enforces no policy; callers decide what goes in and out.
 */
export class TxPool {
  private readonly byTxid = new Map<string, MempoolEntry>();
  private readonly byWtxid = new Map<string, MempoolEntry>();
  /** outpointKey → the entry spending it. Also covers outpoints of transactions not in the pool. */
  private readonly spenders = new Map<string, MempoolEntry>();
  /** Sum of the entries' virtual sizes (getmempoolinfo "bytes"). */
  totalVsize = 0;
  totalFee = 0n;
  usage = 0;
  /** No entry is older than this (a lower bound: removals may leave it below the true minimum). */
  private earliestTime = Infinity;

  get size(): number {
    return this.byTxid.size;
  }

  get(txid: string): MempoolEntry | undefined {
    return this.byTxid.get(txid);
  }

  getByWtxid(wtxid: string): MempoolEntry | undefined {
    return this.byWtxid.get(wtxid);
  }

  spender(p: OutPoint): MempoolEntry | undefined {
    // Asked for every input of every connected block: an empty pool (a sync) skips making the key.
    if (this.spenders.size === 0) return undefined;
    return this.spenders.get(outpointKey(p));
  }

  entries(): IterableIterator<MempoolEntry> {
    return this.byTxid.values();
  }

  /** The in-pool transactions these inputs spend from. */
  parentsOf(inputs: readonly { readonly prevout: OutPoint }[]): Set<MempoolEntry> {
    const parents = new Set<MempoolEntry>();
    for (const input of inputs) {
      const parent = this.byTxid.get(hashToHex(input.prevout.txid));
      if (parent) parents.add(parent);
    }
    return parents;
  }

  /** Every in-pool ancestor of `entry`, itself excluded. */
  ancestorsOf(entry: MempoolEntry): Set<MempoolEntry> {
    return closure(entry.parents, (e) => e.parents);
  }

  /** Every in-pool descendant of `entry`, itself excluded. */
  descendantsOf(entry: MempoolEntry): Set<MempoolEntry> {
    return closure(entry.children, (e) => e.children);
  }

  /** `entries` and all their descendants (Core's CalculateDescendants over a set). */
  withDescendants(entries: Iterable<MempoolEntry>): Set<MempoolEntry> {
    const out = new Set<MempoolEntry>();
    for (const e of entries) {
      if (out.has(e)) continue;
      out.add(e);
      for (const d of this.descendantsOf(e)) out.add(d);
    }
    return out;
  }

  /**
   * Inserts `entry`, whose in-pool ancestors the caller computed (and limited). Entries already
   * spending its outputs (transactions of a disconnected block coming back under their in-pool
   * children) become its children.
   */
  add(entry: MempoolEntry, ancestors: ReadonlySet<MempoolEntry>): void {
    for (const parent of this.parentsOf(entry.tx.inputs)) {
      entry.parents.add(parent);
      parent.children.add(entry);
    }
    for (const a of ancestors) {
      entry.countWithAncestors += 1;
      entry.sizeWithAncestors += a.vsize;
      entry.modFeesWithAncestors += a.modifiedFee;
      entry.sigOpCostWithAncestors += a.sigOpCost;
      a.countWithDescendants += 1;
      a.sizeWithDescendants += entry.vsize;
      a.modFeesWithDescendants += entry.modifiedFee;
    }
    this.byTxid.set(entry.txid, entry);
    this.byWtxid.set(entry.wtxid, entry);
    for (const input of entry.tx.inputs) this.spenders.set(outpointKey(input.prevout), entry);
    this.totalVsize += entry.vsize;
    this.totalFee += entry.fee;
    this.usage += entry.usage;
    this.earliestTime = Math.min(this.earliestTime, entry.time);

    const txid = entry.tx.txid;
    entry.tx.outputs.forEach((_, vout) => {
      const child = this.spenders.get(outpointKey({ txid, vout }));
      if (child) {
        entry.children.add(child);
        child.parents.add(entry);
      }
    });
    if (entry.children.size > 0) {
      const affected = new Set([entry, ...this.descendantsOf(entry), ...this.ancestorsOf(entry)]);
      this.recomputeTotals(affected);
    }
  }

  /**
   * Removes `set`, keeping the totals of the entries that stay right: their ancestors lose the
   * removed descendants, their descendants the removed ancestors.
   */
  remove(set: ReadonlySet<MempoolEntry>): void {
    for (const r of set) {
      for (const a of this.ancestorsOf(r)) {
        if (set.has(a)) continue;
        a.countWithDescendants -= 1;
        a.sizeWithDescendants -= r.vsize;
        a.modFeesWithDescendants -= r.modifiedFee;
      }
      for (const d of this.descendantsOf(r)) {
        if (set.has(d)) continue;
        d.countWithAncestors -= 1;
        d.sizeWithAncestors -= r.vsize;
        d.modFeesWithAncestors -= r.modifiedFee;
        d.sigOpCostWithAncestors -= r.sigOpCost;
      }
    }
    for (const r of set) {
      for (const p of r.parents) p.children.delete(r);
      for (const c of r.children) c.parents.delete(r);
      r.parents.clear();
      r.children.clear();
      this.byTxid.delete(r.txid);
      this.byWtxid.delete(r.wtxid);
      for (const input of r.tx.inputs) {
        const key = outpointKey(input.prevout);
        if (this.spenders.get(key) === r) this.spenders.delete(key);
      }
      this.totalVsize -= r.vsize;
      this.totalFee -= r.fee;
      this.usage -= r.usage;
    }
  }

  /**
   * Entries that entered before `cutoff` (Unix seconds), without their descendants (Core's
   * Expire). Runs after every acceptance, so it scans only when something may have expired.
   */
  enteredBefore(cutoff: number): MempoolEntry[] {
    if (cutoff <= this.earliestTime) return [];
    const out: MempoolEntry[] = [];
    let earliest = Infinity;
    for (const e of this.byTxid.values()) {
      if (e.time < cutoff) out.push(e);
      else earliest = Math.min(earliest, e.time);
    }
    this.earliestTime = earliest;
    return out;
  }

  /** Adds `delta` to an entry's modified fee and to the totals that include it. */
  applyDelta(entry: MempoolEntry, delta: bigint): void {
    entry.feeDelta += delta;
    entry.modFeesWithAncestors += delta;
    entry.modFeesWithDescendants += delta;
    for (const a of this.ancestorsOf(entry)) a.modFeesWithDescendants += delta;
    for (const d of this.descendantsOf(entry)) d.modFeesWithAncestors += delta;
  }

  /** Recomputes the ancestor and descendant totals of `entries` from the graph. */
  private recomputeTotals(entries: Iterable<MempoolEntry>): void {
    for (const e of entries) {
      const ancestors = this.ancestorsOf(e);
      e.countWithAncestors = 1 + ancestors.size;
      e.sizeWithAncestors = e.vsize;
      e.modFeesWithAncestors = e.modifiedFee;
      e.sigOpCostWithAncestors = e.sigOpCost;
      for (const a of ancestors) {
        e.sizeWithAncestors += a.vsize;
        e.modFeesWithAncestors += a.modifiedFee;
        e.sigOpCostWithAncestors += a.sigOpCost;
      }
      const descendants = this.descendantsOf(e);
      e.countWithDescendants = 1 + descendants.size;
      e.sizeWithDescendants = e.vsize;
      e.modFeesWithDescendants = e.modifiedFee;
      for (const d of descendants) {
        e.sizeWithDescendants += d.vsize;
        e.modFeesWithDescendants += d.modifiedFee;
      }
    }
  }
}

/** Everything reachable from `start` through `next`. */
function closure(start: Iterable<MempoolEntry>, next: (e: MempoolEntry) => Iterable<MempoolEntry>): Set<MempoolEntry> {
  const out = new Set<MempoolEntry>();
  const stack = [...start];
  while (stack.length > 0) {
    const e = stack.pop()!;
    if (out.has(e)) continue;
    out.add(e);
    for (const n of next(e)) if (!out.has(n)) stack.push(n);
  }
  return out;
}
