/** The OPoI methods on published response content: reading it, and publishing a revealed response's bytes. */
import { fromHex } from '@cs/consensus';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { ContentError } from '../content.ts';
import type { OpoiContext } from '../context.ts';
import { actorAddress, uuidOf } from '../json.ts';
import { confirmedRequest, invalid, parseRequestId } from './args.ts';
import { EXAMPLE_UUID, fields } from './help.ts';

export function registerOpoiContentMethods(registry: RpcRegistry, ctx: OpoiContext): void {
  const { params } = ctx;

  registry.register({
    name: 'getopoicontent',
    category: 'Opoi',
    description:
      "Returns published response content of a request: the winner's once the request is resolved, else the first\n" +
      'revealed response whose content was published ("final": false).',
    params: [
      { name: 'request_id', type: 'string', description: 'The request id (a UUID)' },
      { name: 'kind', type: 'string', default: 'RESPONSE', description: 'RESPONSE (the only kind stored)' },
    ],
    result: fields(
      '"request_id" : "str"   (string) The request id',
      '"kind" : "str"         (string) RESPONSE',
      '"response_hash" : "hex"   (string) SHA-256 of the content',
      '"miner" : "str"        (string) The miner that revealed it',
      '"final" : true|false   (boolean) Whether it is the winner\'s (the request is resolved)',
      '"content_hex" : "hex"  (string) The content',
    ),
    examples: [{ args: [EXAMPLE_UUID, 'RESPONSE'] }],
    handler: async ([requestId, kind]) => {
      if (kind !== 'RESPONSE') throw invalid('kind must be RESPONSE');
      const id = confirmedRequest(ctx, parseRequestId(requestId)).id;
      const found = ctx.opoiContent.get(id);
      if (!found) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'No response content published for this request');
      return {
        request_id: uuidOf(id),
        kind,
        response_hash: found.responseHash,
        miner: actorAddress(found.miner, params),
        final: found.final,
        content_hex: found.content.toString('hex'),
      };
    },
  });

  registry.register({
    name: 'submitopoicontent',
    category: 'Opoi',
    description:
      'Publishes the content of a revealed response: stored (and relayed to peers) only when its SHA-256 is a response\n' +
      'hash revealed on-chain for the request. Publishing the same content again is harmless.',
    params: [
      { name: 'request_id', type: 'string', description: 'The request id (a UUID)' },
      { name: 'kind', type: 'string', description: 'RESPONSE' },
      { name: 'content_hex', type: 'hex', description: 'The response bytes, hex (at most 256 KiB)' },
    ],
    result: fields(
      '"request_id" : "str"      (string) The request id',
      '"response_hash" : "hex"   (string) SHA-256 of the content',
      '"miner" : "str"           (string) The miner that revealed it',
      '"bytes" : n               (numeric) The content size',
      '"stored" : true|false     (boolean) Always true (a refusal is an error)',
    ),
    examples: [{ args: [EXAMPLE_UUID, 'RESPONSE', '48656c6c6f'] }],
    handler: async ([requestId, kind, contentHex]) => {
      if (kind !== 'RESPONSE') throw invalid('kind must be RESPONSE');
      const id = parseRequestId(requestId);
      try {
        const c = ctx.opoiContent.publish(id, fromHex(contentHex));
        return { request_id: uuidOf(id), response_hash: c.responseHash, miner: actorAddress(c.miner, params), bytes: c.bytes, stored: true };
      } catch (e) {
        if (e instanceof ContentError) throw invalid(e.message);
        throw e;
      }
    },
  });
}
