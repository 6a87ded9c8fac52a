/**
 * The Blockchain category, as Core's rpc/blockchain.cpp and rpc/mempool.cpp offer it: the active
 * chain and its blocks, the UTXO set, the mempool's contents, and invalidate/reconsider. Results
 * are shaped by format/json.ts, which REST shares, so both interfaces agree field for field. Each
 * concern has its module in blockchain/; this registers them all.
 */
import type { ChainContext } from '../context.ts';
import type { RpcRegistry } from '../registry.ts';
import { registerBlockMethods } from './blockchain/blocks.ts';
import { registerChainStateMethods } from './blockchain/chain-state.ts';
import { registerMempoolMethods } from './blockchain/mempool.ts';
import { registerUtxoSetMethods } from './blockchain/utxo-set.ts';

export function registerBlockchainMethods(registry: RpcRegistry, ctx: ChainContext): void {
  registerChainStateMethods(registry, ctx);
  registerBlockMethods(registry, ctx);
  registerUtxoSetMethods(registry, ctx);
  registerMempoolMethods(registry, ctx);
}
