import { open, readFile, rename, unlink } from 'node:fs/promises';

/**
 * Writes `bytes` to `path` so that a crash leaves either the old file or the new one, never a
 * torn mix: write a temporary file beside it, flush it to disk, then rename it over the target
 * (atomic on POSIX filesystems), as Core does for mempool.dat and fee_estimates.dat.
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const temp = `${path}.new`;
  const file = await open(temp, 'w');
  try {
    await file.writeFile(bytes);
    await file.sync();
  } catch (e) {
    await file.close();
    await unlink(temp).catch(() => undefined);
    throw e;
  }
  await file.close();
  await rename(temp, path);
}

/** The file's contents, or null when it does not exist (a first start). */
export async function readOptionalFile(path: string): Promise<Uint8Array | null> {
  try {
    return await readFile(path);
  } catch (e) {
    if (e instanceof Error && 'code' in e && e.code === 'ENOENT') return null;
    throw e;
  }
}
