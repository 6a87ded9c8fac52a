/**
 * Model manifests: reading the registered ones (getmodelmanifest, the reference node's name, and
 * listmodelmanifests) and registering one from the wallet (registermodelmanifest). A manifest
 * names the exact GGUF file and the decoding rule an auditor replays an answer with.
 */
import { DECODING_GREEDY, MANIFEST_PARSE_SPECIAL, MANIFEST_TEMPLATE, OpoiKind, isValidModelName } from '@cs/consensus';
import { amountToJson } from '@cs/runtime/amount';
import { RpcError, RpcErrorCode } from '../../rpc/errors.ts';
import type { RpcRegistry } from '../../rpc/registry.ts';
import { walletCall, walletOf } from '../../wallet/rpc/common.ts';
import type { OpoiContext } from '../context.ts';
import { BOS_NAMES, manifestToJson } from '../json.ts';
import { sendManifest } from '../wallet-actions.ts';
import { ownActor, invalid, parseHash, sent } from './args.ts';
import { EXAMPLE_HASH, EXAMPLE_MINER, MANIFEST_FIELDS, arrayResult, fields, objectResult } from './help.ts';

const EXAMPLE_MODEL = 'qwen2.5-0.5b-instruct-q4_k_m';

export function registerManifestReadMethods(registry: RpcRegistry, ctx: OpoiContext): void {
  const { chain, params } = ctx;

  registry.register({
    name: 'getmodelmanifest',
    category: 'Opoi',
    description:
      'Returns a registered model manifest: the exact GGUF file, the decoding rule and the checking tolerance.\n' +
      'Fails with -5 for a model id without a confirmed registration (a plain model name is an OPEN task).',
    params: [{ name: 'model_id', type: 'string', description: 'The model id' }],
    result: objectResult(MANIFEST_FIELDS).join('\n'),
    examples: [{ args: [EXAMPLE_MODEL] }],
    handler: async ([model]) => {
      const m = isValidModelName(model) ? chain.opoi.manifest(model) : undefined;
      if (!m) throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, `model manifest not found: '${model}' is a plain model name (OPEN task)`);
      return manifestToJson(m, chain.height, params);
    },
  });

  registry.register({
    name: 'listmodelmanifests',
    category: 'Opoi',
    description: 'Lists the model manifests registered on the active chain, oldest first.',
    params: [],
    result: arrayResult(MANIFEST_FIELDS),
    examples: [{ args: [] }],
    handler: async () =>
      [...chain.opoi.manifests()]
        .sort((a, b) => a.height - b.height || (a.modelId < b.modelId ? -1 : 1))
        .map((m) => manifestToJson(m, chain.height, params)),
  });
}

export function registerManifestActionMethod(registry: RpcRegistry, ctx: OpoiContext): void {
  const { chain, params } = ctx;
  const fee = params.opoi.manifestFee;

  registry.register({
    name: 'registermodelmanifest',
    category: 'Opoi',
    description:
      'Broadcasts a MANIFEST registering a model id for good: the exact GGUF file (SHA-256 and size), greedy\n' +
      'decoding with the given prompt tokenization, and the logit tolerance auditors check answers within. The\n' +
      "registrant address pays the fee and burns the network's manifest fee (the payload output's value).\n" +
      'A model id is registered once: manifests never change.',
    params: [
      { name: 'model_id', type: 'string', description: 'A new model id: at most 64 characters of letters, digits and ._:/+-' },
      { name: 'gguf_sha256', type: 'string', description: 'SHA-256 of the GGUF file, 64 lower-case hex digits' },
      { name: 'gguf_size', type: 'integer', description: 'Size of the GGUF file in bytes' },
      { name: 'tolerance', type: 'integer', description: 'Largest accepted gap to the argmax logit, in units of 2^-16 logit' },
      { name: 'registrant_address', type: 'string', description: 'The wallet address that signs and pays' },
      {
        name: 'bos',
        type: 'string',
        default: 'metadata',
        description: 'Whether the prompt starts with BOS: metadata (as the GGUF says), never or always',
      },
      { name: 'parse_special', type: 'boolean', default: false, description: 'Parse special-token text in the prompt as special tokens' },
      {
        name: 'chat_template_sha256',
        type: 'string',
        optional: true,
        description: 'SHA-256 of the chat template wrapping the prompt (none when omitted)',
      },
    ],
    result: fields(
      '"txid" : "hex"            (string) The MANIFEST transaction',
      '"model_id" : "str"        (string) The model id',
      '"fee" : n                 (numeric) The fee burned, in coins',
    ),
    examples: [{ args: [EXAMPLE_MODEL, EXAMPLE_HASH, 491400032, 65536, EXAMPLE_MINER] }],
    handler: async ([modelId, ggufSha256, ggufSize, tolerance, address, bos, parseSpecial, templateSha256], call) => {
      const wallet = walletOf(ctx, call);
      if (!isValidModelName(modelId))
        throw invalid('model_id must be at most 64 characters: letters, digits and ._:/+-, starting with a letter or digit');
      const ggufSha = parseHash(ggufSha256, 'gguf_sha256');
      if (ggufSize < 1) throw invalid('gguf_size must be positive');
      if (tolerance < 0 || tolerance > 0xffffffff) throw invalid('tolerance must be between 0 and 4294967295');
      const bosRule = (BOS_NAMES as readonly string[]).indexOf(bos);
      if (bosRule < 0) throw invalid(`bos must be one of ${BOS_NAMES.join(', ')}`);
      const templateHash = templateSha256 === undefined ? undefined : parseHash(templateSha256, 'chat_template_sha256');
      if (chain.opoi.manifest(modelId)) throw invalid('model_id already has a manifest on-chain (manifests are immutable)');
      const registrant = ownActor(ctx, wallet, address, 'registrant_address');
      const flags = bosRule | (parseSpecial ? MANIFEST_PARSE_SPECIAL : 0) | (templateHash ? MANIFEST_TEMPLATE : 0);
      const payload = {
        kind: OpoiKind.MANIFEST,
        registrant,
        modelId,
        ggufSha256: ggufSha,
        ggufSize: BigInt(ggufSize),
        decoding: DECODING_GREEDY,
        flags,
        ...(templateHash ? { templateHash } : {}),
        tolerance,
      } as const;
      const txid = await walletCall(() => sent(sendManifest(wallet, payload, fee)));
      return { txid, model_id: modelId, fee: amountToJson(fee) };
    },
  });
}
