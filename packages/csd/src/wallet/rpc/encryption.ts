/**
 * Wallet RPC methods for encryption: encryptwallet, walletpassphrase, walletlock,
 * walletpassphrasechange (Core's wallet/rpc/encrypt.cpp), with Core's codes: -13 while locked,
 * -14 for a wrong passphrase, -15 in the wrong encryption state.
 */
import type { WalletRpcContext } from './context.ts';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { MAX_UNLOCK_SECONDS } from '../encryption.ts';
import { WalletError } from '../errors.ts';
import { walletCall, walletOf } from './common.ts';

function nonEmpty(passphrase: string): string {
  if (passphrase === '') throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'passphrase cannot be empty');
  return passphrase;
}

export function registerEncryptionMethods(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registry.register({
    name: 'encryptwallet',
    category: 'Wallet',
    description:
      "Encrypts the wallet with 'passphrase'. This is for first time encryption.\n" +
      'After this, any calls that interact with private keys such as sending or signing\n' +
      'will require the passphrase to be set prior the making these calls.\n' +
      'Use the walletpassphrase call for this, and then walletlock call.\n' +
      'If the wallet is already encrypted, use the walletpassphrasechange call.\n' +
      'The HD seed and imported keys are encrypted with a random master key (AES-256-GCM), which is\n' +
      'itself encrypted with a key derived from the passphrase by scrypt. Addresses keep coming from the\n' +
      'same seed, so earlier backups stay valid but hold the keys unencrypted.',
    params: [
      {
        name: 'passphrase',
        type: 'string',
        description: 'The pass phrase to encrypt the wallet with. It must be at least 1 character, but should be long.',
      },
    ],
    result: '"str"    (string) A string with further instructions',
    examples: [{ args: ['my pass phrase'] }],
    handler: async ([passphrase], call) => {
      const wallet = walletOf(ctx, call);
      return walletCall(async () => {
        if (wallet.encryption.encrypted)
          throw new WalletError('wrong-state', 'Error: running with an encrypted wallet, but encryptwallet was called.');
        await wallet.encryption.encrypt(nonEmpty(passphrase));
        return 'wallet encrypted; You need to make a new backup with the backupwallet RPC.';
      });
    },
  });

  registry.register({
    name: 'walletpassphrase',
    category: 'Wallet',
    description:
      "Stores the wallet decryption key in memory for 'timeout' seconds.\n" +
      'This is needed prior to performing transactions related to private keys such as sending coins\n\n' +
      'Note:\n' +
      'Issuing the walletpassphrase command while the wallet is already unlocked will set a new unlock\n' +
      'time that overrides the old one.',
    params: [
      { name: 'passphrase', type: 'string', description: 'The wallet passphrase' },
      {
        name: 'timeout',
        type: 'integer',
        description: `The time to keep the decryption key in seconds; capped at ${MAX_UNLOCK_SECONDS} (~3 years).`,
      },
    ],
    result: 'null    (json null)',
    examples: [{ args: ['my pass phrase', 60], description: 'Unlock the wallet for 60 seconds' }],
    handler: async ([passphrase, timeout], call) => {
      const wallet = walletOf(ctx, call);
      return walletCall(async () => {
        if (!wallet.encryption.encrypted)
          throw new WalletError('wrong-state', 'Error: running with an unencrypted wallet, but walletpassphrase was called.');
        if (timeout < 0) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'Timeout cannot be negative.');
        await wallet.encryption.unlock(nonEmpty(passphrase), Math.min(timeout, MAX_UNLOCK_SECONDS));
        return null;
      });
    },
  });

  registry.register({
    name: 'walletlock',
    category: 'Wallet',
    description:
      'Removes the wallet encryption key from memory, locking the wallet.\n' +
      'After calling this method, you will need to call walletpassphrase again\n' +
      'before being able to call any methods which require the wallet to be unlocked.',
    params: [],
    result: 'null    (json null)',
    examples: [{ args: [] }],
    handler: async (_args, call) => {
      const wallet = walletOf(ctx, call);
      return walletCall(() => {
        if (!wallet.encryption.encrypted)
          throw new WalletError('wrong-state', 'Error: running with an unencrypted wallet, but walletlock was called.');
        wallet.encryption.lock();
        return null;
      });
    },
  });

  registry.register({
    name: 'walletpassphrasechange',
    category: 'Wallet',
    description: "Changes the wallet passphrase from 'oldpassphrase' to 'newpassphrase'.",
    params: [
      { name: 'oldpassphrase', type: 'string', description: 'The current passphrase' },
      { name: 'newpassphrase', type: 'string', description: 'The new passphrase' },
    ],
    result: 'null    (json null)',
    examples: [{ args: ['old one', 'new one'] }],
    handler: async ([oldPassphrase, newPassphrase], call) => {
      const wallet = walletOf(ctx, call);
      return walletCall(async () => {
        if (!wallet.encryption.encrypted) {
          throw new WalletError('wrong-state', 'Error: running with an unencrypted wallet, but walletpassphrasechange was called.');
        }
        await wallet.encryption.change(nonEmpty(oldPassphrase), nonEmpty(newPassphrase));
        return null;
      });
    },
  });
}
