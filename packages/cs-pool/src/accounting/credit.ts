/**
 * What one block credits, by the pool's scheme (docs/pool.md, "Payout schemes"): the fee, the
 * credits by address, and under PROP the share ranges it took and the round state it leaves. Reads
 * shares from the store; writes nothing (the block follower applies the result in one step).
 */
import { feeOf, pplnsCredits, propCredits, soloCredits, type Credits, type PayoutScheme } from './schemes.ts';
import type { AccountingStore, BlockRecord, StoredShare } from './store.ts';
import { pplnsWindow } from './weights.ts';

export interface CreditConfig {
  readonly scheme: PayoutScheme;
  /** Pool fee in basis points of each pool block's reward (solo blocks carry their own, in the coinbase). */
  readonly feeBasisPoints: number;
  /** PPLNS window as a multiple of the network difficulty, a decimal (-pplnsfactor). */
  readonly pplnsFactor: string;
}

export interface BlockCredit {
  readonly fee: bigint;
  /** address -> base units, every unit of reward - fee. */
  readonly credits: Credits;
  /** PROP: the share ranges (exclusive start, inclusive end) credited, to carry over if the block leaves the chain. */
  readonly rounds: [number, number][];
  /** Round state to write with the credit. */
  readonly meta: Record<string, string>;
}

/** PROP rounds carried from blocks that left the active chain, credited with the next block. */
export async function propCarry(store: AccountingStore): Promise<[number, number][]> {
  return JSON.parse((await store.meta('prop.carry')) ?? '[]') as [number, number][];
}

export async function creditBlock(block: BlockRecord, store: AccountingStore, config: CreditConfig): Promise<BlockCredit> {
  if (block.solo) return { fee: block.fee, credits: soloCredits(block.reward, block.finder), rounds: [], meta: {} };
  const fee = feeOf(block.reward, config.feeBasisPoints);
  const amount = block.reward - fee;
  let credits: Credits;
  let rounds: [number, number][] = [];
  const meta: Record<string, string> = {};
  if (config.scheme === 'pplns') {
    const window = pplnsWindow(block.networkWeight, config.pplnsFactor);
    const newestFirst: StoredShare[] = [];
    let sum = 0n;
    for await (const share of store.sharesDescending(block.shareSeq)) {
      if (share.solo) continue;
      newestFirst.push(share);
      sum += share.weight;
      if (sum >= window) break;
    }
    credits = pplnsCredits(amount, newestFirst, window);
  } else {
    // The open round ends at this block's share; a block credited late (it reached the active chain
    // after a later block was credited) finds that range already paid, and takes only what is carried.
    const start = Number((await store.meta('prop.roundStart')) ?? '0');
    rounds = [...(await propCarry(store)), ...(start < block.shareSeq ? [[start, block.shareSeq] as [number, number]] : [])];
    const shares: StoredShare[] = [];
    for (const [after, upTo] of rounds) for await (const s of store.sharesInRange(after, upTo)) if (!s.solo) shares.push(s);
    credits = propCredits(amount, shares);
    meta['prop.carry'] = '[]';
    meta['prop.roundStart'] = String(Math.max(start, block.shareSeq));
  }
  // No share to split over (a PROP block credited after a later one closed its round, nothing carried): the finder's.
  if (credits.size === 0) credits = soloCredits(amount, block.finder);
  return { fee, credits, rounds, meta };
}
