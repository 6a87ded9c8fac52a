/**
 * The Wallet category: the node wallet's RPC methods, as Core's wallet/rpc/*.cpp offer them, one
 * module per concern in this folder; this registers them all. Wallet methods exist only when the
 * node has a wallet (not -disablewallet); signrawtransactionwithkey and verifymessage, which need
 * no wallet, always do.
 */
import type { WalletRpcContext } from './context.ts';
import { registerBackupMethods } from './backup.ts';
import { registerBalanceMethods } from './balances.ts';
import { registerEncryptionMethods } from './encryption.ts';
import { registerHistoryMethods } from './history.ts';
import { registerKeyMethods } from './keys.ts';
import { registerSignMessageMethod, registerVerifyMessageMethod } from './messages.ts';
import { registerKeySigningMethods, registerWalletSigningMethods } from './signing.ts';
import { registerSpendingMethods } from './spending.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';

export function registerWalletMethods(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registerKeySigningMethods(registry, ctx);
  registerVerifyMessageMethod(registry, ctx);
  const { wallet } = ctx;
  if (!wallet) return;
  // A rescan started over RPC ends when the server stops, as Core's does on a shutdown request.
  registry.stopping.addEventListener('abort', () => wallet.rescanner.abort(), { once: true });
  registerKeyMethods(registry, ctx);
  registerBalanceMethods(registry, ctx);
  registerHistoryMethods(registry, ctx);
  registerSpendingMethods(registry, ctx);
  registerWalletSigningMethods(registry, ctx);
  registerEncryptionMethods(registry, ctx);
  registerSignMessageMethod(registry, ctx);
  registerBackupMethods(registry, ctx);
}
