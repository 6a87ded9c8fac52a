/**
 * One process per network data directory. The lock is a listening Linux abstract unix socket
 * named after the directory's real path: only one process can bind a name, and the kernel frees
 * it the moment the holder dies, however it dies (kill -9 included), so a crash never leaves a
 * stale lock to clean up and nothing is written to the directory. A lock file with flock() would
 * give the same, but Node has no flock without a native addon.
 *
 * Limits: Linux only, and abstract names are per network namespace, so two containers with their
 * own network namespaces sharing one volume do not see each other's lock (docs/configuration.md).
 */
import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { createServer } from 'node:net';

/** Another process holds the lock; the message is the one to show the operator. */
export class DataDirLockedError extends Error {
  override readonly name = 'DataDirLockedError';
}

export interface DataDirLock {
  /** The directory as given to lockDataDir. */
  readonly dir: string;
  /** Frees the lock for a successor; safe to call more than once. */
  release(): Promise<void>;
}

/** The abstract socket name ('\0' first) for a directory; symlinked spellings share one name. */
function lockSocketName(dir: string, program: string): string {
  const digest = createHash('sha256').update(realpathSync(dir)).digest('hex');
  return `\0${program}-lock:${digest}`;
}

/**
 * Takes the lock on an existing directory or throws DataDirLockedError. `program` names the lock
 * space and the message, so the bridge can lock its own directories without colliding with csd.
 */
export async function lockDataDir(dir: string, program = 'csd'): Promise<DataDirLock> {
  if (process.platform !== 'linux') {
    throw new Error('locking the data directory needs Linux (abstract unix sockets)');
  }
  const name = lockSocketName(dir, program);
  // Whoever connects (nobody should) is dropped: the socket exists only to be bound.
  const server = createServer((socket) => socket.destroy());
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen({ path: name }, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new DataDirLockedError(`Cannot obtain a lock on data directory ${dir}. ${program} is probably already running.`);
    }
    throw error;
  }
  // The lock must not be what keeps the process alive.
  server.unref();
  let released: Promise<void> | undefined;
  return {
    dir,
    release: () => (released ??= new Promise<void>((resolve) => server.close(() => resolve()))),
  };
}
