import type { ChainContext } from '../../rpc/context.ts';
import type { Wallet } from '../wallet.ts';

/** What the wallet's RPC methods may use of a running node: the chain's context and the wallet. */
export interface WalletRpcContext extends ChainContext {
  /** The node's wallet; absent with -disablewallet. */
  readonly wallet?: Wallet;
}
