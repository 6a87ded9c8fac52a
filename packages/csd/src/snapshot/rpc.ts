/**
 * The UTXO snapshot methods, as Core's rpc/blockchain.cpp offers them since v28: dumptxoutset,
 * loadtxoutset and getchainstates. The work is the chain's (chain/snapshot-chainstate.ts); this
 * resolves paths and targets and shapes the answers (docs/snapshots.md).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { getDifficulty } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import { SnapshotError } from '../chain/snapshot-chainstate.ts';
import type { ChainContext } from '../rpc/context.ts';
import { RpcError, RpcErrorCode } from '../rpc/errors.ts';
import type { RpcRegistry } from '../rpc/registry.ts';

const HASH_HEX = /^[0-9a-f]{64}$/;

export function registerSnapshotMethods(registry: RpcRegistry, ctx: ChainContext): void {
  const { chain, params } = ctx;
  /** Paths are relative to the network's data directory, as Core's. */
  const pathOf = (path: string) => resolve(ctx.config.paths.networkDir, path);

  /** The block a dump is made at: the tip ('latest'), the latest trusted height ('rollback'), or options.rollback. */
  const dumpTarget = (type: string, rollback: unknown): BlockIndexEntry => {
    if (rollback !== undefined) {
      if (type !== '' && type !== 'rollback')
        throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Invalid snapshot type "${type}" specified with rollback option`);
      const e =
        typeof rollback === 'number'
          ? chain.atHeight(rollback)
          : typeof rollback === 'string' && HASH_HEX.test(rollback)
            ? chain.entry(rollback)
            : undefined;
      if (!e || !chain.contains(e)) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, 'rollback: not a height or block hash of the active chain');
      return e;
    }
    if (type === 'latest') return chain.tip;
    if (type === 'rollback') {
      const heights = chain.snapshots.trusted.map((t) => t.height).filter((h) => h <= chain.height);
      if (heights.length === 0) throw new RpcError(RpcErrorCode.MISC_ERROR, 'No trusted snapshot height at or below the tip to roll back to');
      return chain.atHeight(Math.max(...heights))!;
    }
    throw new RpcError(RpcErrorCode.INVALID_PARAMETER, `Invalid snapshot type "${type}" specified. Please specify "rollback" or "latest"`);
  };

  registry.register({
    name: 'dumptxoutset',
    category: 'Blockchain',
    description: [
      'Write the serialized UTXO set to a file. This can be used in loadtxoutset afterwards if this snapshot height is supported in the chainparams as well.',
      '',
      'Unless the "latest" type is requested, the node rewinds the chain to the target height (invalidateblock, then reconsiderblock), which may take a while.',
    ].join('\n'),
    params: [
      { name: 'path', type: 'string', description: 'Path to the output file. If relative, will be prefixed by datadir.' },
      {
        name: 'type',
        type: 'string',
        default: '',
        description:
          'The type of snapshot to create: "latest" (the current tip) or "rollback" (the latest trusted snapshot height at or below the tip).',
      },
      {
        name: 'options',
        type: 'object',
        optional: true,
        description: '{"rollback": n or "hash"}: the height or block hash to roll back to before dumping.',
      },
    ] as const,
    result: [
      '{                        (json object)',
      '  "coins_written" : n,   (numeric) the number of coins written in the snapshot',
      '  "base_hash" : "hex",   (string) the hash of the base of the snapshot',
      '  "base_height" : n,     (numeric) the height of the base of the snapshot',
      '  "path" : "str",        (string) the absolute path that the snapshot was written to',
      '  "txoutset_hash" : "hex", (string) the hash of the snapshot\'s content: the coins and the OPoI state (docs/snapshots.md)',
      '  "nchaintx" : n         (numeric) the number of transactions in the chain up to and including the base block',
      '}',
    ].join('\n'),
    examples: [{ args: ['utxo.dat', 'latest'] }, { args: ['utxo.dat', 'rollback'] }, { args: ['utxo.dat', 'rollback', { rollback: 110 }] }],
    handler: async ([path, type, options]) => {
      const file = pathOf(path);
      if (existsSync(file))
        throw new RpcError(
          RpcErrorCode.INVALID_PARAMETER,
          `${file} already exists. If you are sure this is what you want, move it out of the way first.`,
        );
      const target = dumpTarget(type, options?.rollback ?? undefined);
      const result = await dumpAt(target, file);
      const h = result.header;
      return {
        coins_written: h.coins,
        base_hash: h.baseHash,
        base_height: h.baseHeight,
        path: result.path,
        txoutset_hash: result.hash,
        nchaintx: h.chainTxCount,
      };
    },
  });

  /** Core's TemporaryRollback: the blocks after `target` leave the active chain for the dump, then come back. */
  const dumpAt = async (target: BlockIndexEntry, file: string) => {
    if (target === chain.tip) return dumpOrFail(file);
    if (target.height < chain.snapshots.floor)
      throw new RpcError(RpcErrorCode.MISC_ERROR, 'Cannot roll back below an unvalidated UTXO snapshot base');
    const next = chain.next(target)!;
    await chain.invalidateBlock(next.hashHex);
    try {
      return await dumpOrFail(file);
    } finally {
      await chain.reconsiderBlock(next.hashHex);
    }
  };

  const dumpOrFail = async (file: string) => {
    try {
      return await chain.snapshots.dump(file);
    } catch (e) {
      throw new RpcError(RpcErrorCode.MISC_ERROR, `Unable to write the UTXO snapshot: ${(e as Error).message}`);
    }
  };

  registry.register({
    name: 'loadtxoutset',
    category: 'Blockchain',
    description: [
      'Load the serialized UTXO set from a file.',
      "Once this snapshot is loaded, its contents will be deserialized into a second chainstate data structure, which is then used to sync to the network's tip.",
      'Meanwhile, the original chainstate will complete the initial block download process in the background, eventually validating up to the block that the snapshot is based upon.',
      '',
      'The result is a usable csd instance that is current with the network tip in a matter of minutes rather than hours. UTXO snapshots are typically obtained from third-party sources (HTTP, torrent, etc.), which is reasonable since their contents are always checked by hash.',
      '',
      'The snapshot must be listed in the chain parameters (on regtest, -assumeutxo), and its base block header must be known: start the node with its peers and wait for the headers.',
    ].join('\n'),
    params: [{ name: 'path', type: 'string', description: 'path to the snapshot file. If relative, will be prefixed by datadir.' }] as const,
    result: [
      '{                        (json object)',
      '  "coins_loaded" : n,    (numeric) the number of coins loaded from the snapshot',
      '  "tip_hash" : "hex",    (string) the hash of the base of the snapshot',
      '  "base_height" : n,     (numeric) the height of the base of the snapshot',
      '  "path" : "str"         (string) the absolute path that the snapshot was loaded from',
      '}',
    ].join('\n'),
    examples: [{ args: ['utxo.dat'] }],
    handler: async ([path]) => {
      const file = pathOf(path);
      try {
        const { header, base } = await chain.snapshots.load(file);
        return { coins_loaded: header.coins, tip_hash: base.hashHex, base_height: base.height, path: file };
      } catch (e) {
        if (e instanceof SnapshotError) throw new RpcError(RpcErrorCode.INTERNAL_ERROR, `Unable to load UTXO snapshot: ${e.message}`);
        throw e;
      }
    },
  });

  registry.register({
    name: 'getchainstates',
    category: 'Blockchain',
    description: 'Return information about chainstates.',
    params: [],
    result: [
      '{                                  (json object)',
      '  "headers" : n,                   (numeric) the number of headers seen so far',
      '  "chainstates" : [                (json array) list of the chainstates ordered by work, with the most-work (active) chainstate last',
      '    {                              (json object)',
      '      "blocks" : n,                (numeric) number of blocks in this chainstate',
      '      "bestblockhash" : "hex",     (string) blockhash of the tip',
      '      "difficulty" : n,            (numeric) difficulty of the tip',
      '      "verificationprogress" : n,  (numeric) progress towards its target: the snapshot base for the background chainstate, the best header for the active one',
      '      "snapshot_blockhash" : "hex", (string, optional) the base block of the snapshot this chainstate is based on, if any',
      '      "coins_db_cache_bytes" : n,  (numeric) size of the coinsdb cache (0: csd reads the coins database through LMDB\'s page cache)',
      '      "coins_tip_cache_bytes" : n, (numeric) size of the coinstip cache: the unwritten coin changes',
      '      "validated" : true|false     (boolean) whether the chainstate is fully validated. True if all blocks in the chainstate were validated, false if the chain is based on a snapshot and the snapshot has not yet been validated.',
      '    },',
      '    ...',
      '  ]',
      '}',
    ].join('\n'),
    examples: [{ args: [] }],
    handler: async () => {
      const best = chain.bestHeader;
      const download = chain.snapshots.download;
      return {
        headers: best.height,
        chainstates: chain.snapshots.chainstates().map((s) => {
          const goal = s.snapshotBase === null && download ? download.target : best;
          return {
            blocks: s.tip.height,
            bestblockhash: s.tip.hashHex,
            difficulty: getDifficulty(s.tip.header.bits, params.powLimitBits),
            verificationprogress: goal.height === 0 ? 1 : Math.min(1, s.tip.height / goal.height),
            ...(s.snapshotBase ? { snapshot_blockhash: s.snapshotBase.hashHex } : {}),
            coins_db_cache_bytes: 0,
            coins_tip_cache_bytes: s.cacheBytes,
            validated: s.validated,
          };
        }),
      };
    },
  });
}
