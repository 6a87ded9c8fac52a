import { registerOpoiMethods } from '../opoi/rpc.ts';
import { registerBlockchainMethods } from '../rpc/methods/blockchain.ts';
import { registerMiningMethods } from '../rpc/methods/mining.ts';
import { registerNetworkMethods } from '../p2p/rpc.ts';
import { registerRawTransactionMethods } from '../rpc/methods/rawtransactions.ts';
import { registerUtilMethods } from '../rpc/methods/util.ts';
import { registerWalletMethods } from '../wallet/rpc/register.ts';
import type { RpcRegistry } from '../rpc/registry.ts';
import { registerSnapshotMethods } from '../snapshot/rpc.ts';
import { registerZmqMethods } from '../zmq/rpc.ts';
import type { NodeContext } from './context.ts';

/** Every RPC method that needs the node, by category. Control methods are registered separately. */
export function registerNodeMethods(registry: RpcRegistry, ctx: NodeContext): void {
  registerBlockchainMethods(registry, ctx);
  registerSnapshotMethods(registry, ctx);
  registerRawTransactionMethods(registry, ctx);
  registerMiningMethods(registry, ctx);
  registerUtilMethods(registry, ctx);
  registerWalletMethods(registry, ctx);
  registerZmqMethods(registry, ctx);
  registerOpoiMethods(registry, ctx);
  registerNetworkMethods(registry, ctx);
}
