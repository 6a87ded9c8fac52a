import type { Logger } from 'pino';
import type { ChainParams, Transaction } from '@cs/consensus';
import type { Chain } from '../chain/chainstate.ts';
import type { NodeConfig } from '../config/node-config.ts';
import type { FeeEstimator } from '../fees/estimator.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { NodeClock } from './clock.ts';

/**
 * Confirmed transactions by txid, as getrawtransaction uses them. Declared here rather than
 * beside the index (indexes/tx-index.ts implements it) because the index sits a layer above.
 */
export interface TxIndex {
  /** The confirmed transaction with this txid (display hex) and the hash of its block, if indexed. */
  find(txid: string): Promise<{ readonly tx: Transaction; readonly blockHash: string } | undefined>;
  /** Whether the index has caught up with the active chain (Core waits for it; csd answers from what is indexed). */
  synced(): boolean;
}

/**
 * What the chain's own RPC methods (blockchain, mining, raw transactions, util) may use of a
 * running node. Handlers get this object, never the storage underneath: the chain, mempool and
 * estimator are the only ways in. The subsystems above extend it with their own parts
 * (wallet/rpc, opoi, p2p, rest, ws), and the node's context (node/context.ts) is all of them.
 */
export interface ChainContext {
  readonly config: NodeConfig;
  readonly params: ChainParams;
  readonly chain: Chain;
  readonly mempool: Mempool;
  readonly feeEstimator: FeeEstimator;
  readonly clock: NodeClock;
  readonly log: Logger;
  /** -txindex (on by default): getrawtransaction finds confirmed transactions without a block hash. */
  readonly txIndex?: TxIndex;
}
