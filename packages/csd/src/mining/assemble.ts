import { randomBytes } from 'node:crypto';
import {
  Block,
  BlockHeader,
  MIN_BLOCK_VERSION,
  Transaction,
  Writer,
  bip34HeightPush,
  compactToTarget,
  findWitnessCommitment,
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
import type { BlockIndexEntry } from '../chain/block-index.ts';

/** The header version of every block we build: the Zcash v4 layout is the only one this chain has. */
export const BLOCK_VERSION = MIN_BLOCK_VERSION;

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

/**
 * Core's UpdateUncommittedBlockStructures: a block whose coinbase carries a witness commitment
 * but no witness gets the all-zero witness reserved value. Pools often serialize the coinbase
 * without its witness (stratum jobs hash the stripped form), and the value is the one our
 * templates commit to. Neither the txid nor the block hash changes. Returns the block itself
 * when nothing was missing.
 */
export function addMissingWitnessNonce(block: Block): Block {
  const [coinbase, ...rest] = block.txs;
  // A block without transactions or inputs is left for the chain to reject.
  if (coinbase === undefined || coinbase.inputs.length === 0 || coinbase.hasWitness || findWitnessCommitment(coinbase) < 0) return block;
  const [input, ...otherInputs] = coinbase.inputs;
  const filled = new Transaction({ ...coinbase, inputs: [{ ...input, witness: [WITNESS_RESERVED_VALUE] }, ...otherInputs] });
  return new Block(block.header, [filled, ...rest]);
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

/** What a new block on `prev` holds besides the coinbase's fixed parts. */
export interface NewBlockSpec {
  readonly prev: BlockIndexEntry;
  readonly bits: number;
  readonly time: number;
  /** The coinbase's single payout output. */
  readonly payTo: Uint8Array;
  readonly value: bigint;
  /** The transactions after the coinbase, parents before children. */
  readonly txs: readonly Transaction[];
}

/** Random per process, so that two csd runs never build the same coinbase either. */
const EXTRA_NONCE_PREFIX = randomBytes(4);
let extraNonceCounter = 0;

/**
 * An 8-byte extra nonce unique within this process: two blocks on the same parent with the same
 * transactions and time must still differ (a block mined again after invalidateblock would
 * otherwise be the invalidated block itself).
 */
function nextExtraNonce(): Uint8Array {
  const nonce = new Uint8Array(8);
  nonce.set(EXTRA_NONCE_PREFIX, 0);
  new DataView(nonce.buffer).setUint32(4, extraNonceCounter++ >>> 0, true);
  return nonce;
}

/**
 * An unsolved block on `prev`: a coinbase with the BIP34 height and a fresh extra nonce paying
 * `value` to `payTo`, the transactions, and the witness commitment, which every block carries
 * (Core's miner adds it whatever the transactions).
 */
export function createBlock(spec: NewBlockSpec): Block {
  const coinbase = createCoinbase({
    height: spec.prev.height + 1,
    outputs: [{ value: spec.value, scriptPubKey: spec.payTo }],
    extraNonce: nextExtraNonce(),
  });
  return assembleBlock({ prevHash: spec.prev.hash, time: spec.time, bits: spec.bits, txs: addWitnessCommitment([coinbase, ...spec.txs]) });
}

/** A block with an all-zero nonce and no solution yet. */
export function assembleBlock(spec: BlockTemplateSpec): Block {
  const header = new BlockHeader({
    version: BLOCK_VERSION,
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

export interface MiningAttempt {
  /** The solved block, or null when no nonce within the budget gave a hash meeting the bits. */
  readonly block: Block | null;
  /** Nonces spent: what a caller with a shared budget (generatetoaddress's maxtries) deducts. */
  readonly noncesTried: number;
}

/**
 * Searches nonces from the block's own nonce upwards until a solution's block hash meets the
 * block's bits, trying at most `maxNonces` of them.
 */
export function mineBlock(block: Block, params: ChainParams, maxNonces: number): MiningAttempt {
  const { target } = compactToTarget(block.header.bits);
  const found = mineHeader(params.equihash, block.header.prefix(), {
    maxNonces,
    accept: (h140, sol) => hashMeetsTarget(sha256d(new Writer(180).bytes(h140).varBytes(sol).finish()), target),
  });
  // Without a find, mineHeader used the whole budget (or ran out of nonces, which ends it as well).
  if (!found) return { block: null, noncesTried: maxNonces };
  const header = new BlockHeader({ ...block.header, nonce: found.header140.slice(108), solution: found.solution });
  return { block: new Block(header, block.txs), noncesTried: found.noncesTried };
}

/**
 * Searches nonces until a solution's block hash meets the block's bits. Returns null after
 * `maxNonces` nonces.
 */
export function solveBlock(block: Block, params: ChainParams, maxNonces: number): Block | null {
  return mineBlock(block, params, maxNonces).block;
}
