/**
 * Core's TestBlockValidity: would this block be valid as the next block on the active tip? Every
 * rule is checked (header context, context-free block rules, transaction inputs and amounts, OPoI,
 * scripts) except the proof of work, and nothing is stored or connected. getblocktemplate's
 * proposal mode (BIP 23) and generateblock use it.
 */
import {
  MANDATORY_SCRIPT_VERIFY_FLAGS,
  ValidationError,
  bytesEqual,
  checkBlock,
  contextualCheckBlock,
  contextualCheckBlockHeader,
  type Block,
} from '@cs/consensus';
import { BlockIndexEntry } from '../chain/block-index.ts';
import type { Chain } from '../chain/chainstate.ts';
import { planConnect } from '../chain/connect.ts';
import { describeScriptFailure, runScriptChecks, type ScriptCheckItem } from '../chain/script-check.ts';

export interface ValidityOptions {
  /** False when the caller has not computed the merkle root yet (Core's check_merkle_root). */
  readonly checkMerkleRoot: boolean;
}

export interface ValidBlock {
  /** What the block's transactions pay in fees: the coinbase may claim the subsidy plus this. */
  readonly fees: bigint;
}

/**
 * Throws the first rule the block breaks as a ValidationError with Core's reject reason, in
 * Core's order (ContextualCheckBlockHeader, CheckBlock, ContextualCheckBlock, ConnectBlock).
 * A block not built on the current tip fails as `inconclusive-not-best-prevblk`: only the tip's
 * UTXO set is at hand to judge it.
 *
 * Runs synchronously from the tip check to the last script, so a block connecting meanwhile
 * (the chain's work is asynchronous) cannot change the coins under it halfway.
 */
export function testBlockValidity(chain: Chain, block: Block, opts: ValidityOptions): ValidBlock {
  const tip = chain.tip;
  if (!bytesEqual(block.header.prevHash, tip.hash)) throw new ValidationError('inconclusive-not-best-prevblk');
  const params = chain.params;
  const medianTimePast = tip.medianTimePast();
  contextualCheckBlockHeader(block.header, { expectedBits: chain.nextWorkRequired(tip), medianTimePast, now: chain.now() }, params);
  checkBlock(block, params, { checkPoW: false, checkMerkleRoot: opts.checkMerkleRoot });
  contextualCheckBlock(block, tip.height + 1, medianTimePast);

  // An index entry that never enters the block tree: connecting needs only its height and parent.
  const entry = BlockIndexEntry.child(block.header, tip, 0);
  const items: ScriptCheckItem[] = [];
  const plan = planConnect(block, entry, chain, params, MANDATORY_SCRIPT_VERIFY_FLAGS, (tx, txIndex, spent) => {
    if (!tx.isCoinbase()) items.push({ tx, txIndex, spent });
  });
  // The OPoI rules on an overlay that is dropped: nothing is written.
  chain.opoi.connectBlock(block, plan.undo, entry.height, entry.hash);
  // On this thread: a proposal or generateblock is one block, and the chain's worker pool is its own.
  const failure = runScriptChecks(items, MANDATORY_SCRIPT_VERIFY_FLAGS);
  if (failure) {
    throw new ValidationError(describeScriptFailure(failure), `tx ${block.txs[failure.txIndex].txidHex} input ${failure.input}`);
  }
  return { fees: plan.fees };
}
