/**
 * The RPC authentication cookie, as Core's: when no rpcpassword is configured, csd writes
 * `__cookie__:<64 random hex digits>` to a file only its owner can read, and cs-cli (or anything
 * else running as that user) reads it to authenticate. A new password on every start; the file
 * is removed on clean shutdown.
 */
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';

export const COOKIE_USER = '__cookie__';

export interface RpcCredentials {
  readonly user: string;
  readonly password: string;
}

/**
 * Writes a fresh cookie and returns it. The file appears whole or not at all: it is written to
 * `<path>.tmp` created with mode 0600 (so it is never readable by others, not even briefly),
 * flushed, then renamed over the target.
 */
export async function writeCookie(path: string): Promise<RpcCredentials> {
  const credentials = { user: COOKIE_USER, password: randomBytes(32).toString('hex') };
  const temporary = `${path}.tmp`;
  // A leftover from a crash may have other permissions; 'wx' below must create the file anew.
  await rm(temporary, { force: true });
  const file = await open(temporary, 'wx', 0o600);
  try {
    await file.writeFile(`${credentials.user}:${credentials.password}`);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
  return credentials;
}

/** Removes the cookie on clean shutdown; an already missing file is fine. */
export async function removeCookie(path: string): Promise<void> {
  await rm(path, { force: true });
}

/**
 * Reads a cookie written by writeCookie, or returns null when there is none to read (no node
 * running, or no permission), which callers report as missing credentials, as bitcoin-cli does.
 */
export async function readCookie(path: string): Promise<RpcCredentials | null> {
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch {
    return null;
  }
  const line = content.split('\n')[0].replace(/\r$/, '');
  const colon = line.indexOf(':');
  return colon < 0 ? null : { user: line.slice(0, colon), password: line.slice(colon + 1) };
}
