import type { Logger } from 'pino';
import type { ChainParams } from '@cs/consensus';
import type { Chain } from '../chain/chainstate.ts';
import type { NodeConfig } from '../config/node-config.ts';
import type { FeeEstimator } from '../fees/estimator.ts';
import type { AddressIndex } from '../indexes/address-index.ts';
import type { TransactionIndex } from '../indexes/tx-index.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { OpoiContentStore } from '../opoi/content.ts';
import type { Network } from '../p2p/network.ts';
import type { Wallet } from '../wallet/wallet.ts';
import type { NodeClock } from './clock.ts';

/**
 * What RPC methods and other interfaces may use of a running node. Handlers get this object,
 * never the storage underneath: the chain, mempool and estimator are the only ways in.
 */
export interface NodeContext {
  readonly config: NodeConfig;
  readonly params: ChainParams;
  readonly chain: Chain;
  readonly mempool: Mempool;
  readonly feeEstimator: FeeEstimator;
  readonly clock: NodeClock;
  readonly log: Logger;
  /** -txindex (on by default): confirmed transactions by txid. */
  readonly txIndex?: TransactionIndex;
  /** -addressindex (on by default): activity by address, behind /rest/address. */
  readonly addressIndex?: AddressIndex;
  /** Published OPoI response content (the chain's OPoI state is `chain.opoi`). */
  readonly opoiContent: OpoiContentStore;
  /** The node's wallet; absent with -disablewallet. */
  readonly wallet?: Wallet;
  /** The peer-to-peer network (started last, once everything it serves is loaded). */
  readonly network?: Network;
}
