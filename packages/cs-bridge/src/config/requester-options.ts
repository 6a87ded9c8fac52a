/**
 * The options of the requester's two chain commands besides `ask` (docs/bridge.md, "Challenging"
 * and "Registering a manifest"): `cs-bridge challenge <request_id>` and `cs-bridge manifest <gguf>`.
 */
import { parseAmount } from '@cs/runtime/amount';
import { choice, flag, INFO_OPTIONS, integer, type ValuesOf, text } from '@cs/runtime/config';
import { ConfigError } from './env.ts';
import { ENV, NODE_OPTIONS, nonEmpty } from './option-parts.ts';

/**
 * The tolerance `manifest` registers unless told, in 2^-16 logit: 1/16 logit, the default docs/miner.md
 * recommends from its false-positive runs (thread counts, batch and context sizes differing from
 * the executor's); a manifest's tolerance is fixed for good, so measure before choosing another.
 */
export const DEFAULT_TOLERANCE = 4096;

export const CHALLENGE_OPTIONS = {
  ...INFO_OPTIONS,
  env: ENV,
  bond: text({
    category: 'request',
    arg: '<coins>',
    description: "Bond held with the challenge, in coins (default: the network's least, 10; 0.5 on regtest).",
    default: null,
    check: (v) => (parseAmount(v) === null ? 'an amount in coins, at most 8 decimals' : null),
  }),
  challenger: text({
    category: 'request',
    arg: '<address>',
    description: "Wallet address that signs and pays the bond (default: one of the node wallet's with enough confirmed coins).",
    default: null,
    check: nonEmpty('an address, as in -challenger=<address>'),
  }),
  ...NODE_OPTIONS,
};

export const MANIFEST_OPTIONS = {
  ...INFO_OPTIONS,
  env: ENV,
  modelid: text({
    category: 'request',
    arg: '<id>',
    description: "The manifest's model id, what VERIFIABLE requests name (default: the file's name without .gguf).",
    default: null,
    check: nonEmpty('a model id, as in -modelid=<id>'),
  }),
  tolerance: integer({
    category: 'request',
    arg: '<n>',
    description: 'Largest accepted gap between the argmax logit and the claimed token, in 2^-16 logit (65536 = one logit).',
    default: DEFAULT_TOLERANCE,
    min: 0,
    max: 0xffffffff,
  }),
  bos: choice({
    category: 'request',
    arg: '<rule>',
    description: 'Whether the prompt starts with BOS: as the GGUF metadata says, never or always.',
    default: 'metadata',
    values: ['metadata', 'never', 'always'],
  }),
  parsespecial: flag({ category: 'request', description: 'Text in the prompt spelling a special token becomes that token.', default: false }),
  chattemplate: text({
    category: 'request',
    arg: '<file>',
    description: 'A chat template file (Jinja) applied to the prompt; its SHA-256 goes in the manifest (default: none).',
    default: null,
    check: nonEmpty('a file name, as in -chattemplate=<file>'),
  }),
  registrant: text({
    category: 'request',
    arg: '<address>',
    description: "Wallet address that signs the MANIFEST and pays its burned fee (default: one of the node wallet's with enough coins).",
    default: null,
    check: nonEmpty('an address, as in -registrant=<address>'),
  }),
  ...NODE_OPTIONS,
};

export type ChallengeValues = ValuesOf<typeof CHALLENGE_OPTIONS>;
export type ManifestValues = ValuesOf<typeof MANIFEST_OPTIONS>;
export type ChallengeRequest = ChallengeValues & { readonly requestId: string };
export type ManifestRequest = ManifestValues & { readonly file: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `challenge`'s one positional word, the request id. */
export function readChallenge(values: ChallengeValues, positional: readonly string[]): ChallengeRequest {
  if (positional.length !== 1 || !UUID.test(positional[0])) throw new ConfigError('challenge needs the request id (cs-bridge challenge -help)');
  return { ...values, requestId: positional[0].toLowerCase() };
}

/** `manifest`'s one positional word, the GGUF file. */
export function readManifest(values: ManifestValues, positional: readonly string[]): ManifestRequest {
  if (positional.length !== 1) throw new ConfigError('manifest needs the GGUF file (cs-bridge manifest -help)');
  return { ...values, file: positional[0] };
}
