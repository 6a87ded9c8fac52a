import { bytesEqual } from '../encoding/hex.ts';
import type { ChainParams } from '../params/networks.ts';
import { verifyHeaderSolution } from '../pow/equihash.ts';
import { checkProofOfWork } from '../pow/target.ts';
import { findWitnessCommitment, witnessCommitment, witnessMerkleRoot, type Block } from '../primitives/block.ts';
import type { BlockHeader } from '../primitives/header.ts';
import type { Transaction } from '../primitives/tx.ts';
import { LOCKTIME_THRESHOLD } from '../script/checker.ts';
import { getLegacySigOpCount } from '../script/sigops.ts';
import { ValidationError } from './errors.ts';
import { MAX_BLOCK_SIGOPS_COST, MAX_BLOCK_WEIGHT, WITNESS_SCALE_FACTOR } from './limits.ts';
import { checkTransaction } from './tx-checks.ts';

/** Zcash's MIN_BLOCK_VERSION: the v4 header layout is the only one this chain has. */
export const MIN_BLOCK_VERSION = 4;

/**
 * Core/Zcash CheckBlockHeader: version, the reserved field, the Equihash solution and the
 * proof of work. Needs nothing but the header and the network.
 */
export function checkBlockHeader(header: BlockHeader, params: ChainParams, checkPoW = true): void {
  if (header.version < MIN_BLOCK_VERSION) throw new ValidationError('version-too-low');
  // Kept zero so that a later soft fork can give the field a meaning (docs/protocol.md).
  if (header.reserved.some((b) => b !== 0)) throw new ValidationError('bad-reserved-field');
  if (!checkPoW) return;
  if (!verifyHeaderSolution(params.equihash, header.prefix(), header.solution)) {
    throw new ValidationError('invalid-solution', 'Equihash solution invalid');
  }
  if (!checkProofOfWork(header.hash, header.bits, params.powLimit)) throw new ValidationError('high-hash', 'proof of work failed');
}

export interface CheckBlockOptions {
  readonly checkPoW?: boolean;
  readonly checkMerkleRoot?: boolean;
}

/** Core's CheckBlock plus the segwit commitment rules (active from genesis on this chain). */
export function checkBlock(block: Block, params: ChainParams, opts: CheckBlockOptions = {}): void {
  checkBlockHeader(block.header, params, opts.checkPoW ?? true);

  if (opts.checkMerkleRoot ?? true) {
    const { root, mutated } = block.computeMerkleRoot();
    if (!bytesEqual(root, block.header.merkleRoot)) throw new ValidationError('bad-txnmrklroot', 'hashMerkleRoot mismatch', true);
    // Identical adjacent txids give a second transaction list with the same root.
    if (mutated) throw new ValidationError('bad-txns-duplicate', 'duplicate transaction', true);
  }

  const txs = block.txs;
  if (txs.length === 0 || txs.length * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT || block.strippedSize * WITNESS_SCALE_FACTOR > MAX_BLOCK_WEIGHT) {
    throw new ValidationError('bad-blk-length', 'size limits failed');
  }
  if (!txs[0].isCoinbase()) throw new ValidationError('bad-cb-missing', 'first tx is not coinbase');
  for (let i = 1; i < txs.length; i++) {
    if (txs[i].isCoinbase()) throw new ValidationError('bad-cb-multiple', 'more than one coinbase');
  }
  for (const tx of txs) {
    try {
      checkTransaction(tx);
    } catch (e) {
      if (e instanceof ValidationError) throw new ValidationError(e.reason, `transaction ${tx.txidHex} check failed`);
      throw e;
    }
  }
  let sigops = 0;
  for (const tx of txs) sigops += getLegacySigOpCount(tx);
  if (sigops * WITNESS_SCALE_FACTOR > MAX_BLOCK_SIGOPS_COST) throw new ValidationError('bad-blk-sigops', 'out-of-bounds SigOpCount');

  checkWitnessCommitment(block);
  if (block.weight > MAX_BLOCK_WEIGHT) throw new ValidationError('bad-blk-weight', 'weight limit failed');
}

/**
 * BIP141: with a commitment in the coinbase, its witness must be the single 32-byte reserved
 * value and the commitment must match; without one, no transaction may carry a witness.
 */
function checkWitnessCommitment(block: Block): void {
  const coinbase = block.txs[0];
  const pos = findWitnessCommitment(coinbase);
  if (pos >= 0) {
    const w = coinbase.inputs[0].witness;
    if (w.length !== 1 || w[0].length !== 32) {
      throw new ValidationError('bad-witness-nonce-size', 'invalid witness reserved value size', true);
    }
    const expected = witnessCommitment(witnessMerkleRoot(block.txs).root, w[0]);
    if (!bytesEqual(expected, coinbase.outputs[pos].scriptPubKey.subarray(6, 38))) {
      throw new ValidationError('bad-witness-merkle-match', 'witness merkle commitment mismatch', true);
    }
    return;
  }
  if (block.txs.some((tx) => tx.hasWitness)) throw new ValidationError('unexpected-witness', 'unexpected witness data found', true);
}

/** What header checks need to know about the chain the header extends. */
export interface HeaderContext {
  /** The bits the difficulty rule demands for this height (LWMA3, or powLimit on regtest). */
  readonly expectedBits: number;
  /** Median time of the previous 11 blocks. */
  readonly medianTimePast: number;
  /** The node's adjusted clock, in Unix seconds. */
  readonly now: number;
}

/** Core's ContextualCheckBlockHeader for this chain: difficulty, and time within its window. */
export function contextualCheckBlockHeader(header: BlockHeader, ctx: HeaderContext, params: ChainParams): void {
  if (header.bits !== ctx.expectedBits) throw new ValidationError('bad-diffbits', 'incorrect proof of work');
  if (header.time <= ctx.medianTimePast) throw new ValidationError('time-too-old', "block's timestamp is too early");
  if (header.time > ctx.now + params.maxFutureBlockTime) {
    throw new ValidationError('time-too-new', 'block timestamp too far in the future');
  }
}

/** Core's IsFinalTx: a locktime in the past (height or time, by the threshold) or all inputs final. */
export function isFinalTx(tx: Transaction, height: number, blockTime: number): boolean {
  if (tx.locktime === 0) return true;
  const cutoff = tx.locktime < LOCKTIME_THRESHOLD ? height : blockTime;
  if (tx.locktime < cutoff) return true;
  return tx.inputs.every((i) => i.sequence === 0xffffffff);
}

/**
 * Core's ContextualCheckBlock for this chain: every transaction final at the block's height
 * against the median time past (BIP113), and the height first in the coinbase (BIP34).
 */
export function contextualCheckBlock(block: Block, height: number, medianTimePast: number): void {
  for (const tx of block.txs) {
    if (!isFinalTx(tx, height, medianTimePast)) throw new ValidationError('bad-txns-nonfinal', 'non-final transaction');
  }
  const expected = bip34HeightPush(height);
  const scriptSig = block.txs[0].inputs[0].scriptSig;
  if (scriptSig.length < expected.length || !bytesEqual(scriptSig.subarray(0, expected.length), expected)) {
    throw new ValidationError('bad-cb-height', 'block height mismatch in coinbase');
  }
}

/** The scriptSig prefix BIP34 requires: the height as a minimal script number push (CScript() << height). */
export function bip34HeightPush(height: number): Uint8Array {
  if (height === 0) return Uint8Array.of(0x00);
  if (height <= 16) return Uint8Array.of(0x50 + height);
  const bytes: number[] = [];
  let v = height;
  while (v > 0) {
    bytes.push(v & 0xff);
    v = Math.floor(v / 256);
  }
  if (bytes[bytes.length - 1] & 0x80) bytes.push(0);
  return Uint8Array.of(bytes.length, ...bytes);
}
