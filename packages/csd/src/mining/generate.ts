/**
 * Mining on the node itself, for regtest (generatetoaddress, generateblock): build a block on the
 * tip, search Equihash nonces with the built-in CPU solver, hand the block to the chain. Main and
 * test use ZelHash (125,4), which takes gigabytes and minutes per nonce on a CPU; those networks
 * are mined by GPU miners through a pool and getblocktemplate.
 */
import { blockSubsidy, type Block, type Transaction } from '@cs/consensus';
import type { Chain, ProcessResult } from '../chain/chainstate.ts';
import { createBlock, mineBlock } from './assemble.ts';
import { blockFromTemplate, blockTime, type TemplateSource } from './template.ts';
import { testBlockValidity } from './validity.ts';

/** Core's DEFAULT_MAX_TRIES: the nonce budget of generatetoaddress (shared by all its blocks) and generateblock. */
export const DEFAULT_MAX_TRIES = 1_000_000;

/** The chain refused a block the node mined itself (Core: "ProcessNewBlock, block not accepted"). */
export class BlockNotAcceptedError extends Error {
  override readonly name = 'BlockNotAcceptedError';
  constructor(readonly result: Extract<ProcessResult, { status: 'rejected' }>) {
    super(`block not accepted: ${result.reason}${result.debug ? `, ${result.debug}` : ''}`);
  }
}

/**
 * Offers a mined block to the chain. A block that loses a race to an equal-work block mined
 * meanwhile is still a valid block (Core returns its hash too); only a rejection is an error.
 */
export async function submitMinedBlock(chain: Chain, block: Block): Promise<void> {
  const result = await chain.processBlock(block);
  if (result.status === 'rejected') throw new BlockNotAcceptedError(result);
}

/** Lets queued I/O and RPC calls run between two solved blocks: the solver itself never yields. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Core's generateBlocks: mines up to `count` blocks, each on a fresh template of the mempool,
 * paying subsidy and fees to `payTo`. `maxTries` nonces are shared by all the blocks; when they
 * run out, or when `stop` is aborted (shutdown), the hashes mined so far are returned.
 */
export async function generateBlocks(
  chain: Chain,
  templates: TemplateSource,
  now: () => number,
  payTo: Uint8Array,
  count: number,
  maxTries: number,
  stop?: AbortSignal,
): Promise<string[]> {
  const hashes: string[] = [];
  let triesLeft = maxTries;
  while (hashes.length < count && !stop?.aborted) {
    const template = templates.create();
    const attempt = mineBlock(blockFromTemplate(template, payTo, blockTime(template.prev, now())), chain.params, triesLeft);
    triesLeft -= attempt.noncesTried;
    if (!attempt.block) break;
    await submitMinedBlock(chain, attempt.block);
    hashes.push(attempt.block.header.hashHex);
    await yieldToEventLoop();
  }
  return hashes;
}

/**
 * generateblock's block: exactly `txs` after a coinbase paying subsidy and fees to `payTo`, on
 * the tip, checked by testBlockValidity (which throws the first broken rule), not yet solved.
 *
 * Core pays only the subsidy here and leaves the fees unclaimed; we claim them, so a test that
 * mines chosen transactions sees the same coinbase as with generatetoaddress.
 */
export function createBlockWithTransactions(chain: Chain, payTo: Uint8Array, txs: readonly Transaction[], now: number): Block {
  const prev = chain.tip;
  const base = { prev, bits: chain.nextWorkRequired(prev), time: blockTime(prev, now), payTo, txs };
  const subsidy = blockSubsidy(prev.height + 1, chain.params);
  // The fees are known once the inputs are looked up, which the validity check does; changing the
  // coinbase's value afterwards leaves every other rule as checked (its wtxid counts as zero in
  // the witness commitment, and it now claims exactly what it may).
  const { fees } = testBlockValidity(chain, createBlock({ ...base, value: subsidy }), { checkMerkleRoot: true });
  return createBlock({ ...base, value: subsidy + fees });
}
