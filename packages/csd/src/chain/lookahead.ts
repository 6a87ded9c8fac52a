import { type Block, type ChainParams, MANDATORY_SCRIPT_VERIFY_FLAGS, ValidationError, hashToHex } from '@cs/consensus';
import type { BlockIndexEntry } from './block-index.ts';
import type { Coin } from './coins.ts';
import { type CoinSource, type ConnectPlan, planConnect } from './connect.ts';
import type { ScriptCheckSession, ScriptVerifier } from './script-verifier.ts';

/**
 * Blocks announced by expect() that may wait for their turn: a sync's downloads queue a few per
 * peer; the oldest announcements go first.
 */
const MAX_WAITING_BLOCKS = 16;

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

/**
 * Holds the one lookahead there may be, and the blocks announced to come that a lookahead may be
 * planned from.
 */
export class LookaheadPlanner {
  /** The next block, planned while the tip's scripts were checked. */
  private planned: Lookahead | null = null;
  /** Blocks announced to come (expect), by parent hash. */
  private readonly waiting = new Map<string, ReadBlock>();

  constructor(
    private readonly verifier: ScriptVerifier,
    private readonly params: ChainParams,
  ) {}

  /**
   * Announces a block that will be connected soon, so that it can be planned while its parent's
   * scripts are checked. Only a hint: the block is checked when its turn comes.
   */
  expect(block: Block, raw: Uint8Array): void {
    const parentHex = hashToHex(block.header.prevHash);
    if (this.waiting.has(parentHex)) return;
    if (this.waiting.size >= MAX_WAITING_BLOCKS) this.waiting.delete(this.waiting.keys().next().value!);
    this.waiting.set(parentHex, { hashHex: block.header.hashHex, block, raw, unchecked: true });
  }

  /** `block`'s turn came: it waits no longer. */
  started(block: Block): void {
    const parentHex = hashToHex(block.header.prevHash);
    if (this.waiting.get(parentHex)?.block === block) this.waiting.delete(parentHex);
  }

  /** The block announced on top of `parentHex`, if any. */
  waitingOn(parentHex: string): ReadBlock | null {
    return this.waiting.get(parentHex) ?? null;
  }

  /**
   * The lookahead planned for `entry`, if it is the one planned on top of `tip` (and, for a block
   * not yet checked, from `processing`, the very object being connected); any other is dropped,
   * its script checks abandoned.
   */
  async take(entry: BlockIndexEntry, tip: BlockIndexEntry, processing: Block | null): Promise<Lookahead | null> {
    const ahead = this.planned;
    if (!ahead) return null;
    this.planned = null;
    // The same hash means the same parent entry: the tip check covers both.
    const same = ahead.hashHex === entry.hashHex && (!ahead.unchecked || ahead.block === processing);
    if (same && ahead.parent === tip) return ahead;
    await ahead.checks.abort();
    return null;
  }

  async drop(): Promise<void> {
    const ahead = this.planned;
    this.planned = null;
    await ahead?.checks.abort();
  }

  /**
   * Plans `next` on top of `entry` (being connected, with `plan`, over `coins`) and hands its
   * inputs to the script threads. A block that fails a rule here is left alone: it fails again,
   * and is marked failed, when it is connected for real.
   */
  async plan(entry: BlockIndexEntry, plan: ConnectPlan, coins: CoinSource, next: ReadBlock): Promise<void> {
    const started = performance.now();
    if (hashToHex(next.block.header.prevHash) !== entry.hashHex) return;
    const checks = this.verifier.session(next.raw, MANDATORY_SCRIPT_VERIFY_FLAGS);
    try {
      const place = { height: entry.height + 1, prev: entry };
      const nextPlan = planConnect(next.block, place, new PlannedCoins(plan, coins), this.params, MANDATORY_SCRIPT_VERIFY_FLAGS, (tx, t, spent) =>
        checks.add(tx, t, spent),
      );
      checks.flush();
      this.planned = { ...next, parent: entry, plan: nextPlan, checks, planSeconds: (performance.now() - started) / 1000 };
    } catch (e) {
      await checks.abort();
      if (!(e instanceof ValidationError)) throw e;
    }
  }
}
