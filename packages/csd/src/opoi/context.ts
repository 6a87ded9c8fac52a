import type { WalletRpcContext } from '../wallet/rpc/context.ts';
import type { OpoiContentStore } from './content.ts';

/**
 * What the OPoI RPC methods may use of a running node: the chain (whose OPoI state is
 * `chain.opoi`), the wallet that signs the actions, and the published response content.
 */
export interface OpoiContext extends WalletRpcContext {
  readonly opoiContent: OpoiContentStore;
}
