/**
 * Typed access to the shared PoW test vectors (<repo>/../shared/vectors), for the tests beside this
 * file. Only the fields the tests read are typed; each file's `conventions`/`params` explain them.
 */
import { readFileSync } from 'node:fs';
import { fromHex } from '../encoding/hex.ts';

// This file sits in <repo>/packages/consensus/src/pow/.
const VECTORS_DIR = new URL('../../../../../shared/vectors/', import.meta.url);

function load<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, VECTORS_DIR), 'utf8')) as T;
}

export interface IndexVector {
  readonly id: string;
  readonly n: number;
  readonly k: number;
  readonly personalization: string;
  readonly input_hex: string;
  readonly nonce_hex: string;
  readonly solution_indices?: number[];
  readonly solution_minimal_hex?: string;
  readonly expected_valid: boolean;
  readonly expected_error_librustzcash?: string;
}

export interface HeaderVector {
  readonly id: string;
  readonly n: number;
  readonly k: number;
  readonly personalization: string;
  readonly input_hex: string;
  readonly nonce_hex: string;
  readonly solution_minimal_hex: string;
  readonly solution_compactsize_hex?: string;
  readonly header_hex?: string;
  readonly header140_hex?: string;
  readonly block_hash?: string;
  readonly expected_valid: boolean;
}

export interface EquihashZcashVectors {
  readonly conventions: { readonly blake2b_personalization: string };
  readonly valid: IndexVector[];
  readonly invalid: IndexVector[];
  readonly block_header_vectors: HeaderVector[];
  readonly encoding_vectors: {
    readonly expand_compress_arrays: { case: string; bit_len: number; byte_pad: number; compact_hex: string; expanded_hex: string }[];
    readonly minimal_solution_representation: { case: string; collision_bit_len: number; indices: number[]; minimal_hex: string }[];
  };
}

export interface FluxBlock {
  readonly height: number;
  readonly hash: string;
  readonly header_hex: string;
  readonly header140_hex: string;
  readonly solution_hex: string;
}

export interface ZelhashFluxVectors {
  readonly params: {
    readonly n: number;
    readonly k: number;
    readonly personalization_hex: string;
    readonly blake2b_digest_len: number;
    readonly indices_per_hash: number;
    readonly collision_bit_length: number;
    readonly solution_indices: number;
    readonly solution_bytes: number;
  };
  readonly blocks: FluxBlock[];
  readonly extra_valid_solution_block_400000: { header140_hex: string; solution_hex: string };
  readonly twist_generation_vector_block_400000: {
    readonly header140_hex: string;
    readonly rows: number;
    readonly row_bytes: number;
    readonly expected_rows_hex: string;
  };
  readonly other_flux_mainnet_headers: {
    readonly height: number;
    readonly hash: string;
    readonly header_hex: string;
    readonly solution_compactsize_hex: string;
  }[];
}

export interface GenesisEntry {
  readonly chain: string;
  readonly network: string;
  readonly n: number;
  readonly k: number;
  readonly hash: string;
  readonly header_hex: string | null;
  readonly chainparams_fields: {
    readonly nTime: number;
    readonly nNonce_uint256: string;
    readonly nSolution_hex: string;
    readonly nBits: string;
    readonly nVersion: number;
    readonly hashMerkleRoot: string;
  };
}

export interface GenesisVectors {
  readonly genesis: GenesisEntry[];
}

/**
 * Header bytes 0..139 rebuilt from CreateGenesisBlock's arguments: version, zero prevhash, merkle
 * root and nonce byte-reversed from their display hex, zero reserved field, little-endian time and bits.
 */
export function genesisHeader140(fields: GenesisEntry['chainparams_fields']): Uint8Array {
  const header = new Uint8Array(140);
  const view = new DataView(header.buffer);
  view.setUint32(0, fields.nVersion, true);
  header.set(fromHex(fields.hashMerkleRoot).reverse(), 36);
  view.setUint32(100, fields.nTime, true);
  view.setUint32(104, Number(fields.nBits), true);
  header.set(fromHex(fields.nNonce_uint256).reverse(), 108);
  return header;
}

export const equihashZcash = (): EquihashZcashVectors => load('equihash-zcash.json');
export const zelhashFlux = (): ZelhashFluxVectors => load('zelhash-flux-mainnet.json');
export const genesisHeaders = (): GenesisVectors => load('genesis-headers.json');
