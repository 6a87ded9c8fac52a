/**
 * Follows every found block on the node's active chain until it is mature or orphaned (docs/pool.md,
 * "Maturity and orphans"). Each change is one atomic store step:
 *
 *   new, side  --on the active chain-->  pending (credited as immature)
 *   pending    --left the active chain-->  side (credits withdrawn; PROP carries its rounds)
 *   pending    --maturity confirmations-->  confirmed (credits payable; solo: paid by the coinbase)
 *   new, side  --off the active chain when a block at its height would be mature-->  orphaned
 *
 * So a block is credited whenever, and only while, the active chain holds it, however often a
 * reorg moves it, and it is orphaned only once nothing can bring it back in time to be paid.
 */
import { RpcError, type RpcClient } from '@cs/client';
import type { Logger } from 'pino';
import { creditBlock, propCarry, type CreditConfig } from './credit.ts';
import type { Credits } from './schemes.ts';
import type { AccountingStore, BalanceDelta, BlockRecord } from './store.ts';

export interface FollowConfig extends CreditConfig {
  /** Confirmations after which a block's reward is mature (COINBASE_MATURITY). */
  readonly maturity: number;
}

/** Where the node has a block now: on the active chain with its confirmations, off it, or it cannot say. */
type Place = { readonly kind: 'active'; readonly confirmations: number } | { readonly kind: 'off' } | { readonly kind: 'unknown' };

function toRecord(credits: Credits): Record<string, string> {
  return Object.fromEntries([...credits].filter(([, v]) => v > 0n).map(([k, v]) => [k, v.toString()]));
}

function creditEntries(block: BlockRecord): [string, bigint][] {
  return Object.entries(block.credits).map(([a, v]) => [a, BigInt(v)]);
}

export class BlockFollower {
  constructor(
    private readonly store: AccountingStore,
    private readonly rpc: RpcClient,
    private readonly config: FollowConfig,
    private readonly log: Logger,
  ) {}

  /** One pass over the blocks not yet final, oldest share first (PROP's rounds are credited in that order). */
  async follow(): Promise<void> {
    let tip: number | null | undefined;
    const tipHeight = async () => {
      if (tip === undefined) tip = await this.rpc.call('getblockcount').catch(() => null);
      return tip;
    };
    for (const found of await this.store.blocks()) {
      if (found.status === 'confirmed' || found.status === 'orphaned') continue;
      const place = await this.placeOf(found);
      if (place.kind === 'unknown') continue;
      let block = found;
      if (place.kind === 'active') {
        if (block.status !== 'pending') block = await this.credit(block, place.confirmations);
        await this.mature(block, place.confirmations);
        continue;
      }
      if (block.status === 'pending') block = await this.withdraw(block);
      else if (block.status === 'new') {
        block = { ...block, status: 'side', confirmations: 0 };
        await this.store.apply({ blocks: [block] });
      }
      const height = await tipHeight();
      if (height !== null && height - block.height + 1 >= this.config.maturity) await this.orphan(block);
    }
  }

  private async credit(block: BlockRecord, confirmations: number): Promise<BlockRecord> {
    const { fee, credits, rounds, meta } = await creditBlock(block, this.store, this.config);
    const credited: BlockRecord = { ...block, status: 'pending', confirmations, credits: toRecord(credits), fee, rounds };
    await this.store.apply({
      blocks: [credited],
      balances: creditEntries(credited).map(([address, v]) => ({ address, immature: v })),
      meta,
    });
    this.log.info({ hash: block.hash, height: block.height, credits: credited.credits, fee: fee.toString() }, 'block credited');
    return credited;
  }

  /** A credited block at `confirmations`: matured once there are enough, else its count kept up to date. */
  private async mature(block: BlockRecord, confirmations: number): Promise<void> {
    if (confirmations < this.config.maturity) {
      if (confirmations !== block.confirmations) await this.store.apply({ blocks: [{ ...block, confirmations }] });
      return;
    }
    // Solo finders were paid by the coinbase itself: their credit moves straight to paid.
    const balances: BalanceDelta[] = creditEntries(block).map(([address, v]) =>
      block.solo ? { address, immature: -v, paid: v } : { address, immature: -v, pending: v },
    );
    await this.store.apply({ blocks: [{ ...block, status: 'confirmed', confirmations }], balances });
    this.log.info({ hash: block.hash, height: block.height }, 'block matured');
  }

  /** The active chain no longer holds a credited block: its credits go, and PROP's next block takes its shares. */
  private async withdraw(block: BlockRecord): Promise<BlockRecord> {
    const meta: Record<string, string> = {};
    if (block.rounds.length > 0) meta['prop.carry'] = JSON.stringify([...(await propCarry(this.store)), ...block.rounds]);
    const side: BlockRecord = { ...block, status: 'side', confirmations: 0, credits: {}, rounds: [] };
    await this.store.apply({
      blocks: [side],
      balances: creditEntries(block).map(([address, v]) => ({ address, immature: -v })),
      meta,
    });
    this.log.warn({ hash: block.hash, height: block.height }, 'block left the active chain: its credits are withdrawn until it is back');
    return side;
  }

  private async orphan(block: BlockRecord): Promise<void> {
    await this.store.apply({ blocks: [{ ...block, status: 'orphaned', confirmations: 0 }] });
    this.log.warn({ hash: block.hash, height: block.height }, 'block orphaned: not on the active chain at maturity, never paid');
  }

  private async placeOf(block: BlockRecord): Promise<Place> {
    try {
      const info = await this.rpc.call('getblock', [block.hash, 1]);
      // Verbosity 1 answers the block as an object whose tx are txids.
      if (typeof info !== 'object' || typeof info.confirmations !== 'number') throw new Error('getblock answered without verbosity 1');
      // -1: stored on a side branch. A coinbase that is not the pool's cannot be paid (a wrong record).
      if (info.confirmations < 1 || info.tx[0] !== block.coinbaseTxid) return { kind: 'off' };
      return { kind: 'active', confirmations: info.confirmations };
    } catch (e) {
      // -5: the node does not have it (it never got it, or lost it with its data).
      if (e instanceof RpcError && e.code === -5) return { kind: 'off' };
      this.log.warn({ err: (e as Error).message, hash: block.hash }, 'cannot check a block now');
      return { kind: 'unknown' };
    }
  }
}
