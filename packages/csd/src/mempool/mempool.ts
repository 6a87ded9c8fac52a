import pino, { type Logger } from 'pino';
import { isFinalTx, type OutPoint, type Transaction } from '@cs/consensus';
import type { Chain } from '../chain/chainstate.ts';
import type { ChainBlockEvent } from '../chain/events.ts';
import { sequenceLocks, sequenceLocksSatisfied } from '../chain/sequence-locks.ts';
import type { FeeEstimator, TrackedTx } from '../fees/estimator.ts';
import { feeRateOf, type FeeRate } from '../policy/feerate.ts';
import { DEFAULT_POLICY, type PolicyOptions } from '../policy/policy.ts';
import { isReplaceable } from '../policy/rbf.ts';
import { OpoiMempoolRules } from './opoi-rules.ts';
import { validateForMempool, type AcceptContext } from './accept.ts';
import { MEMPOOL_HEIGHT, MempoolCoinView } from './coin-view.ts';
import { MempoolEntry } from './entry.ts';
import { MempoolEvents, type RemovalReason } from './events.ts';
import { evictionCandidate } from './eviction.ts';
import { DEFAULT_PACKAGE_LIMITS, type PackageLimits } from './limits.ts';
import { RollingMinimumFee } from './min-fee.ts';
import { NOTHING_LOADED, loadMempool, saveMempool, type LoadReport } from './persist.ts';
import { TxPool } from './pool.ts';
import { rejected, type AcceptResult } from './results.ts';
import { selectForBlock, type BlockSelection, type BlockSelectionOptions } from './selection.ts';

/** -maxmempool default: 300 MB of (estimated) memory. */
export const DEFAULT_MAX_MEMPOOL_BYTES = 300_000_000;
/** -mempoolexpiry default: two weeks. */
export const DEFAULT_MEMPOOL_EXPIRY_HOURS = 336;
/**
 * -mempoolfullrbf default: on, as in Core since 28.0. Replacement no longer needs BIP125
 * signalling: Core turned it on because enough miners already took non-signalled replacements
 * that the flag protected nobody, while honouring it made nodes' mempools disagree with blocks.
 */
export const DEFAULT_MEMPOOL_FULL_RBF = true;
/**
 * The pool must hold at least one maximal package comfortably: Core requires -maxmempool of at
 * least 40 bytes of memory per vbyte of -limitdescendantsize (5 MB with the defaults).
 */
const MIN_MEMPOOL_BYTES_PER_DESCENDANT_VBYTE = 40;
/** Fee estimation ignores transactions while the tip is older than this (Core's MAX_FEE_ESTIMATION_TIP_AGE). */
const MAX_FEE_ESTIMATION_TIP_AGE = 3 * 60 * 60;

export interface MempoolOptions {
  readonly chain: Chain;
  readonly policy?: Partial<PolicyOptions>;
  readonly limits?: Partial<PackageLimits>;
  /** -maxmempool in bytes (the option is in MB: × 1,000,000). */
  readonly maxMempoolBytes?: number;
  /** -mempoolexpiry. */
  readonly expiryHours?: number;
  /** -mempoolfullrbf. */
  readonly fullRbf?: boolean;
  /** Fed with every transaction that enters, leaves or confirms. */
  readonly feeEstimator?: FeeEstimator;
  /** Unix seconds; defaults to the chain's clock (mocktime on regtest). */
  readonly now?: () => number;
  readonly log?: Logger;
}

export interface AcceptOptions {
  /** testmempoolaccept: run every check, change nothing. */
  readonly testOnly?: boolean;
  /** Refuse a fee above this rate (units per kvB) times the virtual size, sigops counted (testmempoolaccept's maxfeerate). */
  readonly maxFeeRate?: FeeRate;
  /** Refuse a fee above this amount (sendrawtransaction's maxfeerate, applied to the size without sigops, as Core). */
  readonly maxFee?: bigint;
  /** Skip the fee floors and size limiting: for transactions of disconnected blocks. */
  readonly bypassLimits?: boolean;
  /** Entry time to record instead of now (mempool.dat keeps the original one). */
  readonly acceptTime?: number;
  /** Submitted locally: count it as unbroadcast until a peer has taken it. */
  readonly unbroadcast?: boolean;
}

/** getmempoolinfo, with amounts in base units (fee rates per kvB); see mempoolInfoJson. */
export interface MempoolInfo {
  readonly loaded: boolean;
  readonly size: number;
  /** Sum of virtual sizes. */
  readonly bytes: number;
  /** Estimated memory use (mempool/usage.ts). */
  readonly usage: number;
  readonly total_fee: bigint;
  readonly maxmempool: number;
  /** The higher of the rolling minimum and minrelaytxfee: what a transaction must pay now. */
  readonly mempoolminfee: FeeRate;
  readonly minrelaytxfee: FeeRate;
  readonly incrementalrelayfee: FeeRate;
  readonly unbroadcastcount: number;
  readonly fullrbf: boolean;
}

export interface Prioritisation {
  readonly txid: string;
  readonly feeDelta: bigint;
  readonly inMempool: boolean;
  /** Fee plus delta, when the transaction is in the pool. */
  readonly modifiedFee?: bigint;
}

/**
 * The memory pool: unconfirmed transactions that would be valid in the next block, admitted
 * under Core's relay policy (MemPoolAccept), limited in size and age, kept consistent with the
 * chain as blocks connect and disconnect, and ordered for block templates.
 */
export class Mempool {
  readonly events: MempoolEvents;
  private readonly pool = new TxPool();
  private readonly chain: Chain;
  private readonly opoi: OpoiMempoolRules;
  private readonly policy: PolicyOptions;
  readonly limits: PackageLimits;
  private readonly maxBytes: number;
  private readonly expirySeconds: number;
  private readonly fullRbf: boolean;
  private readonly estimator: FeeEstimator | undefined;
  private readonly now: () => number;
  private readonly log: Logger;
  private readonly rollingFee: RollingMinimumFee;
  /** prioritisetransaction deltas by txid, for transactions in the pool or not (Core's mapDeltas). */
  private readonly deltas = new Map<string, bigint>();
  private readonly unbroadcastSet = new Set<string>();
  private nextSequence = 1;
  private nextEntrySequence = 0;
  private loaded = false;
  /** Transactions of disconnected blocks, oldest block first, waiting for the reorg to finish. */
  private disconnected: Transaction[] = [];
  private reorgPending = false;

  constructor(opts: MempoolOptions) {
    this.chain = opts.chain;
    this.opoi = new OpoiMempoolRules(opts.chain);
    this.policy = { ...DEFAULT_POLICY, requireStandard: opts.chain.params.requireStandard, ...opts.policy };
    this.limits = { ...DEFAULT_PACKAGE_LIMITS, ...opts.limits };
    this.maxBytes = opts.maxMempoolBytes ?? DEFAULT_MAX_MEMPOOL_BYTES;
    const minBytes = this.limits.descendantSize * MIN_MEMPOOL_BYTES_PER_DESCENDANT_VBYTE;
    if (this.maxBytes < minBytes) throw new RangeError(`-maxmempool must be at least ${Math.ceil(minBytes / 1_000_000)} MB`);
    this.expirySeconds = (opts.expiryHours ?? DEFAULT_MEMPOOL_EXPIRY_HOURS) * 60 * 60;
    this.fullRbf = opts.fullRbf ?? DEFAULT_MEMPOOL_FULL_RBF;
    this.estimator = opts.feeEstimator;
    this.now = opts.now ?? opts.chain.now;
    this.log = opts.log ?? pino({ level: 'silent' });
    this.rollingFee = new RollingMinimumFee(this.policy.incrementalRelayFee, this.now());
    this.events = new MempoolEvents((event, err) => this.log.error({ event, err }, 'mempool event listener failed'));
    this.chain.events.on('connect', this.onConnect);
    this.chain.events.on('disconnect', this.onDisconnect);
    this.chain.events.on('tip', this.onTip);
  }

  /** Stops following the chain. */
  close(): void {
    this.chain.events.off('connect', this.onConnect);
    this.chain.events.off('disconnect', this.onDisconnect);
    this.chain.events.off('tip', this.onTip);
  }

  // ---- queries ----

  get size(): number {
    return this.pool.size;
  }

  /** Core's mempool sequence: bumped by every addition and removal. */
  get sequence(): number {
    return this.nextSequence;
  }

  get(txid: string): MempoolEntry | undefined {
    return this.pool.get(txid);
  }

  has(txid: string): boolean {
    return this.pool.get(txid) !== undefined;
  }

  byWtxid(wtxid: string): MempoolEntry | undefined {
    return this.pool.getByWtxid(wtxid);
  }

  /** The mempool transaction spending `outpoint`, if any. */
  spender(outpoint: OutPoint): MempoolEntry | undefined {
    return this.pool.spender(outpoint);
  }

  entries(): IterableIterator<MempoolEntry> {
    return this.pool.entries();
  }

  ancestors(entry: MempoolEntry): Set<MempoolEntry> {
    return this.pool.ancestorsOf(entry);
  }

  descendants(entry: MempoolEntry): Set<MempoolEntry> {
    return this.pool.descendantsOf(entry);
  }

  /** getmempoolentry's bip125-replaceable (without full RBF, whether a conflict could replace it). */
  isReplaceable(entry: MempoolEntry): boolean {
    return isReplaceable(entry, this.pool);
  }

  /** Unspent outputs of the chain plus outputs of mempool transactions (at MEMPOOL_HEIGHT). */
  coinView(): MempoolCoinView {
    return new MempoolCoinView(this.chain, this.pool);
  }

  /** The fee rate a transaction must pay to enter now: the rolling minimum or minrelaytxfee, whichever is higher. */
  minFee(): FeeRate {
    const rolling = this.rollingMinFee();
    // biome-ignore lint/complexity/useMathMinMax: fee rates are bigints
    return rolling > this.policy.minRelayFee ? rolling : this.policy.minRelayFee;
  }

  private rollingMinFee(): FeeRate {
    return this.rollingFee.current(this.now(), this.pool.usage, this.maxBytes);
  }

  info(): MempoolInfo {
    return {
      loaded: this.loaded,
      size: this.pool.size,
      bytes: this.pool.totalVsize,
      usage: this.pool.usage,
      total_fee: this.pool.totalFee,
      maxmempool: this.maxBytes,
      mempoolminfee: this.minFee(),
      minrelaytxfee: this.policy.minRelayFee,
      incrementalrelayfee: this.policy.incrementalRelayFee,
      unbroadcastcount: this.unbroadcastSet.size,
      fullrbf: this.fullRbf,
    };
  }

  // ---- admission ----

  /** Core's AcceptToMemoryPool (testmempoolaccept with testOnly). */
  accept(tx: Transaction, opts: AcceptOptions = {}): AcceptResult {
    const bypassLimits = opts.bypassLimits ?? false;
    const validation = validateForMempool(this.acceptContext(), tx, {
      bypassLimits,
      maxFeeRate: opts.maxFeeRate ?? null,
      maxFee: opts.maxFee ?? null,
    });
    if (!validation.ok) return validation.failure;
    const { plan } = validation;
    const replaced = [...plan.replaced];
    if (opts.testOnly) {
      return { kind: 'valid', txid: tx.txidHex, wtxid: tx.wtxidHex, fee: plan.fee, modifiedFee: plan.modifiedFee, vsize: plan.vsize, replaced };
    }

    this.removeEntries(plan.replaced, 'replaced', tx);
    const entry = new MempoolEntry({
      tx,
      fee: plan.fee,
      feeDelta: plan.modifiedFee - plan.fee,
      vsize: plan.vsize,
      sigOpCost: plan.sigOpCost,
      time: opts.acceptTime ?? this.now(),
      height: this.chain.tip.height,
      sequence: this.nextEntrySequence++,
    });
    this.pool.add(entry, plan.ancestors);
    this.opoi.added(tx, plan.spent);
    this.events.emit('added', { entry, sequence: this.nextSequence++ });
    // A child's wait depends on its parents, and a re-added transaction's on the reorg.
    const trackable = !bypassLimits && plan.ancestors.size === 0 && this.chainIsCurrent();
    this.estimator?.processTransaction(trackedTx(entry), trackable);
    if (opts.unbroadcast) this.unbroadcastSet.add(entry.txid);
    if (!bypassLimits) {
      this.limitSize();
      if (!this.pool.get(entry.txid)) return rejected('reconsiderable', 'mempool full');
    }
    return { kind: 'accepted', entry, replaced };
  }

  private acceptContext(): AcceptContext {
    return {
      chain: this.chain,
      pool: this.pool,
      policy: this.policy,
      limits: this.limits,
      fullRbf: this.fullRbf,
      mempoolMinFee: () => this.rollingMinFee(),
      feeDelta: (txid) => this.deltas.get(txid) ?? 0n,
      opoi: this.opoi,
    };
  }

  private chainIsCurrent(): boolean {
    return this.chain.tip.time >= this.now() - MAX_FEE_ESTIMATION_TIP_AGE;
  }

  // ---- prioritisation ----

  /** prioritisetransaction: adds `delta` to the fee the pool's rules see, now or when the transaction arrives. */
  prioritise(txid: string, delta: bigint): void {
    const total = (this.deltas.get(txid) ?? 0n) + delta;
    if (total === 0n) this.deltas.delete(txid);
    else this.deltas.set(txid, total);
    const entry = this.pool.get(txid);
    if (entry) this.pool.applyDelta(entry, delta);
  }

  /** getprioritisedtransactions. */
  prioritised(): Prioritisation[] {
    return [...this.deltas].map(([txid, feeDelta]) => {
      const entry = this.pool.get(txid);
      return entry ? { txid, feeDelta, inMempool: true, modifiedFee: entry.modifiedFee } : { txid, feeDelta, inMempool: false };
    });
  }

  // ---- unbroadcast ----

  /** Txids submitted locally that no peer has requested yet (rebroadcast candidates). */
  unbroadcast(): string[] {
    return [...this.unbroadcastSet];
  }

  /**
   * Submitted locally again while already in the pool: unbroadcast until a peer takes it, and
   * announced again to every peer that has not shown it knows it (Core's BroadcastTransaction,
   * AddUnbroadcastTx then RelayTransaction).
   */
  rebroadcast(txid: string): void {
    const entry = this.pool.get(txid);
    if (!entry) return;
    this.unbroadcastSet.add(txid);
    this.events.emit('rebroadcast', { entry });
  }

  /** A peer requested the transaction: it is out. */
  markBroadcast(txid: string): void {
    this.unbroadcastSet.delete(txid);
  }

  // ---- limits ----

  /**
   * Core's LimitMempoolSize: drop what is older than -mempoolexpiry (with descendants), then evict
   * the lowest descendant score until the pool fits -maxmempool, raising the rolling minimum fee
   * above each evicted package. Runs after every acceptance; a node also calls it periodically so
   * that expiry happens without traffic.
   */
  limitSize(): { readonly expired: number; readonly evicted: number } {
    const expired = this.pool.withDescendants(this.pool.enteredBefore(this.now() - this.expirySeconds));
    this.removeEntries(expired, 'expiry');
    let evicted = 0;
    for (let victim = this.overLimit(); victim; victim = this.overLimit()) {
      this.rollingFee.raise(feeRateOf(victim.modFeesWithDescendants, victim.sizeWithDescendants) + this.policy.incrementalRelayFee);
      const set = this.pool.withDescendants([victim]);
      evicted += set.size;
      this.removeEntries(set, 'sizelimit');
    }
    return { expired: expired.size, evicted };
  }

  private overLimit(): MempoolEntry | undefined {
    return this.pool.usage > this.maxBytes ? evictionCandidate(this.pool) : undefined;
  }

  /** Takes `set` out of the pool and announces each removal. */
  private removeEntries(set: ReadonlySet<MempoolEntry>, reason: RemovalReason, replacedBy?: Transaction): void {
    if (set.size === 0) return;
    this.pool.remove(set);
    for (const entry of [...set].sort((a, b) => a.sequence - b.sequence)) {
      this.unbroadcastSet.delete(entry.txid);
      this.opoi.removed(entry.txid);
      // Confirmations reach the estimator with the whole block (onConnect).
      if (reason !== 'block') this.estimator?.removeTx(entry.txid);
      this.events.emit('removed', { entry, reason, sequence: this.nextSequence++, ...(replacedBy ? { replacedBy } : {}) });
    }
  }

  // ---- block templates ----

  /** The transactions for the next block, best packages first, each after its parents. */
  selectForBlock(opts: BlockSelectionOptions = {}): BlockSelection {
    return selectForBlock(this.pool, opts);
  }

  // ---- following the chain ----

  /** Core's removeForBlock: confirmed transactions leave, then whatever spent the same coins. */
  private readonly onConnect = ({ block, entry: blockEntry }: ChainBlockEvent): void => {
    const confirmed: TrackedTx[] = [];
    const inBlock = new Set<string>();
    // An empty pool with nothing held back (initial sync, -reindex) has nothing a transaction of
    // the block could confirm, conflict with or clear: its ids and outpoints are not even built.
    const touches = this.pool.size > 0 || this.deltas.size > 0 || this.disconnected.length > 0;
    for (const tx of touches ? block.txs : []) {
      inBlock.add(tx.txidHex);
      const mine = this.pool.get(tx.txidHex);
      if (mine) {
        confirmed.push(trackedTx(mine));
        this.removeEntries(new Set([mine]), 'block');
      }
      this.removeConflicts(tx);
      this.deltas.delete(tx.txidHex);
    }
    this.rollingFee.blockConnected(this.now());
    this.estimator?.processBlock(blockEntry.height, confirmed);
    if (this.disconnected.length > 0) this.disconnected = this.disconnected.filter((tx) => !inBlock.has(tx.txidHex));
  };

  private removeConflicts(tx: Transaction): void {
    for (const input of tx.inputs) {
      const conflict = this.pool.spender(input.prevout);
      if (!conflict || conflict.txid === tx.txidHex) continue;
      this.deltas.delete(conflict.txid);
      this.removeEntries(this.pool.withDescendants([conflict]), 'conflict');
    }
  }

  /** A disconnected block's transactions wait until the reorg is over (the 'tip' event). */
  private readonly onDisconnect = ({ block }: ChainBlockEvent): void => {
    // Blocks leave newest first; putting each in front keeps parents before children.
    this.disconnected = [...block.txs.slice(1), ...this.disconnected];
    this.reorgPending = true;
  };

  private readonly onTip = (): void => {
    if (this.reorgPending) this.updateForReorg();
    const stale = this.opoi.invalidated().map((txid) => this.pool.get(txid)!);
    this.removeEntries(this.pool.withDescendants(stale), 'opoi');
  };

  /**
   * Core's MaybeUpdateMempoolForReorg: transactions of disconnected blocks come back (without the
   * fee floors; they were paid for once), in-pool spenders of those that cannot are dropped,
   * chains grown past the limits are trimmed, and whatever the lower chain made invalid for the
   * next block (locktime, BIP68, coinbase maturity) leaves with reason 'reorg'.
   */
  private updateForReorg(): void {
    const txs = this.disconnected;
    this.disconnected = [];
    this.reorgPending = false;
    const readded: MempoolEntry[] = [];
    for (const tx of txs) {
      // Offered again while the reorg was under way: already back.
      if (this.pool.get(tx.txidHex)) continue;
      const r = this.accept(tx, { bypassLimits: true });
      if (r.kind === 'accepted') {
        readded.push(r.entry);
        continue;
      }
      const orphans = tx.outputs.map((_, vout) => this.pool.spender({ txid: tx.txid, vout })).filter((e) => e !== undefined);
      this.removeEntries(this.pool.withDescendants(orphans), 'reorg');
    }

    const oversized: MempoolEntry[] = [];
    for (const entry of readded) {
      if (!this.pool.get(entry.txid)) continue;
      for (const d of this.pool.descendantsOf(entry)) {
        if (d.countWithAncestors > this.limits.ancestorCount || d.sizeWithAncestors > this.limits.ancestorSize) oversized.push(d);
      }
    }
    this.removeEntries(this.pool.withDescendants(oversized), 'sizelimit');

    const invalid = [...this.pool.entries()].filter((e) => !this.stillValidForNextBlock(e));
    this.removeEntries(this.pool.withDescendants(invalid), 'reorg');
    this.limitSize();
  }

  /** Core's filter_final_and_mature, plus inputs still existing. */
  private stillValidForNextBlock(entry: MempoolEntry): boolean {
    const tip = this.chain.tip;
    const nextHeight = tip.height + 1;
    if (!isFinalTx(entry.tx, nextHeight, tip.medianTimePast())) return false;
    const view = this.coinView();
    const prevHeights: number[] = [];
    for (const input of entry.tx.inputs) {
      const coin = view.getCoin(input.prevout);
      if (!coin) return false;
      if (coin.coinbase && nextHeight - coin.height < this.chain.params.coinbaseMaturity) return false;
      prevHeights.push(coin.height === MEMPOOL_HEIGHT ? nextHeight : coin.height);
    }
    return sequenceLocksSatisfied(sequenceLocks(entry.tx, prevHeights, tip), tip);
  }

  // ---- persistence ----

  /** Writes mempool.dat atomically (mempool/persist.ts). */
  save(path: string): Promise<void> {
    return saveMempool(this, path);
  }

  /**
   * Reads mempool.dat, offering each unexpired transaction again under the current rules. A
   * missing or unusable file leaves the pool empty; null (-persistmempool=0) reads nothing. Either
   * way the pool counts as loaded afterwards.
   */
  async load(path: string | null): Promise<LoadReport> {
    const report = path === null ? NOTHING_LOADED : await loadMempool(this, path, this.now() - this.expirySeconds, this.log);
    this.loaded = true;
    return report;
  }
}

function trackedTx(e: MempoolEntry): TrackedTx {
  return { txid: e.txid, fee: e.fee, vsize: e.vsize, height: e.height };
}
