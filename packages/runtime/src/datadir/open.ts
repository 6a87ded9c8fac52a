import { lockDataDir, type DataDirLock } from './lock.ts';
import { prepareDataDir } from './prepare.ts';

/**
 * A daemon's first step on disk: create the data directory and the network's folder if needed,
 * then take the single-instance lock on the network folder. Throws DataDirError or
 * DataDirLockedError (print "Error: " + message and exit 1) before anything has been written to a
 * running daemon's directory, so a second instance leaves the first untouched.
 */
export async function openDataDir(paths: { readonly dataDir: string; readonly networkDir: string }, program = 'csd'): Promise<DataDirLock> {
  prepareDataDir(paths);
  return lockDataDir(paths.networkDir, program);
}
