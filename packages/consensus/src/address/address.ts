import { base58check as makeBase58check, bech32, bech32m } from '@scure/base';
import { sha256 } from '../crypto/hash.ts';
import { bytesEqual, concatBytes } from '../encoding/hex.ts';
import { p2pkhScript, p2shScript, solver, witnessProgram, witnessProgramScript } from '../script/standard.ts';

const base58check = makeBase58check(sha256);

/** Per-network address encodings (see params/networks.ts). */
export interface AddressPrefixes {
  /** Base58check version byte of pay-to-pubkey-hash addresses. */
  readonly pubkeyHash: number;
  /** Base58check version byte of pay-to-script-hash addresses. */
  readonly scriptHash: number;
  /** Base58check version byte of WIF private keys. */
  readonly wif: number;
  /** Human-readable part of segwit addresses (BIP173). */
  readonly bech32: string;
}

/** What an address stands for: Core's CTxDestination kinds that have an address form. */
export type Destination =
  | { readonly type: 'pubkeyhash'; readonly hash: Uint8Array }
  | { readonly type: 'scripthash'; readonly hash: Uint8Array }
  | { readonly type: 'witness'; readonly version: number; readonly program: Uint8Array };

export class AddressError extends Error {
  override readonly name = 'AddressError';
}

/** The output script paying to a destination. */
export function destinationToScript(d: Destination): Uint8Array {
  switch (d.type) {
    case 'pubkeyhash':
      return p2pkhScript(d.hash);
    case 'scripthash':
      return p2shScript(d.hash);
    case 'witness':
      return witnessProgramScript(d.version, d.program);
  }
}

/** Core's ExtractDestination: the destination of a script that has an address form, else null. */
export function scriptToDestination(script: Uint8Array): Destination | null {
  const { type, solutions } = solver(script);
  if (type === 'pubkeyhash') return { type, hash: solutions[0] };
  if (type === 'scripthash') return { type, hash: solutions[0] };
  const wp = witnessProgram(script);
  return wp ? { type: 'witness', version: wp.version, program: wp.program.slice() } : null;
}

export function encodeDestination(d: Destination, net: AddressPrefixes): string {
  switch (d.type) {
    case 'pubkeyhash':
      return base58check.encode(concatBytes(Uint8Array.of(net.pubkeyHash), d.hash));
    case 'scripthash':
      return base58check.encode(concatBytes(Uint8Array.of(net.scriptHash), d.hash));
    case 'witness': {
      // BIP350: version 0 keeps bech32, later versions use bech32m.
      const coder = d.version === 0 ? bech32 : bech32m;
      return coder.encode(net.bech32, [d.version, ...coder.toWords(d.program)]);
    }
  }
}

/** The address of an output script, or null when the script has no address form. */
export function scriptToAddress(script: Uint8Array, net: AddressPrefixes): string | null {
  const d = scriptToDestination(script);
  return d ? encodeDestination(d, net) : null;
}

/**
 * Parses an address of this network. Errors name the reason, as Core's validateaddress
 * `error` field does, so RPC callers can show why an address was refused.
 */
export function decodeAddress(address: string, net: AddressPrefixes): Destination {
  if (typeof address !== 'string' || address.length === 0) throw new AddressError('Invalid address format');
  if (address.toLowerCase().startsWith(`${net.bech32}1`)) return decodeSegwit(address);
  let payload: Uint8Array;
  try {
    payload = base58check.decode(address);
  } catch {
    if (looksBech32(address)) throw new AddressError('Invalid or unsupported Segwit (Bech32) or Base58 encoding.');
    throw new AddressError('Invalid checksum or length of Base58 address');
  }
  if (payload.length !== 21) throw new AddressError('Invalid length for Base58 address');
  if (payload[0] === net.pubkeyHash) return { type: 'pubkeyhash', hash: payload.slice(1) };
  if (payload[0] === net.scriptHash) return { type: 'scripthash', hash: payload.slice(1) };
  throw new AddressError('Invalid or unsupported Base58-encoded address.');
}

function looksBech32(s: string): boolean {
  return /^[a-z0-9]+1[02-9ac-hj-np-z]+$/i.test(s);
}

function decodeSegwit(address: string): Destination {
  if (address !== address.toLowerCase() && address !== address.toUpperCase()) {
    throw new AddressError('Invalid Bech32 address: mixed case');
  }
  const lower = address.toLowerCase();
  let words: number[] | undefined;
  let variant: 'bech32' | 'bech32m' | undefined;
  const plain = bech32.decodeUnsafe(lower, 90);
  if (plain) {
    words = plain.words;
    variant = 'bech32';
  } else {
    const m = bech32m.decodeUnsafe(lower, 90);
    if (m) {
      words = m.words;
      variant = 'bech32m';
    }
  }
  if (!words || !variant) throw new AddressError('Invalid Bech32 checksum or characters');
  if (words.length === 0) throw new AddressError('Empty Bech32 data section');
  const version = words[0];
  if (version > 16) throw new AddressError('Invalid Bech32 address witness version');
  if ((version === 0) !== (variant === 'bech32')) {
    throw new AddressError(
      version === 0 ? 'Version 0 witness address must use Bech32 checksum' : 'Version 1+ witness address must use Bech32m checksum',
    );
  }
  const program = (variant === 'bech32' ? bech32 : bech32m).fromWordsUnsafe(words.slice(1));
  if (!program) throw new AddressError('Invalid padding in Bech32 data section');
  if (program.length < 2 || program.length > 40) throw new AddressError('Invalid Bech32 address program size');
  if (version === 0 && program.length !== 20 && program.length !== 32) {
    throw new AddressError('Invalid Bech32 v0 address program size');
  }
  return { type: 'witness', version, program };
}

export function addressToScript(address: string, net: AddressPrefixes): Uint8Array {
  return destinationToScript(decodeAddress(address, net));
}

export function isValidAddress(address: string, net: AddressPrefixes): boolean {
  try {
    decodeAddress(address, net);
    return true;
  } catch {
    return false;
  }
}

export function destinationsEqual(a: Destination, b: Destination): boolean {
  return bytesEqual(destinationToScript(a), destinationToScript(b));
}
