import type { Transaction } from '@cs/consensus';
import { estimateEntryUsage } from './usage.ts';

export interface EntryFields {
  readonly tx: Transaction;
  /** Fee paid: inputs minus outputs, in base units. */
  readonly fee: bigint;
  /** prioritisetransaction delta applied on entry. */
  readonly feeDelta: bigint;
  /** Sigop-adjusted virtual size (policy/policy.ts virtualSize). */
  readonly vsize: number;
  readonly sigOpCost: number;
  /** Unix seconds when the transaction entered the pool. */
  readonly time: number;
  /** Height of the chain tip when it entered. */
  readonly height: number;
  /** Arrival order within the pool (unique, increasing). */
  readonly sequence: number;
}

/**
 * One transaction in the mempool (Core's CTxMemPoolEntry) with its links to in-pool parents and
 * children, and running totals over its ancestors and descendants (each including itself). The
 * pool keeps the totals up to date as transactions come and go, so limits, eviction and block
 * assembly read them instead of walking the graph.
 */
export class MempoolEntry {
  readonly tx: Transaction;
  readonly txid: string;
  readonly wtxid: string;
  readonly fee: bigint;
  readonly vsize: number;
  readonly weight: number;
  readonly sigOpCost: number;
  readonly time: number;
  readonly height: number;
  readonly sequence: number;
  /** Estimated bytes of memory the entry holds (mempool/usage.ts). */
  readonly usage: number;
  feeDelta: bigint;

  readonly parents = new Set<MempoolEntry>();
  readonly children = new Set<MempoolEntry>();

  countWithAncestors = 1;
  sizeWithAncestors: number;
  modFeesWithAncestors: bigint;
  sigOpCostWithAncestors: number;
  countWithDescendants = 1;
  sizeWithDescendants: number;
  modFeesWithDescendants: bigint;

  constructor(f: EntryFields) {
    this.tx = f.tx;
    this.txid = f.tx.txidHex;
    this.wtxid = f.tx.wtxidHex;
    this.fee = f.fee;
    this.feeDelta = f.feeDelta;
    this.vsize = f.vsize;
    this.weight = f.tx.weight;
    this.sigOpCost = f.sigOpCost;
    this.time = f.time;
    this.height = f.height;
    this.sequence = f.sequence;
    this.usage = estimateEntryUsage(f.tx);
    this.sizeWithAncestors = this.vsize;
    this.modFeesWithAncestors = this.modifiedFee;
    this.sigOpCostWithAncestors = this.sigOpCost;
    this.sizeWithDescendants = this.vsize;
    this.modFeesWithDescendants = this.modifiedFee;
  }

  /** The fee block assembly, eviction and replacement rules see: fee plus the prioritisation delta. */
  get modifiedFee(): bigint {
    return this.fee + this.feeDelta;
  }
}
