/**
 * Block templates: what the next block on the active tip should hold (Core's
 * BlockAssembler::CreateNewBlock without the coinbase, which every consumer builds for its own
 * payout), and the template cache getblocktemplate serves pools from.
 */
import { blockSubsidy, merkleRoot, witnessCommitment, witnessCommitmentScript, type Block, type Transaction } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Chain } from '../chain/chainstate.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { BlockSelection } from '../mempool/selection.ts';
import type { FeeRate } from '../policy/feerate.ts';
import { BLOCK_VERSION, WITNESS_RESERVED_VALUE, createBlock } from './assemble.ts';

/** How much of the mempool a template takes (-blockmaxweight, -blockmintxfee). */
export interface TemplateOptions {
  /** Block weight including the coinbase's 4000-unit reservation (selectForBlock clamps it). */
  readonly maxWeight: number;
  /** Packages paying less than this (units per kvB, modified fees) stay out. */
  readonly minFeeRate: FeeRate;
  /**
   * -blocktemplaterefresh: after the mempool changed, a cached template is rebuilt only once it is
   * older than this (0: at once). Core's fixed 5 s is the default: pools poll getblocktemplate every
   * few seconds and a new transaction is worth little compared to the cost of selecting a whole
   * block again. A new tip always rebuilds at once.
   */
  readonly refreshSeconds: number;
}

export interface BlockTemplate {
  /** The block the template extends: the active tip when it was built. */
  readonly prev: BlockIndexEntry;
  readonly height: number;
  readonly version: number;
  readonly bits: number;
  /** The earliest time the block may carry: one second after the median time past (Core's GetMinimumTime). */
  readonly minTime: number;
  /** The selected mempool transactions with fees, sigops, weights and depends. */
  readonly selection: BlockSelection;
  readonly txs: readonly Transaction[];
  /** Subsidy plus the selected transactions' fees: the most the coinbase may pay out. */
  readonly coinbaseValue: bigint;
  /**
   * The BIP141 commitment output script for exactly these transactions, with the all-zero
   * witness reserved value in the coinbase witness (getblocktemplate's default_witness_commitment).
   */
  readonly witnessCommitment: Uint8Array;
}

/** Assembles a template on the active tip from the mempool's best packages. */
export function createBlockTemplate(chain: Chain, mempool: Mempool, opts: TemplateOptions): BlockTemplate {
  const prev = chain.tip;
  const height = prev.height + 1;
  const bits = chain.nextWorkRequired(prev);
  const selection = mempool.selectForBlock({ maxWeight: opts.maxWeight, minFeeRate: opts.minFeeRate });
  const txs = selection.txs.map((s) => s.entry.tx);
  return {
    prev,
    height,
    version: BLOCK_VERSION,
    bits,
    minTime: minimumTime(prev),
    selection,
    txs,
    coinbaseValue: blockSubsidy(height, chain.params) + selection.totalFees,
    witnessCommitment: defaultWitnessCommitment(txs),
  };
}

/**
 * The commitment output script for a block holding `txs` after its coinbase. The coinbase's
 * wtxid counts as zero in the witness merkle tree, so the commitment does not depend on the
 * coinbase a pool builds, only on the transactions and the (all-zero) witness reserved value.
 */
export function defaultWitnessCommitment(txs: readonly Transaction[]): Uint8Array {
  const root = merkleRoot([new Uint8Array(32), ...txs.map((tx) => tx.wtxid)]).root;
  return witnessCommitmentScript(witnessCommitment(root, WITNESS_RESERVED_VALUE));
}

/** Core's GetMinimumTime: a block must be later than the median time past of its parent. */
export function minimumTime(prev: BlockIndexEntry): number {
  return prev.medianTimePast() + 1;
}

/**
 * Core's UpdateTime: the node's clock, but never at or before the median time past, which
 * would make the block invalid (time-too-old).
 */
export function blockTime(prev: BlockIndexEntry, now: number): number {
  return Math.max(minimumTime(prev), now);
}

/** The template as a complete unsolved block whose coinbase pays the whole coinbase value to `payTo`. */
export function blockFromTemplate(template: BlockTemplate, payTo: Uint8Array, time: number): Block {
  return createBlock({ prev: template.prev, bits: template.bits, time, payTo, value: template.coinbaseValue, txs: template.txs });
}

/** A cached template with what it was built from. */
export interface CachedTemplate {
  readonly template: BlockTemplate;
  /** TemplateSource.transactionsUpdated when the template was built (the number in the longpollid). */
  readonly transactionsUpdated: number;
  /** Node clock (Unix seconds) when it was built. */
  readonly builtAt: number;
}

/** The shape of the last block assembled, for getmininginfo's currentblockweight and currentblocktx. */
export interface AssembledStats {
  /** Weight of the selected transactions plus the coinbase reservation, as Core counts it. */
  readonly weight: number;
  /** Transactions besides the coinbase. */
  readonly txCount: number;
}

/**
 * Where templates come from: Core's getblocktemplate cache (its static pindexPrev, time_start and
 * nTransactionsUpdatedLast) plus the counter longpolling watches. One instance serves a node.
 */
export class TemplateSource {
  readonly #chain: Chain;
  readonly #mempool: Mempool;
  readonly #opts: TemplateOptions;
  readonly #now: () => number;
  #cached: CachedTemplate | undefined;
  #lastAssembled: AssembledStats | undefined;
  /** prioritisetransaction calls: they change the template without moving the mempool's sequence. */
  #prioritisations = 0;

  constructor(chain: Chain, mempool: Mempool, opts: TemplateOptions, now: () => number) {
    this.#chain = chain;
    this.#mempool = mempool;
    this.#opts = opts;
    this.#now = now;
  }

  /**
   * Core's nTransactionsUpdated: moves whenever the template's transactions could change. The
   * mempool sequence counts every addition and removal; prioritisations are added on top. Both
   * only grow, so their sum changes whenever either does.
   */
  get transactionsUpdated(): number {
    return this.#mempool.sequence + this.#prioritisations;
  }

  /** The counter as of the cached template (0 before the first): what a longpoll without an id watches. */
  get lastTransactionsUpdated(): number {
    return this.#cached?.transactionsUpdated ?? 0;
  }

  /** The last block assembled (by getblocktemplate or the generate methods), if any. */
  get lastAssembled(): AssembledStats | undefined {
    return this.#lastAssembled;
  }

  /** prioritisetransaction: changes the transaction's modified fee and counts as a template change. */
  prioritise(txid: string, delta: bigint): void {
    this.#mempool.prioritise(txid, delta);
    this.#prioritisations++;
  }

  /**
   * getblocktemplate's template: the cached one unless the tip moved, or the mempool changed and
   * the cached one is older than the refresh time (with 0, at once).
   */
  current(): CachedTemplate {
    const cached = this.#cached;
    const now = this.#now();
    const refresh = this.#opts.refreshSeconds;
    const stale =
      cached === undefined ||
      cached.template.prev !== this.#chain.tip ||
      (cached.transactionsUpdated !== this.transactionsUpdated && (refresh === 0 || now - cached.builtAt > refresh));
    if (!stale) return cached;
    const fresh: CachedTemplate = { template: this.create(), transactionsUpdated: this.transactionsUpdated, builtAt: now };
    this.#cached = fresh;
    return fresh;
  }

  /** A fresh template, bypassing the cache (the generate methods mine on the very latest state). */
  create(): BlockTemplate {
    const template = createBlockTemplate(this.#chain, this.#mempool, this.#opts);
    this.#lastAssembled = { weight: template.selection.weight, txCount: template.txs.length };
    return template;
  }
}
