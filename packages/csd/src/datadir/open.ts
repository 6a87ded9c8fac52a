import type { NodePaths } from '../config/node-config.ts';
import { lockDataDir, type DataDirLock } from './lock.ts';
import { prepareDataDir } from './prepare.ts';

/**
 * csd's first step on disk: create the data directory and the network's folder if needed, then
 * take the single-instance lock on the network folder. Throws DataDirError or DataDirLockedError
 * (print "Error: " + message and exit 1) before anything has been written to a running node's
 * directory, so a second csd leaves the first untouched.
 */
export async function openDataDir(paths: Pick<NodePaths, 'dataDir' | 'networkDir'>): Promise<DataDirLock> {
  prepareDataDir(paths);
  return lockDataDir(paths.networkDir);
}
