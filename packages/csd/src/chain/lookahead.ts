import type { Block } from '@cs/consensus';
import type { BlockIndexEntry } from './block-index.ts';
import type { Coin } from './coins.ts';
import type { CoinSource, ConnectPlan } from './connect.ts';
import type { ScriptCheckSession } from './script-verifier.ts';

/** A block, decoded, with the buffer it was decoded from (which nothing else writes to). */
export interface ReadBlock {
  readonly hashHex: string;
  readonly block: Block;
  readonly raw: Uint8Array;
  /**
   * Waiting for its turn and not yet checked (a block just received): another block with the same
   * header (a mutated copy) may be the one that passes the checks, so a plan made from this one
   * is used only for this very object.
   */
  readonly unchecked?: boolean;
}

/**
 * The block expected to connect next, planned while its parent's scripts are still being checked:
 * its inputs reach the script threads before they run out of the parent's, so no thread waits
 * while the connecting thread writes the parent and looks up the child's coins. Nothing of it is
 * applied: it is used only if the parent connects and the child is the next block connected.
 */
export interface Lookahead extends ReadBlock {
  readonly parent: BlockIndexEntry;
  readonly plan: ConnectPlan;
  readonly checks: ScriptCheckSession;
  /** How long planning it took, counted in its own connect's plan phase. */
  readonly planSeconds: number;
}

/** The UTXO set as it will be once a planned block is applied to `base`. */
export class PlannedCoins implements CoinSource {
  constructor(
    private readonly plan: ConnectPlan,
    private readonly base: CoinSource,
  ) {}

  getCoinByKey(key: Uint8Array, id: string): Coin | undefined {
    // Created wins over spent: a block may spend a coin and create one with the same outpoint (BIP30).
    const created = this.plan.created.get(id);
    if (created) return created;
    return this.plan.spent.has(id) ? undefined : this.base.getCoinByKey(key, id);
  }
}
