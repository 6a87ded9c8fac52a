import {
  Block,
  BlockHeader,
  Transaction,
  Writer,
  bip34HeightPush,
  compactToTarget,
  hashMeetsTarget,
  merkleRoot,
  mineHeader,
  sha256d,
  witnessCommitment,
  witnessCommitmentScript,
  witnessMerkleRoot,
  type ChainParams,
  type TxOut,
} from '@cs/consensus';

/** The BIP141 witness reserved value our coinbases carry: all zero, as Core's miner uses. */
export const WITNESS_RESERVED_VALUE = new Uint8Array(32);

export interface CoinbaseSpec {
  readonly height: number;
  /** Outputs paying subsidy and fees (the commitment output is appended separately). */
  readonly outputs: readonly TxOut[];
  /** Free bytes after the height push; miners vary them to get a new merkle root. */
  readonly extraNonce: Uint8Array;
}

/**
 * A coinbase whose scriptSig is the BIP34 height push followed by the extra nonce, with the
 * witness reserved value as its witness (the commitment needs it).
 */
export function createCoinbase(spec: CoinbaseSpec): Transaction {
  const scriptSig = new Writer(8 + spec.extraNonce.length).bytes(bip34HeightPush(spec.height));
  // A push keeps the scriptSig parseable whatever the nonce bytes are.
  scriptSig.u8(spec.extraNonce.length).bytes(spec.extraNonce);
  return new Transaction({
    version: 1,
    inputs: [
      {
        prevout: { txid: new Uint8Array(32), vout: 0xffffffff },
        scriptSig: scriptSig.finish(),
        sequence: 0xffffffff,
        witness: [WITNESS_RESERVED_VALUE],
      },
    ],
    outputs: [...spec.outputs],
    locktime: 0,
  });
}

/** Appends the BIP141 commitment output for `txs` (coinbase first) to the coinbase. */
export function addWitnessCommitment(txs: readonly Transaction[]): Transaction[] {
  const coinbase = txs[0];
  const commitment = witnessCommitment(witnessMerkleRoot(txs).root, WITNESS_RESERVED_VALUE);
  const withCommitment = new Transaction({
    ...coinbase,
    outputs: [...coinbase.outputs, { value: 0n, scriptPubKey: witnessCommitmentScript(commitment) }],
  });
  return [withCommitment, ...txs.slice(1)];
}

export interface BlockTemplateSpec {
  readonly prevHash: Uint8Array;
  readonly time: number;
  readonly bits: number;
  /** Coinbase first, commitment included. */
  readonly txs: readonly Transaction[];
}

/** A block with an all-zero nonce and no solution yet. */
export function assembleBlock(spec: BlockTemplateSpec): Block {
  const header = new BlockHeader({
    version: 4,
    prevHash: spec.prevHash,
    merkleRoot: merkleRoot(spec.txs.map((t) => t.txid)).root,
    reserved: new Uint8Array(32),
    time: spec.time,
    bits: spec.bits,
    nonce: new Uint8Array(32),
    solution: new Uint8Array(0),
  });
  return new Block(header, spec.txs);
}

/**
 * Searches nonces until a solution's block hash meets the block's bits. Returns null after
 * `maxNonces` nonces (generatetoaddress's maxtries).
 */
export function solveBlock(block: Block, params: ChainParams, maxNonces: number): Block | null {
  const { target } = compactToTarget(block.header.bits);
  const found = mineHeader(params.equihash, block.header.prefix(), {
    maxNonces,
    accept: (h140, sol) => hashMeetsTarget(sha256d(new Writer(180).bytes(h140).varBytes(sol).finish()), target),
  });
  if (!found) return null;
  const header = new BlockHeader({ ...block.header, nonce: found.header140.slice(108), solution: found.solution });
  return new Block(header, block.txs);
}
