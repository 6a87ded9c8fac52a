/**
 * /rest/tx/<txid>: a mempool transaction, else a confirmed one through the transaction index.
 * The JSON is getrawtransaction's verbose object: the transaction (with `hex`), then for a
 * confirmed one `blockhash`, `confirmations`, `time`, `blocktime`.
 */
import { Transaction } from '@cs/consensus';
import { txPlacementToJson, txToJson } from '../../format/json.ts';
import { ALL_FORMATS, type Endpoint, type RestDeps } from '../endpoint.ts';
import { notFound } from '../errors.ts';
import { indexDisabled, requireSynced } from '../index-gate.ts';
import { expectArgs, parseHash } from '../params.ts';

export function txEndpoint({ ctx, blocks }: RestDeps): Endpoint {
  const { chain, mempool, params, txIndex } = ctx;
  return {
    group: 'tx',
    formats: ALL_FORMATS,
    handle({ args, format }) {
      expectArgs(args, [1], '/rest/tx/<txid>.<ext>');
      const txid = parseHash(args[0]);
      const pooled = mempool.get(txid)?.tx;
      if (pooled) return format === 'json' ? { json: txToJson(pooled, params, { includeHex: true }) } : { bytes: pooled.encode() };
      if (!txIndex) {
        throw indexDisabled(
          'Transaction not in the mempool, and the transaction index is disabled: start csd with -txindex=1 to look up confirmed transactions',
        );
      }
      requireSynced(txIndex.progress());
      const at = txIndex.position(txid);
      const block = at && blocks.get(at.entry);
      if (!at || !block) throw notFound('Transaction not found');
      const raw = block.subarray(at.offset, at.offset + at.length);
      if (format !== 'json') return { bytes: raw };
      return { json: { ...txToJson(Transaction.decode(raw), params, { includeHex: true }), ...txPlacementToJson(at.entry, chain) } };
    },
  };
}
