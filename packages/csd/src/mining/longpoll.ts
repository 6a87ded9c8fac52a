/**
 * BIP 22 long polling: a getblocktemplate request carrying the longpollid of an earlier template
 * is answered only once a new template would differ from it in a way worth a new job.
 */
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Chain } from '../chain/chainstate.ts';

export interface LongpollTiming {
  /**
   * When a wait first looks at the mempool: Core's one minute. New transactions add a little fee;
   * switching a whole pool's miners to a new job for each one would waste more than it gains.
   */
  readonly firstMempoolCheckMs: number;
  /** How often it looks again after that (Core: ten seconds). */
  readonly mempoolRecheckMs: number;
  /**
   * The longest wait, after which the request is answered anyway (Core has none). A quiet chain
   * could otherwise hold a request for many block intervals; an answer every few minutes lets
   * the pool tell a quiet node from a dead connection, and stays inside common client timeouts
   * (cs-cli's is 900 s).
   */
  readonly maxWaitMs: number;
}

export const DEFAULT_LONGPOLL_TIMING: LongpollTiming = { firstMempoolCheckMs: 60_000, mempoolRecheckMs: 10_000, maxWaitMs: 300_000 };

/** What a longpollid names: the tip a template extended and the transactions counter it saw. */
export interface LongpollWatch {
  readonly tipHash: string;
  readonly transactionsUpdated: number;
}

/**
 * Resolves when the active tip is no longer `watch.tipHash` (at once if it already is not), when
 * the transactions counter has moved at one of the mempool checks, after the longest wait, or as
 * soon as `stop` is aborted (the caller tells that case apart by looking at it).
 */
export function waitForTemplateChange(
  chain: Chain,
  watch: LongpollWatch,
  transactionsUpdated: () => number,
  timing: LongpollTiming,
  stop?: AbortSignal,
): Promise<void> {
  if (chain.tip.hashHex !== watch.tipHash || stop?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    let check: NodeJS.Timeout;
    const finish = (): void => {
      chain.events.off('tip', onTip);
      stop?.removeEventListener('abort', finish);
      clearTimeout(check);
      clearTimeout(limit);
      resolve();
    };
    const onTip = (tip: BlockIndexEntry): void => {
      if (tip.hashHex !== watch.tipHash) finish();
    };
    const checkMempool = (): void => {
      if (transactionsUpdated() !== watch.transactionsUpdated) finish();
      else check = setTimeout(checkMempool, timing.mempoolRecheckMs);
    };
    chain.events.on('tip', onTip);
    stop?.addEventListener('abort', finish);
    check = setTimeout(checkMempool, timing.firstMempoolCheckMs);
    const limit = setTimeout(finish, timing.maxWaitMs);
  });
}
