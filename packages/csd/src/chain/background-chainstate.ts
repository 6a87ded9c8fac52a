import type { Logger } from 'pino';
import { Block, type ChainParams, MANDATORY_SCRIPT_VERIFY_FLAGS, ValidationError, hashToHex } from '@cs/consensus';
import type { ChainDatabase } from '../storage/database.ts';
import { ActiveChain } from './active-chain.ts';
import { type BlockIndexEntry, BlockStatus } from './block-index.ts';
import { BlockStore } from './block-store.ts';
import type { Coin } from './coins.ts';
import { type CoinSource, planConnect } from './connect.ts';
import { OpoiStore } from './opoi-store.ts';
import { describeScriptFailure } from './script-check.ts';
import type { ScriptVerifier } from './script-verifier.ts';
import { hashState } from './snapshot-format.ts';
import { encodeUndo } from './undo.ts';
import { UtxoSet } from './utxo-set.ts';

export interface BackgroundOptions {
  /** The node's database: this chain state works in its background view. */
  readonly db: ChainDatabase;
  readonly params: ChainParams;
  readonly verifier: ScriptVerifier;
  readonly log: Logger;
  readonly coinsCacheBytes?: number;
  /** The snapshot's base block: validation ends there. */
  readonly target: BlockIndexEntry;
}

/** What connecting the next block came to. */
export type BackgroundStep = 'connected' | 'waiting' | { readonly failed: BlockIndexEntry; readonly error: ValidationError };

/**
 * The chain state validated from genesis while the node runs on a loaded snapshot (Core's
 * background chainstate): its own coins and OPoI state tables (the database's background view),
 * its own tip, the blocks and their index shared with the active chain. It connects the active
 * chain's blocks up to the snapshot's base with every check a block at the tip gets, writing their
 * undo data as the active chain would, so that once it is done the history below the base is as
 * if the node had synced it. It announces nothing: the wallet and the indexes follow the active chain.
 */
export class BackgroundChainstate implements CoinSource {
  readonly db: ChainDatabase;
  readonly target: BlockIndexEntry;
  private readonly store: BlockStore;
  private readonly utxo: UtxoSet;
  private readonly opoi: OpoiStore;
  private readonly active = new ActiveChain();

  constructor(private readonly opts: BackgroundOptions) {
    this.db = opts.db.background();
    this.target = opts.target;
    this.store = new BlockStore(this.db);
    this.utxo = new UtxoSet(this.db, opts.log, { cacheBytes: opts.coinsCacheBytes });
    this.opoi = new OpoiStore(this.db, opts.params.opoi);
  }

  /**
   * Continues from the tip the background view records (its tables hold that block's state), after
   * replaying into its UTXO set the blocks a crash left unwritten, as the active chain does at load.
   */
  resume(entry: (hashHex: string) => BlockIndexEntry | undefined): void {
    const stored = this.store.storedTip();
    const tip = stored ? entry(hashToHex(stored)) : undefined;
    if (!tip || this.target.ancestor(tip.height) !== tip) throw new Error('the background chain state names no block below the snapshot base');
    this.active.setTip(tip);
    this.utxo.catchUp(this.active, entry, (e) => this.store.readBlock(e));
    this.opoi.reload();
  }

  get tip(): BlockIndexEntry {
    return this.active.tip;
  }

  get done(): boolean {
    return this.active.tip === this.target;
  }

  /** The unwritten coins, for getchainstates. */
  get cacheBytes(): number {
    return this.utxo.cacheUsage.bytes;
  }

  getCoinByKey(key: Uint8Array): Coin | undefined {
    return this.utxo.get(key);
  }

  /** Connects the block after the tip, when it is stored; 'waiting' when it is not (yet). */
  async connectNext(): Promise<BackgroundStep> {
    const entry = this.target.ancestor(this.tip.height + 1)!;
    const raw = this.store.readRawBlock(entry);
    if (!raw) return 'waiting';
    const flags = MANDATORY_SCRIPT_VERIFY_FLAGS;
    const checks = this.opts.verifier.session(raw, flags);
    let block: Block;
    let plan: ReturnType<typeof planConnect>;
    let opoi: ReturnType<OpoiStore['connectBlock']>;
    try {
      block = Block.decode(raw);
      plan = planConnect(block, entry, this, this.opts.params, flags, (tx, t, spent) => checks.add(tx, t, spent));
      checks.flush();
      opoi = this.opoi.connectBlock(block, plan.undo, entry.height, entry.hash);
    } catch (e) {
      await checks.abort();
      if (!(e instanceof ValidationError)) throw e;
      return { failed: entry, error: e };
    }
    const failure = await checks.finish();
    if (failure) {
      const error = new ValidationError(describeScriptFailure(failure), `tx ${block.txs[failure.txIndex].txidHex} input ${failure.input}`);
      return { failed: entry, error };
    }
    entry.status |= BlockStatus.VALID_SCRIPTS;
    this.utxo.connect(entry, plan, this.store.connectedRecords(entry, encodeUndo(plan.undo), opoi), { catchingUp: true, mayDefer: false });
    this.active.extend(entry);
    return 'connected';
  }

  /** Writes the cached coins and answers the snapshot hash of this chain state (snapshot-format.ts). */
  hash(): string {
    this.utxo.flush(this.tip);
    return hashState(this.db.stateTables());
  }

  /** Writes the cached coins and stops the writer thread. */
  close(): Promise<void> {
    return this.utxo.close(this.tip);
  }

  /** Stops the writer thread writing nothing more (Chain.halt). */
  halt(): Promise<void> {
    return this.utxo.halt();
  }
}
