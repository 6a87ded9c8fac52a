/**
 * backupwallet and restorewallet (Core's wallet/rpc/backup.cpp and wallet.cpp). csd keeps the
 * wallet inside the node's database, so a backup is a file of the wallet's records rather than a
 * copy of a database file; restorewallet loads one into a node whose wallet was never used.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { WalletRpcContext } from './context.ts';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { encodeBackup, readBackupFile, writeBackupFile } from '../backup.ts';
import { walletCall, walletOf } from './common.ts';

export function registerBackupMethods(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registry.register({
    name: 'backupwallet',
    category: 'Wallet',
    description:
      "Safely copies the wallet's records to a destination, which can be a directory or a path with filename.\n" +
      "A relative path is taken from csd's working directory, as in Core. The copy is one consistent\n" +
      'snapshot, written to a temporary file and renamed into place.',
    params: [{ name: 'destination', type: 'string', description: 'The destination directory or file' }],
    result: 'null    (json null)',
    examples: [{ args: ['backup.dat'] }],
    handler: async ([destination], call) => {
      const wallet = walletOf(ctx, call);
      const bytes = encodeBackup(ctx.params.name, wallet.store.records());
      try {
        await writeBackupFile(resolve(destination), bytes);
      } catch (err) {
        ctx.log.warn({ err }, 'wallet backup failed');
        throw new RpcError(RpcErrorCode.WALLET_ERROR, 'Error: Wallet backup failed!');
      }
      return null;
    },
  });

  registry.register({
    name: 'restorewallet',
    category: 'Wallet',
    description:
      'Restores the wallet from a backup file made by backupwallet, then rescans the chain from the block the\n' +
      'backup was taken at. csd has one wallet, named "": it is replaced only if it was never used (no address\n' +
      'handed out, nothing imported, no transaction, not encrypted) — start csd on a new data directory, then restore.',
    params: [
      { name: 'wallet_name', type: 'string', description: 'The name of the wallet to restore: "" (the only wallet csd has).' },
      { name: 'backup_file', type: 'string', description: 'The backup file that will be used to restore the wallet.' },
      { name: 'load_on_startup', type: 'boolean', optional: true, description: 'Ignored: the wallet always loads on startup.' },
    ],
    result: ['{                       (json object)', '  "name" : "str"         (string) The wallet name if restored successfully.', '}'].join('\n'),
    examples: [{ args: ['', 'backup.dat'] }],
    handler: async ([walletName, backupFile], call) => {
      const wallet = walletOf(ctx, call);
      if (walletName !== wallet.name) throw new RpcError(RpcErrorCode.WALLET_ERROR, 'csd has one wallet, named ""; restore into it');
      const path = resolve(backupFile);
      if (!existsSync(path)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Backup file does not exist');
      if (!wallet.isUnused())
        throw new RpcError(RpcErrorCode.WALLET_ALREADY_EXISTS, 'Wallet already exists and has been used: restore into a node whose wallet is new');
      let records;
      try {
        records = await readBackupFile(path, ctx.params.name);
      } catch (e) {
        throw new RpcError(RpcErrorCode.WALLET_ERROR, `Wallet file verification failed: ${(e as Error).message}`);
      }
      return walletCall(async () => {
        await wallet.restore(records);
        return { name: wallet.name };
      });
    },
  });
}
