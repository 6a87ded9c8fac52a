/**
 * What the wallet RPC methods share: finding the wallet a call addresses, turning wallet failures
 * into Core's error codes, and parsing addresses and address types as Core does.
 */
import { AddressError, addressToScript, decodeAddress, destinationToScript, type Destination } from '@cs/consensus';
import type { WalletRpcContext } from './context.ts';
import { RpcError, RpcErrorCode, type RpcErrorCodeValue } from '../../rpc/errors.ts';
import type { RpcCallContext } from '../../rpc/registry.ts';
import { WalletError, type WalletErrorKind } from '../errors.ts';
import type { AddressType } from '../records.ts';
import type { Wallet } from '../wallet.ts';

const WALLET_PATH = '/wallet/';

/**
 * The wallet a call is for. csd has one wallet, the default one named "": calls on `/` and on
 * `/wallet/` reach it; `/wallet/<any other name>` is Core's -18.
 */
export function walletOf(ctx: WalletRpcContext, call: RpcCallContext): Wallet {
  const wallet = ctx.wallet;
  if (!wallet) throw new RpcError(RpcErrorCode.WALLET_NOT_FOUND, 'No wallet is loaded (the node runs with -disablewallet).');
  if (call.uri.startsWith(WALLET_PATH)) {
    let name: string;
    try {
      name = decodeURIComponent(call.uri.slice(WALLET_PATH.length));
    } catch {
      name = call.uri.slice(WALLET_PATH.length);
    }
    if (name !== wallet.name) throw new RpcError(RpcErrorCode.WALLET_NOT_FOUND, 'Requested wallet does not exist or is not loaded');
  }
  return wallet;
}

const CODES: Readonly<Record<WalletErrorKind, RpcErrorCodeValue>> = {
  locked: RpcErrorCode.WALLET_UNLOCK_NEEDED,
  'wrong-passphrase': RpcErrorCode.WALLET_PASSPHRASE_INCORRECT,
  'wrong-state': RpcErrorCode.WALLET_WRONG_ENC_STATE,
  'insufficient-funds': RpcErrorCode.WALLET_INSUFFICIENT_FUNDS,
  'create-failed': RpcErrorCode.WALLET_INSUFFICIENT_FUNDS,
  'invalid-address-or-key': RpcErrorCode.INVALID_ADDRESS_OR_KEY,
  'invalid-parameter': RpcErrorCode.INVALID_PARAMETER,
  'rescan-aborted': RpcErrorCode.MISC_ERROR,
  wallet: RpcErrorCode.WALLET_ERROR,
};

/**
 * Runs a handler body, turning a WalletError into Core's RPC error. `overrides` re-map kinds for
 * methods where Core differs (fundrawtransaction reports creation failures as -4).
 */
export async function walletCall<T>(fn: () => T | Promise<T>, overrides: Partial<Record<WalletErrorKind, RpcErrorCodeValue>> = {}): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof WalletError) throw new RpcError(overrides[e.kind] ?? CODES[e.kind], e.message);
    throw e;
  }
}

/** An address of this network, or -5 with Core's "Invalid Bitcoin address: …" wording (the chain's name instead). */
export function parseAddress(ctx: WalletRpcContext, address: string): Uint8Array {
  try {
    return addressToScript(address, ctx.params.address);
  } catch (e) {
    if (!(e instanceof AddressError)) throw e;
    throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `Invalid cs address: ${address}`);
  }
}

/** The decoded address, or -5 with the decoder's reason (getaddressinfo, signmessage). */
export function decodeAddressOrThrow(ctx: WalletRpcContext, address: string, message?: string): { destination: Destination; script: Uint8Array } {
  try {
    const destination = decodeAddress(address, ctx.params.address);
    return { destination, script: destinationToScript(destination) };
  } catch (e) {
    if (!(e instanceof AddressError)) throw e;
    throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, message ?? e.message);
  }
}

/** Core's ParseOutputType for the types this wallet has: bech32 and legacy; p2sh-segwit and bech32m are known but not offered. */
export function parseAddressType(text: string | undefined, fallback: AddressType): AddressType {
  if (text === undefined) return fallback;
  if (text === 'bech32' || text === 'legacy') return text;
  if (text === 'p2sh-segwit' || text === 'bech32m') {
    throw new RpcError(RpcErrorCode.WALLET_KEYPOOL_RAN_OUT, `Error: No ${text} addresses available.`);
  }
  throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `Unknown address type '${text}'`);
}

/** Core's LabelFromValue: "*" is reserved. */
export function parseLabel(label: string): string {
  if (label === '*') throw new RpcError(RpcErrorCode.WALLET_INVALID_LABEL_NAME, 'Invalid label name');
  return label;
}

/** A sample address for help examples. */
export const EXAMPLE_ADDRESS = 'csrt1qqyqszqgpqyqszqgpqyqszqgpqyqszqgpjvle9z';
export const EXAMPLE_TXID = '1075db55d416d3ca199f55b6084e2115b9345e16c5cf302fc80e9d5fbf5d48d2';
