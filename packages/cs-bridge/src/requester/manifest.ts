/**
 * `cs-bridge manifest <gguf>`: registers a model manifest for a GGUF file (docs/bridge.md,
 * "Registering a manifest"): the file's SHA-256 and size, streamed (@cs/runtime/file-hash), the
 * BOS and special-token rules, a chat template's SHA-256, and the tolerance. The MANIFEST burns the
 * network's manifest fee, and a model id is registered once for good.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { pickRequester } from '@cs/client';
import { amountFromValue } from '@cs/runtime/amount';
import { ggufFileIdentity } from '@cs/runtime/file-hash';
import { ConfigError } from '../config/env.ts';
import type { ManifestRequest } from '../config/requester-options.ts';
import { withNode } from './node.ts';

export async function runManifest(envFile: string, flags: ManifestRequest, out: NodeJS.WritableStream = process.stdout): Promise<number> {
  const say = (text: string) => out.write(`${text}\n`);
  let file: { sha256: string; size: number };
  try {
    file = await ggufFileIdentity(flags.file);
  } catch (e) {
    throw new ConfigError(`cannot read ${flags.file}: ${(e as Error).message}`);
  }
  if (file.size === 0) throw new ConfigError(`${flags.file} is empty: a manifest names a model file`);
  let template: string | null = null;
  if (flags.chattemplate !== null) {
    try {
      template = createHash('sha256').update(readFileSync(flags.chattemplate)).digest('hex');
    } catch (e) {
      throw new ConfigError(`cannot read the chat template ${flags.chattemplate}: ${(e as Error).message}`);
    }
  }
  const modelId = flags.modelid ?? basename(flags.file).replace(/\.gguf$/i, '');
  return withNode(envFile, flags, async (rpc) => {
    const stats = (await rpc.call('getopoistats')) as { params?: { manifest_fee?: number } };
    const registrant = flags.registrant ?? (await pickRequester(rpc, amountFromValue(stats.params?.manifest_fee ?? 0)));
    if (registrant === null)
      throw new ConfigError('no wallet address holds enough confirmed coins for the manifest fee; fund one, or pass -registrant=<address>');
    say(`${flags.file}: SHA-256 ${file.sha256}, ${file.size} bytes`);
    const r = await rpc.call('registermodelmanifest', [
      modelId,
      file.sha256,
      file.size,
      flags.tolerance,
      registrant,
      flags.bos,
      flags.parsespecial,
      template,
    ]);
    say(`MANIFEST ${r.model_id} broadcast: txid ${r.txid}, fee burned ${r.fee}`);
    say(
      `tolerance ${flags.tolerance} (${flags.tolerance / 65536} logit), bos ${flags.bos}, parse_special ${flags.parsespecial}, chat template ${template ?? 'none'}`,
    );
    say(`Once it confirms, bridges serve it with OPOI_SERVES=${r.model_id}; requesters ask with: cs-bridge ask -verifiable -model=${r.model_id} ...`);
    return 0;
  });
}
