/**
 * /rest/block/<hash> and /rest/block/notxdetails/<hash>: the stored block (.bin, .hex) or its
 * JSON. The JSON follows the interface document's Block table, whose `tx` is the list of txids,
 * for both paths (Core's /rest/block/ JSON embeds every transaction instead; the transactions
 * are one /rest/tx/ call away, or in the .bin and .hex forms).
 */
import { Block } from '@cs/consensus';
import { blockToJson } from '../../format/json.ts';
import { ALL_FORMATS, type Endpoint, type RestDeps } from '../endpoint.ts';
import { badRequest, notFound } from '../errors.ts';
import { parseHash } from '../params.ts';

const USAGE = '/rest/block/<hash>.<ext> or /rest/block/notxdetails/<hash>.<ext>';

export function blockEndpoint({ ctx, blocks }: RestDeps): Endpoint {
  const { chain, params } = ctx;
  return {
    group: 'block',
    formats: ALL_FORMATS,
    handle({ args, format }) {
      if (args.length !== 1 && !(args.length === 2 && args[0] === 'notxdetails')) throw badRequest(`Invalid URI format. Expected ${USAGE}`);
      const entry = chain.entry(parseHash(args[args.length - 1]));
      if (format !== 'json') {
        const lease = entry && blocks.lease(entry);
        if (!lease) throw notFound('Block not found');
        return lease;
      }
      const raw = entry && blocks.get(entry);
      if (!entry || !raw) throw notFound('Block not found');
      return { json: blockToJson(Block.decode(raw), entry, chain, params, 1) };
    },
  };
}
