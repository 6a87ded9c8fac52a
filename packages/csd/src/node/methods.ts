import { registerMiningMethods } from '../rpc/methods/mining.ts';
import type { RpcRegistry } from '../rpc/registry.ts';
import type { NodeContext } from './context.ts';

/** Every RPC method that needs the node, by category. Control methods are registered separately. */
export function registerNodeMethods(registry: RpcRegistry, ctx: NodeContext): void {
  registerMiningMethods(registry, ctx);
}
