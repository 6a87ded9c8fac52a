/**
 * A share that meets the network target: submitblock at once, then confirmation that csd took it
 * (its hash is now at the job's height), then the block goes into the store for the payout
 * processor, and the jobs are refreshed without waiting for hashblock.
 */
import { hashToHex } from '@cs/consensus';
import type { RpcClient } from '@cs/client';
import { UINT256_MAX, encodeBlock, type Job, type ValidShare } from '@cs/stratum';
import type { Logger } from 'pino';
import type { AccountingStore } from '../accounting/store.ts';

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
  | { readonly accepted: true; readonly hash: string }
  | { readonly accepted: false; readonly hash: string; readonly reason: string };

export async function submitFoundBlock(found: FoundBlock, rpc: RpcClient, store: AccountingStore, log: Logger): Promise<SubmitOutcome> {
  const { job, share } = found;
  const hash = hashToHex(share.hash);
  const hex = Buffer.from(encodeBlock(job, share.header, share.solution)).toString('hex');
  const answer = await rpc.call('submitblock', [hex]);
  let atHeight: string | null = null;
  try {
    atHeight = await rpc.call('getblockhash', [job.height]);
  } catch {
    // Height not reached: the block was not connected.
  }
  if (atHeight !== hash) {
    const reason = answer ?? 'not on the active chain after submitblock';
    log.error({ hash, height: job.height, reason }, 'block rejected by the node');
    return { accepted: false, hash, reason };
  }
  if (found.shareSeq === null) {
    log.error(
      { hash, height: job.height, finder: found.address, worker: found.worker, solo: found.solo },
      'block found and accepted by the node, but its share could not be stored: the pool has no record of it; credit its reward by hand',
    );
    return { accepted: true, hash };
  }
  // The pool's outputs: all of it on pool jobs; on solo the finder's output, the fee output apart.
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
    networkWork: UINT256_MAX / job.target,
    time: Date.now(),
    status: 'new',
    confirmations: 1,
    credits: {},
    fee,
    rounds: [],
  });
  log.info({ hash, height: job.height, finder: found.address, solo: found.solo }, 'block found and accepted');
  return { accepted: true, hash };
}
