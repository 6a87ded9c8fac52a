/**
 * The backup file (backupwallet, restorewallet): every wallet record, read in one database
 * snapshot, with the network it belongs to and a checksum; written to a temporary file, synced
 * and renamed, so a backup on disk is always complete. Records go in as stored: an encrypted
 * wallet's backup holds its secrets encrypted. docs/wallet.md gives the layout.
 */
import { open, readFile, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Reader, Writer, bytesEqual, sha256d } from '@cs/consensus';

const MAGIC = Buffer.from('CSWALLET');
const BACKUP_VERSION = 1;
/** The file name used when the destination is a directory. */
export const DEFAULT_BACKUP_NAME = 'wallet.backup';

export interface WalletRecord {
  readonly key: Buffer;
  readonly value: Buffer;
}

export function encodeBackup(network: string, records: readonly WalletRecord[]): Uint8Array {
  const w = new Writer(4096).bytes(MAGIC).u32le(BACKUP_VERSION).varBytes(Buffer.from(network)).compactSize(records.length);
  for (const r of records) w.varBytes(r.key).varBytes(r.value);
  const body = w.finish();
  return new Writer(body.length + 4).bytes(body).bytes(sha256d(body).subarray(0, 4)).finish();
}

/** The records of a backup for `network`; throws with the reason when the file is not one. */
export function decodeBackup(bytes: Uint8Array, network: string): WalletRecord[] {
  if (bytes.length < MAGIC.length + 8 || !bytesEqual(bytes.subarray(0, MAGIC.length), MAGIC)) throw new Error('not a csd wallet backup');
  const body = bytes.subarray(0, bytes.length - 4);
  if (!bytesEqual(sha256d(body).subarray(0, 4), bytes.subarray(bytes.length - 4))) throw new Error('the backup is damaged (checksum mismatch)');
  const r = new Reader(body);
  r.bytes(MAGIC.length);
  const version = r.u32le();
  if (version !== BACKUP_VERSION) throw new Error(`backup version ${version} is not supported`);
  const fileNetwork = Buffer.from(r.varBytes()).toString();
  if (fileNetwork !== network) throw new Error(`the backup belongs to the ${fileNetwork} network, not ${network}`);
  const count = r.compactSize();
  const records: WalletRecord[] = [];
  for (let i = 0; i < count; i++) records.push({ key: Buffer.from(r.varBytes()), value: Buffer.from(r.varBytes()) });
  r.end('wallet backup');
  return records;
}

/** Writes `bytes` to `destination` (or into it, when it is a directory) atomically; returns the file written. */
export async function writeBackupFile(destination: string, bytes: Uint8Array): Promise<string> {
  let path = destination;
  try {
    if ((await stat(destination)).isDirectory()) path = join(destination, DEFAULT_BACKUP_NAME);
  } catch {
    // Does not exist yet: it is the file to write.
  }
  const tmp = `${path}.tmp-${process.pid}`;
  const file = await open(tmp, 'w', 0o600);
  try {
    await file.writeFile(bytes);
    await file.sync();
  } catch (e) {
    await file.close();
    await rm(tmp, { force: true });
    throw e;
  }
  await file.close();
  await rename(tmp, path);
  return path;
}

export async function readBackupFile(path: string, network: string): Promise<WalletRecord[]> {
  return decodeBackup(await readFile(path), network);
}
