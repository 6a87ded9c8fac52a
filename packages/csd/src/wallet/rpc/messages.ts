/**
 * Signed messages: signmessage (a wallet method) and verifymessage (a Util method that needs no
 * wallet), in Bitcoin's format with this chain's magic string (docs/protocol.md §8). Core accepts
 * only legacy (P2PKH) addresses; csd also takes bech32 P2WPKH addresses, whose key signs the same
 * way: a signature made for one verifies for the other address of the same key.
 */
import { solver } from '@cs/consensus';
import type { WalletRpcContext } from './context.ts';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { decodeBase64Strict, signMessage, verifyMessage } from '../message.ts';
import { EXAMPLE_ADDRESS, decodeAddressOrThrow, walletCall, walletOf } from './common.ts';
import { keyOwnershipOf } from './keys.ts';

/** The key hash an address pays to, or Core's -3 for addresses that do not refer to a single key. */
function keyHashOf(ctx: WalletRpcContext, address: string): { keyHash: Uint8Array; script: Uint8Array } {
  const { script } = decodeAddressOrThrow(ctx, address, 'Invalid address');
  const { type, solutions } = solver(script);
  if (type !== 'pubkeyhash' && type !== 'witness_v0_keyhash') throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Address does not refer to key');
  return { keyHash: solutions[0], script };
}

export function registerSignMessageMethod(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registry.register({
    name: 'signmessage',
    category: 'Wallet',
    description:
      'Sign a message with the private key of an address\nRequires wallet passphrase to be set with walletpassphrase call if wallet is encrypted.',
    params: [
      { name: 'address', type: 'string', description: 'The cs address (legacy or bech32 P2WPKH) to use for the private key.' },
      { name: 'message', type: 'string', description: 'The message to create a signature of.' },
    ],
    result: '"str"    (string) The signature of the message encoded in base 64',
    examples: [{ args: [EXAMPLE_ADDRESS, 'my message'] }],
    handler: async ([address, message], call) => {
      const wallet = walletOf(ctx, call);
      return walletCall(() => {
        const masterKey = wallet.encryption.requireKey();
        const { script } = keyHashOf(ctx, address);
        const own = keyOwnershipOf(wallet, script);
        if (!own) throw new RpcError(RpcErrorCode.WALLET_ERROR, 'Private key not available');
        const privateKey = wallet.keyring.privateKey(own, masterKey);
        try {
          return signMessage(privateKey, own.publicKey.length === 33, ctx.params.messageMagic, message);
        } finally {
          privateKey.fill(0);
        }
      });
    },
  });
}

export function registerVerifyMessageMethod(registry: RpcRegistry, ctx: WalletRpcContext): void {
  registry.register({
    name: 'verifymessage',
    category: 'Util',
    description: 'Verify a signed message.',
    params: [
      { name: 'address', type: 'string', description: 'The cs address (legacy or bech32 P2WPKH) to use for the signature.' },
      { name: 'signature', type: 'string', description: 'The signature provided by the signer in base 64 encoding (see signmessage).' },
      { name: 'message', type: 'string', description: 'The message that was signed.' },
    ],
    result: 'true|false    (boolean) If the signature is verified or not.',
    examples: [{ args: [EXAMPLE_ADDRESS, 'signature', 'my message'] }],
    handler: async ([address, signature, message]) => {
      const { keyHash } = keyHashOf(ctx, address);
      const bytes = decodeBase64Strict(signature);
      if (!bytes) throw new RpcError(RpcErrorCode.TYPE_ERROR, 'Malformed base64 encoding');
      return verifyMessage(bytes, keyHash, ctx.params.messageMagic, message);
    },
  });
}
