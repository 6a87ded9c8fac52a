import { join } from 'node:path';
import type { NetworkName } from '@cs/consensus/network-defaults';

/** Only HOME matters here; an object rather than process.env keeps tests hermetic. */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * `~/.cs`, as Core's `~/.bitcoin`. Like Core, a missing or empty HOME falls back to the root
 * directory rather than guessing from the password database.
 */
export function defaultDataDir(env: Env): string {
  return join(env.HOME || '/', '.cs');
}

/**
 * Where one network keeps its data: mainnet in the data directory itself, the others in a
 * subfolder, so that one cs.conf (which stays at the top) can serve all three.
 */
export function networkDataDir(dataDir: string, network: NetworkName): string {
  switch (network) {
    case 'main':
      return dataDir;
    case 'test':
      return join(dataDir, 'testnet');
    case 'regtest':
      return join(dataDir, 'regtest');
  }
}
