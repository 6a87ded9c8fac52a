import { mkdirSync, statSync } from 'node:fs';

/** The data directory cannot be used: it is a file, or it cannot be created. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

/**
 * Creates the data directory and the network's folder inside it when missing. New folders are
 * owner-only (0700): they will hold the wallet and the RPC cookie. Existing folders keep their
 * mode; tightening an operator's choice silently is not ours to do.
 */
export function prepareDataDir(paths: { readonly dataDir: string; readonly networkDir: string }): void {
  for (const dir of new Set([paths.dataDir, paths.networkDir])) {
    const stat = statSync(dir, { throwIfNoEntry: false });
    if (stat?.isDirectory()) continue;
    if (stat) throw new DataDirError(`Specified data directory "${dir}" is not a directory.`);
    try {
      mkdirSync(dir, { recursive: true, mode: 0o700 });
    } catch (error) {
      throw new DataDirError(`Cannot create data directory "${dir}": ${(error as Error).message}`);
    }
  }
}
