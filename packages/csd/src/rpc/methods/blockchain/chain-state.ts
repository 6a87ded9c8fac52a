/**
 * The Blockchain category's view of the active chain as a whole: its tip, height and difficulty,
 * whether the node is still catching up, and the known tips of the block tree.
 */
import { getDifficulty } from '@cs/consensus';
import type { BlockIndexEntry } from '../../../chain/block-index.ts';
import { type JsonObject, withJsonText } from '../../../format/json-value.ts';
import type { ChainContext } from '../../context.ts';
import type { RpcRegistry } from '../../registry.ts';

/**
 * Core's DEFAULT_MAX_TIP_AGE: a node whose tip is older than a day is still catching up (initial
 * block download). The same window decides when verificationprogress reaches 1.
 */
export const MAX_TIP_AGE = 24 * 60 * 60;

/**
 * Core's GuessVerificationProgress, simplified: Core estimates the transactions still to come
 * from a hard-coded transaction rate, which a young chain does not have. csd counts blocks: the
 * blocks expected since the tip, beyond the MAX_TIP_AGE window in which a tip still counts as
 * current, are the ones missing. So the progress is 1 while the tip is at most a day old (the
 * rule initialblockdownload uses) and falls smoothly as the tip ages past that.
 */
function verificationProgress(tip: BlockIndexEntry, bestHeader: BlockIndexEntry, now: number, targetSpacing: number): number {
  // Blocks whose headers are known but which are not connected yet are missing too.
  const missing = Math.max(0, now - tip.time - MAX_TIP_AGE) / targetSpacing;
  const byTime = missing === 0 ? 1 : tip.height / (tip.height + missing);
  return bestHeader.height > tip.height ? Math.min(byTime, tip.height / bestHeader.height) : byTime;
}

/**
 * Core's IsInitialBlockDownload: true while the tip is older than MAX_TIP_AGE by the node's clock,
 * and false for good once it has been false, so a node whose blocks merely slow down does not
 * flip back (Core latches the same way). Core also requires the network's minimum chain work;
 * the cs chain has no such checkpoint, so on regtest the first freshly mined block ends it.
 */
function initialBlockDownload(ctx: ChainContext): () => boolean {
  let finished = false;
  return () => {
    if (finished) return false;
    if (ctx.chain.tip.time < ctx.clock.now() - MAX_TIP_AGE) return true;
    // Still a day's worth of blocks behind the best known header: syncing, however recent the tip.
    if (ctx.chain.bestHeader.height - ctx.chain.tip.height > MAX_TIP_AGE / ctx.params.targetSpacing) return true;
    finished = true;
    return false;
  };
}

export function registerChainStateMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { chain, params } = ctx;
  const isInitialBlockDownload = initialBlockDownload(ctx);
  let lastChainInfo:
    | { tip: BlockIndexEntry; bestHeader: BlockIndexEntry; progress: number; ibd: boolean; size: number; warnings: number; answer: JsonObject }
    | undefined;

  registry.register({
    name: 'getblockchaininfo',
    category: 'Blockchain',
    description: 'Returns an object containing various state info regarding blockchain processing.',
    params: [],
    result: [
      '{                                  (json object)',
      '  "chain" : "str",                 (string) current network name (main, test, regtest)',
      '  "blocks" : n,                    (numeric) the height of the most-work fully-validated chain. The genesis block has height 0',
      '  "headers" : n,                   (numeric) the current number of headers we have validated',
      '  "bestblockhash" : "str",         (string) the hash of the currently best block',
      '  "difficulty" : n,                (numeric) the current difficulty',
      '  "time" : xxx,                    (numeric) The block time expressed in UNIX epoch time',
      '  "mediantime" : xxx,              (numeric) The median block time expressed in UNIX epoch time',
      '  "verificationprogress" : n,      (numeric) estimate of verification progress [0..1]: 1 while the tip is at most 24 hours old',
      '  "initialblockdownload" : true|false, (boolean) (debug information) estimate of whether this node is in Initial Block Download mode',
      '  "chainwork" : "hex",             (string) total amount of work in active chain, in hexadecimal',
      '  "size_on_disk" : n,              (numeric) the size of the block database (blocks, undo data, index and UTXO set) on disk',
      '  "pruned" : true|false,           (boolean) if the blocks are subject to pruning (csd does not prune)',
      '  "warnings" : [ "str", ... ]      (json array) any network and blockchain warnings',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => {
      const tip = chain.tip;
      const bestHeader = chain.bestHeader;
      const progress = verificationProgress(tip, bestHeader, ctx.clock.now(), params.targetSpacing);
      const ibd = isInitialBlockDownload();
      const size = chain.sizeOnDisk();
      // Polled by explorers, pools and monitors: the answer changes with the tip, the headers or
      // the size on disk (re-read once a second), and is serialized once per change.
      const last = lastChainInfo;
      const warnings = chain.snapshots.warnings;
      if (
        last &&
        last.tip === tip &&
        last.bestHeader === bestHeader &&
        last.progress === progress &&
        last.ibd === ibd &&
        last.size === size &&
        last.warnings === warnings.length
      )
        return last.answer;
      const answer = withJsonText({
        chain: params.name,
        blocks: tip.height,
        headers: bestHeader.height,
        bestblockhash: tip.hashHex,
        difficulty: getDifficulty(tip.header.bits, params.powLimitBits),
        time: tip.time,
        mediantime: tip.medianTimePast(),
        verificationprogress: progress,
        initialblockdownload: ibd,
        chainwork: tip.chainWork.toString(16).padStart(64, '0'),
        size_on_disk: size,
        pruned: false,
        // Core's warnings come from pre-release builds, unknown soft-fork signals and peers'
        // clock offsets, none of which csd has; a UTXO snapshot that failed validation says so here.
        warnings,
      });
      lastChainInfo = { tip, bestHeader, progress, ibd, size, warnings: warnings.length, answer };
      return answer;
    },
  });

  registry.register({
    name: 'getbestblockhash',
    category: 'Blockchain',
    description: 'Returns the hash of the best (tip) block in the most-work fully-validated chain.',
    params: [],
    result: '"hex"    (string) the block hash, hex-encoded',
    examples: [{ args: [] }],
    handler: async () => chain.tip.hashHex,
  });

  registry.register({
    name: 'getblockcount',
    category: 'Blockchain',
    description: 'Returns the height of the most-work fully-validated chain.\nThe genesis block has height 0.',
    params: [],
    result: 'n    (numeric) The current block count',
    examples: [{ args: [] }],
    handler: async () => chain.height,
  });

  registry.register({
    name: 'getchaintips',
    category: 'Blockchain',
    description: 'Return information about all known tips in the block tree, including the main chain as well as orphaned branches.',
    params: [],
    result: [
      '[                        (json array)',
      '  {                      (json object)',
      '    "height" : n,        (numeric) height of the chain tip',
      '    "hash" : "hex",      (string) block hash of the tip',
      '    "branchlen" : n,     (numeric) zero for main chain, otherwise length of branch connecting the tip to the main chain',
      '    "status" : "str"     (string) status of the chain, "active" for the main chain',
      '                         Possible values for status:',
      '                         1.  "invalid"               This branch contains at least one invalid block',
      '                         2.  "headers-only"          Not all blocks for this branch are available, but the headers are valid',
      '                         3.  "valid-headers"         All blocks are available for this branch, but they were never fully validated',
      '                         4.  "valid-fork"            This branch is not part of the active chain, but is fully validated',
      '                         5.  "active"                This is the tip of the active main chain, which is certainly valid',
      '  },',
      '  ...',
      ']',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () =>
      chain.chainTips().map((t) => ({ height: t.entry.height, hash: t.entry.hashHex, branchlen: t.branchLength, status: t.status })),
  });

  registry.register({
    name: 'getdifficulty',
    category: 'Blockchain',
    description: "Returns the proof-of-work difficulty as a multiple of the network's easiest target (powLimit).",
    params: [],
    result: "n    (numeric) the proof-of-work difficulty as a multiple of the network's easiest target",
    examples: [{ args: [] }],
    handler: async () => getDifficulty(chain.tip.header.bits, params.powLimitBits),
  });
}
