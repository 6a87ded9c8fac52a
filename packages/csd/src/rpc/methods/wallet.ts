/**
 * The Wallet category: the node wallet's RPC methods, as Core's wallet/rpc/*.cpp offer them. The
 * methods live beside the wallet (packages/csd/src/wallet/rpc/), one module per concern; this
 * registers them all. Wallet methods exist only when the node has a wallet (not -disablewallet);
 * signrawtransactionwithkey and verifymessage, which need no wallet, always do.
 */
import type { NodeContext } from '../../node/context.ts';
import { registerBackupMethods } from '../../wallet/rpc/backup.ts';
import { registerBalanceMethods } from '../../wallet/rpc/balances.ts';
import { registerEncryptionMethods } from '../../wallet/rpc/encryption.ts';
import { registerHistoryMethods } from '../../wallet/rpc/history.ts';
import { registerKeyMethods } from '../../wallet/rpc/keys.ts';
import { registerSignMessageMethod, registerVerifyMessageMethod } from '../../wallet/rpc/messages.ts';
import { registerKeySigningMethods, registerWalletSigningMethods } from '../../wallet/rpc/signing.ts';
import { registerSpendingMethods } from '../../wallet/rpc/spending.ts';
import type { RpcRegistry } from '../registry.ts';

export function registerWalletMethods(registry: RpcRegistry, ctx: NodeContext): void {
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
