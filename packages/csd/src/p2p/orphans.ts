/**
 * Transactions whose inputs are not known yet (Core's TxOrphanage before v30): at most
 * MAX_ORPHANS, each under MAX_ORPHAN_WEIGHT, expiring after 20 minutes, a random one evicted
 * when full. When a transaction is accepted, the orphans spending its outputs are retried.
 */
import { type Transaction, hashToHex } from '@cs/consensus';

export const MAX_ORPHANS = 100;
export const MAX_ORPHAN_WEIGHT = 400_000;
export const ORPHAN_EXPIRE_SECONDS = 20 * 60;

interface Orphan {
  readonly tx: Transaction;
  readonly from: number;
  readonly expires: number;
}

export class OrphanPool {
  private readonly byWtxid = new Map<string, Orphan>();
  /** Parent txid → wtxids of orphans spending one of its outputs. */
  private readonly byParent = new Map<string, Set<string>>();

  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.byWtxid.size;
  }

  has(wtxid: string): boolean {
    return this.byWtxid.has(wtxid);
  }

  /** Returns false when the transaction is too large to keep. */
  add(tx: Transaction, from: number): boolean {
    if (this.byWtxid.has(tx.wtxidHex)) return true;
    if (tx.weight > MAX_ORPHAN_WEIGHT) return false;
    this.expire();
    while (this.byWtxid.size >= MAX_ORPHANS) {
      const keys = [...this.byWtxid.keys()];
      this.remove(keys[Math.floor(Math.random() * keys.length)]);
    }
    this.byWtxid.set(tx.wtxidHex, { tx, from, expires: this.now() + ORPHAN_EXPIRE_SECONDS });
    for (const input of tx.inputs) {
      const parent = hashToHex(input.prevout.txid);
      const set = this.byParent.get(parent) ?? new Set<string>();
      set.add(tx.wtxidHex);
      this.byParent.set(parent, set);
    }
    return true;
  }

  /** Orphans spending outputs of `txid`, removed from the pool (the caller tries them again). */
  takeChildren(txid: string): { tx: Transaction; from: number }[] {
    const out: { tx: Transaction; from: number }[] = [];
    for (const wtxid of this.byParent.get(txid) ?? []) {
      const o = this.byWtxid.get(wtxid);
      if (o) out.push({ tx: o.tx, from: o.from });
      this.remove(wtxid);
    }
    return out;
  }

  /** Core drops a disconnected peer's orphans. */
  forgetPeer(peer: number): void {
    for (const [wtxid, o] of this.byWtxid) if (o.from === peer) this.remove(wtxid);
  }

  private expire(): void {
    const now = this.now();
    for (const [wtxid, o] of this.byWtxid) if (o.expires <= now) this.remove(wtxid);
  }

  private remove(wtxid: string): void {
    const o = this.byWtxid.get(wtxid);
    if (!o) return;
    this.byWtxid.delete(wtxid);
    for (const input of o.tx.inputs) {
      const parent = hashToHex(input.prevout.txid);
      const set = this.byParent.get(parent);
      set?.delete(wtxid);
      if (set?.size === 0) this.byParent.delete(parent);
    }
  }
}
