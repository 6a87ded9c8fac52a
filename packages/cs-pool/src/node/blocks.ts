/**
 * A share that meets the network target: submitblock at once, then where the node put the block,
 * then its record for the payout processor, and the jobs refresh without waiting for hashblock.
 *
 * Every block the node did not refuse is recorded, whatever its place at that moment: on the
 * active chain ('new'), or not ('side': a competing block of the same height came first, it was
 * reorganized away before the pool looked, or the node could not be asked). Recording only what
 * `getblockhash(height)` named right after submitblock lost exactly those: a block that a reorg
 * later put on the active chain then paid the pool's address and credited nobody (miningcore
 * #210). The payout processor follows each record to the active chain (credit) or to orphaning.
 */
import { hashToHex } from '@cs/consensus';
import { RpcError, type RpcClient } from '@cs/client';
import { blockHex, type Job, type ValidShare } from '@cs/stratum';
import type { Logger } from 'pino';
import type { AccountingStore, BlockStatus } from '../accounting/store.ts';
import { weightOfTarget } from '../accounting/weights.ts';

export interface FoundBlock {
  readonly job: Job;
  readonly share: ValidShare;
  readonly address: string;
  readonly worker: string;
  readonly solo: boolean;
  /** The finding share's seq; null when the store refused the share (the block still goes to the node). */
  readonly shareSeq: number | null;
}

export type SubmitOutcome =
  | { readonly kind: 'recorded'; readonly hash: string; readonly status: BlockStatus }
  /** The node refused it as invalid: nothing to credit, ever. */
  | { readonly kind: 'refused'; readonly hash: string; readonly reason: string }
  /** The node has it, but its share was not stored, so the pool cannot credit it (logged for the operator). */
  | { readonly kind: 'unstored'; readonly hash: string };

/**
 * BIP 22 answers that mean the node keeps the block: null (it joined the active chain),
 * inconclusive (stored on a side branch), duplicate (known and valid: another front-end sent it,
 * say) and duplicate-inconclusive (known, not fully checked yet). Every other word is a refusal.
 */
const KEPT = new Set([null, 'inconclusive', 'duplicate', 'duplicate-inconclusive']);

export async function submitFoundBlock(
  found: FoundBlock,
  rpc: RpcClient,
  store: AccountingStore,
  log: Logger,
  powLimit: bigint,
): Promise<SubmitOutcome> {
  const { job, share } = found;
  const hash = hashToHex(share.hash);
  const hex = blockHex(job, share.header, share.solution);
  let answer: string | null;
  try {
    answer = await rpc.call('submitblock', [hex]);
  } catch (e) {
    // An error the node answered with is its verdict; a lost answer is not: the node may hold the block.
    if (e instanceof RpcError) answer = `error ${e.code}: ${e.message}`;
    else {
      log.warn({ hash, err: (e as Error).message }, 'submitblock got no answer: the block is recorded, and followed on the chain');
      answer = null;
    }
  }
  if (!KEPT.has(answer)) {
    log.error({ hash, height: job.height, reason: answer }, 'block rejected by the node');
    return { kind: 'refused', hash, reason: answer ?? '' };
  }
  const status = await placeOf(rpc, hash);
  if (found.shareSeq === null) {
    log.error(
      { hash, height: job.height, finder: found.address, worker: found.worker, solo: found.solo },
      'block found and accepted by the node, but its share could not be stored: the pool has no record of it; credit its reward by hand',
    );
    return { kind: 'unstored', hash };
  }
  // The pool's outputs: all of it on pool jobs; on solo the finder's output, the solo fee apart.
  const outputs = job.coinbase.outputs.filter((o) => o.value > 0n);
  const reward = found.solo ? outputs[0].value : job.coinbaseValue;
  const fee = found.solo ? job.coinbaseValue - outputs[0].value : 0n;
  await store.addBlock({
    hash,
    height: job.height,
    coinbaseTxid: job.coinbase.txidHex,
    reward,
    finder: found.address,
    worker: found.worker,
    solo: found.solo,
    shareSeq: found.shareSeq,
    networkWeight: weightOfTarget(job.target, powLimit),
    time: Date.now(),
    status,
    confirmations: status === 'new' ? 1 : 0,
    credits: {},
    fee,
    rounds: [],
  });
  if (status === 'new') log.info({ hash, height: job.height, finder: found.address, solo: found.solo }, 'block found and accepted');
  else log.warn({ hash, height: job.height, finder: found.address, answer }, 'block found, not on the active chain now: recorded as side, followed');
  return { kind: 'recorded', hash, status };
}

/** 'new' when the active chain holds the block now, else 'side' (a side branch, or the node cannot say). */
async function placeOf(rpc: RpcClient, hash: string): Promise<'new' | 'side'> {
  try {
    const info = await rpc.call('getblock', [hash, 1]);
    return typeof info === 'object' && typeof info.confirmations === 'number' && info.confirmations >= 1 ? 'new' : 'side';
  } catch {
    return 'side';
  }
}
