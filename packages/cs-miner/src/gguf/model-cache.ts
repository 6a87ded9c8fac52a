/**
 * Generated models written once and kept on disk, so that tests and benches that need a larger
 * model than the tiny one do not regenerate it every run: the file name carries the seed, the
 * shape and the generator's version, and a file is written to a temporary name and renamed, so a
 * reader never sees half of one (and two processes writing the same file write the same bytes).
 */
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tinyLlamaGguf, type TinyLlamaShape } from './tiny-llama.ts';

/**
 * Raised whenever tinyLlamaGguf's output changes for a given seed and shape, so that no stale
 * cached file is read: 3 since attention was scaled up and the control tokens' output rows zeroed
 * (tiny-llama.ts).
 */
const GENERATOR_VERSION = 3;

/**
 * The larger model of the tests and benches: 8 layers and a 32,000-token SentencePiece vocabulary
 * (the byte-level 260 and 31,740 merged pieces), as deep and as wide in vocabulary as small real
 * llama models, with a 128-wide embedding so that the file stays about 35 MB.
 */
export const LARGE_LLAMA: TinyLlamaShape = { layers: 8, embedding: 128, heads: 4, feedForward: 384, context: 1024, pieces: 31_740 };

/** The path of the model for `seed` and `shape`, written first if it is not already there. */
export function cachedModel(seed: number, shape: TinyLlamaShape, dir = join(tmpdir(), 'cs-miner-models')): string {
  const s = shape;
  const path = join(
    dir,
    `llama-v${GENERATOR_VERSION}-l${s.layers}-e${s.embedding}-h${s.heads}-f${s.feedForward}-c${s.context}-p${s.pieces ?? 0}-seed${seed}.gguf`,
  );
  if (existsSync(path)) return path;
  mkdirSync(dir, { recursive: true });
  const partial = `${path}.${process.pid}.tmp`;
  writeFileSync(partial, tinyLlamaGguf(seed, shape));
  renameSync(partial, path);
  return path;
}
