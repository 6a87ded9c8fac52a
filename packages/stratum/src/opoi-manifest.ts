/**
 * A model manifest as the OPoI messages carry it (docs/protocol.md §11.1, "Model manifests";
 * docs/miner.md, "The OPoI messages"): the exact GGUF file, how the prompt becomes tokens and the
 * tolerance a replay is checked within. Its JSON is getmodelmanifest's fields, so a bridge passes
 * what the node answered and a miner reads it with the node's names.
 */
import { bad, hashHex } from './opoi-fields.ts';

/** Whether the prompt starts with BOS: as the GGUF's metadata says, never, or always. */
export type OpoiBosRule = 'metadata' | 'never' | 'always';
const BOS_RULES: readonly OpoiBosRule[] = ['metadata', 'never', 'always'];
/** A manifest's tolerance is a u32 of 2^-16 logit units. */
const MAX_TOLERANCE = 0xffffffff;

export interface OpoiManifest {
  readonly modelId: string;
  /** SHA-256 of the GGUF file, lower-case hex. */
  readonly ggufSha256: string;
  readonly ggufSize: number;
  readonly bos: OpoiBosRule;
  readonly parseSpecial: boolean;
  /** SHA-256 of the chat template applied to the prompt; null = the prompt is tokenized as it is. */
  readonly chatTemplateSha256: string | null;
  /** Largest accepted gap between the argmax logit and the claimed token's, in 2^-16 logit. */
  readonly tolerance: number;
}

/** The tolerance in logits. */
export function manifestToleranceLogits(m: Pick<OpoiManifest, 'tolerance'>): number {
  return m.tolerance / 65536;
}

export function opoiManifestJson(m: OpoiManifest): Record<string, unknown> {
  return {
    model_id: m.modelId,
    gguf_sha256: m.ggufSha256,
    gguf_size: m.ggufSize,
    decoding: 'greedy',
    bos: m.bos,
    parse_special: m.parseSpecial,
    chat_template_sha256: m.chatTemplateSha256,
    tolerance: m.tolerance,
  };
}

/** Reads a manifest object; getmodelmanifest's whole result reads too (its other fields are ignored). */
export function parseOpoiManifest(v: unknown): OpoiManifest {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('manifest must be an object');
  const o = v as Record<string, unknown>;
  if (typeof o.model_id !== 'string' || o.model_id === '' || o.model_id.length > 64) throw bad('manifest.model_id must be 1 to 64 characters');
  if (!Number.isSafeInteger(o.gguf_size) || (o.gguf_size as number) < 1) throw bad('manifest.gguf_size must be a positive integer');
  if (o.decoding !== 'greedy') throw bad("manifest.decoding must be 'greedy', the only rule");
  if (!BOS_RULES.includes(o.bos as OpoiBosRule)) throw bad(`manifest.bos must be one of ${BOS_RULES.join(', ')}`);
  if (typeof o.parse_special !== 'boolean') throw bad('manifest.parse_special must be true or false');
  if (!Number.isSafeInteger(o.tolerance) || (o.tolerance as number) < 0 || (o.tolerance as number) > MAX_TOLERANCE)
    throw bad(`manifest.tolerance must be an integer from 0 to ${MAX_TOLERANCE}`);
  return {
    modelId: o.model_id,
    ggufSha256: hashHex(o, 'gguf_sha256'),
    ggufSize: o.gguf_size as number,
    bos: o.bos as OpoiBosRule,
    parseSpecial: o.parse_special,
    chatTemplateSha256: o.chat_template_sha256 === null || o.chat_template_sha256 === undefined ? null : hashHex(o, 'chat_template_sha256'),
    tolerance: o.tolerance as number,
  };
}

/** A GGUF file a miner holds, as opoi.subscribe announces it: what a manifest names. */
export interface OpoiModelFile {
  /** SHA-256 of the file, lower-case hex. */
  readonly sha256: string;
  readonly size: number;
}

/** Whether a file is the one a manifest names. */
export function fileMatchesManifest(f: OpoiModelFile, m: Pick<OpoiManifest, 'ggufSha256' | 'ggufSize'>): boolean {
  return f.sha256 === m.ggufSha256 && f.size === m.ggufSize;
}

export function parseOpoiModelFile(v: unknown): OpoiModelFile {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw bad('a file must be {sha256, size}');
  const o = v as Record<string, unknown>;
  if (!Number.isSafeInteger(o.size) || (o.size as number) < 1) throw bad('a file size must be a positive integer');
  return { sha256: hashHex(o, 'sha256'), size: o.size as number };
}
