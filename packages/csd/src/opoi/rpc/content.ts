/**
 * The OPoI methods on response content: reading it (content published off chain, or the answer a
 * PUBLISH put on chain), and publishing a revealed response's bytes off chain.
 */
import { OpoiKind, type RequestRecord, fromHex, payloadOrNull } from '@cs/consensus';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { ContentError } from '../content.ts';
import type { OpoiContext } from '../context.ts';
import { actorAddress, uuidOf } from '../json.ts';
import { confirmedRequest, invalid, parseRequestId } from './args.ts';
import { EXAMPLE_UUID, fields } from './help.ts';

/** The answer of a request's confirmed PUBLISH, read from its block: its text and token ids. */
function publishedAnswer(ctx: OpoiContext, r: RequestRecord): { output: Uint8Array; tokens: readonly number[] } | undefined {
  if (r.publishTxid === null) return undefined;
  const entry = ctx.chain.atHeight(r.publishHeight!);
  const tx = entry && ctx.chain.readBlock(entry)?.txs.find((t) => t.txidHex === r.publishTxid);
  const payload = tx ? payloadOrNull(tx) : null;
  return payload?.kind === OpoiKind.PUBLISH ? { output: payload.output, tokens: payload.tokens } : undefined;
}

export function registerOpoiContentMethods(registry: RpcRegistry, ctx: OpoiContext): void {
  const { params } = ctx;

  registry.register({
    name: 'getopoicontent',
    category: 'Opoi',
    description:
      "Returns published response content of a request: the winner's once the request is resolved, else the first\n" +
      'revealed response whose content was published ("final": false). Without such content, the answer a confirmed\n' +
      'PUBLISH put on chain (publishopoianswer; the only way a VERIFIABLE answer is published), read from its block.',
    params: [
      { name: 'request_id', type: 'string', description: 'The request id (a UUID)' },
      { name: 'kind', type: 'string', default: 'RESPONSE', description: 'RESPONSE (the only kind stored)' },
    ],
    result: fields(
      '"request_id" : "str"      (string) The request id',
      '"kind" : "str"            (string) RESPONSE',
      '"response_hash" : "hex"   (string) The revealed response hash it matches (SHA-256 of the content; of the token ids and text for VERIFIABLE)',
      '"miner" : "str"           (string) The miner that revealed it',
      '"final" : true|false      (boolean) Whether it is the winner\'s (the request is resolved)',
      '"source" : "str"          (string) stored (published off chain, submitopoicontent) or publish (the PUBLISH on chain)',
      '"publish_txid" : "hex"    (string, optional) The PUBLISH transaction (source publish)',
      '"token_ids" : [ n, ... ]  (json array, optional) The answer\'s token ids, empty for OPEN (source publish)',
      '"content_hex" : "hex"     (string) The content',
    ),
    examples: [{ args: [EXAMPLE_UUID, 'RESPONSE'] }],
    handler: async ([requestId, kind]) => {
      if (kind !== 'RESPONSE') throw invalid('kind must be RESPONSE');
      const r = confirmedRequest(ctx, parseRequestId(requestId));
      const id = r.id;
      const found = ctx.opoiContent.get(id);
      if (found) {
        return {
          request_id: uuidOf(id),
          kind,
          response_hash: found.responseHash,
          miner: actorAddress(found.miner, params),
          final: found.final,
          source: 'stored',
          content_hex: found.content.toString('hex'),
        };
      }
      const published = publishedAnswer(ctx, r);
      if (!published) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, 'No response content published for this request');
      // A PUBLISH comes after the resolution and matches the winner's reveal (consensus audit.ts).
      const reveal = ctx.chain.opoi.commitsOf(id).find((c) => c.miner === r.winner)!.reveal!;
      return {
        request_id: uuidOf(id),
        kind,
        response_hash: reveal.responseHash,
        miner: actorAddress(r.winner!, params),
        final: true,
        source: 'publish',
        publish_txid: r.publishTxid,
        token_ids: [...published.tokens],
        content_hex: Buffer.from(published.output).toString('hex'),
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
