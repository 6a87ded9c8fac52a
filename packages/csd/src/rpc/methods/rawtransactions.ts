/**
 * The Rawtransactions category, as Core's rpc/rawtransaction.cpp and rpc/mempool.cpp offer it:
 * looking transactions up, decoding transactions and scripts, building unsigned transactions, and
 * submitting (or test-submitting) signed ones to the mempool. Each concern has its module in
 * rawtransactions/; this registers them all.
 */
import type { ChainContext } from '../context.ts';
import type { RpcRegistry } from '../registry.ts';
import { registerCreateMethods } from './rawtransactions/create.ts';
import { registerDecodeMethods } from './rawtransactions/decode.ts';
import { registerLookupMethods } from './rawtransactions/lookup.ts';
import { registerSubmitMethods } from './rawtransactions/submit.ts';

export function registerRawTransactionMethods(registry: RpcRegistry, ctx: ChainContext): void {
  registerLookupMethods(registry, ctx);
  registerDecodeMethods(registry, ctx);
  registerCreateMethods(registry, ctx);
  registerSubmitMethods(registry, ctx);
}
