import { base58check as makeBase58check } from '@scure/base';
import { sha256 } from '../crypto/hash.ts';
import { isValidPrivateKey } from '../crypto/secp256k1.ts';
import { AddressError, type AddressPrefixes } from './address.ts';

const base58check = makeBase58check(sha256);

export interface WifKey {
  readonly privateKey: Uint8Array;
  /** Whether the matching public key is used in its 33-byte compressed form. */
  readonly compressed: boolean;
}

/** Wallet Import Format: version byte, 32-byte key, 0x01 when the public key is compressed. */
export function encodeWif(key: WifKey, net: AddressPrefixes): string {
  const payload = new Uint8Array(key.compressed ? 34 : 33);
  payload[0] = net.wif;
  payload.set(key.privateKey, 1);
  if (key.compressed) payload[33] = 1;
  return base58check.encode(payload);
}

export function decodeWif(wif: string, net: AddressPrefixes): WifKey {
  let payload: Uint8Array;
  try {
    payload = base58check.decode(wif);
  } catch {
    throw new AddressError('Invalid private key encoding');
  }
  if (payload[0] !== net.wif) throw new AddressError('Invalid private key encoding');
  const compressed = payload.length === 34 && payload[33] === 1;
  if (!compressed && payload.length !== 33) throw new AddressError('Invalid private key encoding');
  const privateKey = payload.slice(1, 33);
  if (!isValidPrivateKey(privateKey)) throw new AddressError('Private key outside allowed range');
  return { privateKey, compressed };
}
