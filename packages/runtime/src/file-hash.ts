/**
 * A file's identity as a model manifest names it: the SHA-256 of its bytes and its size (any file
 * works; the manifests' files are GGUF models). The file is streamed through the hash, so a model of
 * several gigabytes never sits in memory; the size is the byte count hashed (not a separate stat),
 * so a file that changes while it is read cannot pair one version's hash with another's size.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export interface FileIdentity {
  /** Lowercase hex, 64 digits. */
  readonly sha256: string;
  readonly size: number;
}

export async function ggufFileIdentity(path: string): Promise<FileIdentity> {
  const hash = createHash('sha256');
  let size = 0;
  // 4 MiB reads: large enough that a multi-gigabyte file is a few hundred reads, small enough to stay out of the way.
  for await (const chunk of createReadStream(path, { highWaterMark: 4 << 20 })) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), size };
}
