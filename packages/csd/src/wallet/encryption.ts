/**
 * The wallet's lock: encryptwallet, walletpassphrase (unlock for a while), walletlock,
 * walletpassphrasechange. While unlocked the master key sits in memory; locking overwrites it.
 * Commands that derive keys from a passphrase take a while (scrypt), so they are queued one
 * after another and re-check the state when their turn comes.
 */
import { createMasterKey, decryptMasterKey, encryptMasterKey, type MasterKeyRecord } from './crypter.ts';
import { WalletError, lockedError } from './errors.ts';
import type { Keyring } from './keyring.ts';
import type { WalletStore } from './store.ts';

/** Core's MAX_SLEEP_TIME for walletpassphrase: about three years. */
export const MAX_UNLOCK_SECONDS = 100_000_000;
const MAX_TIMER_MS = 0x7fffffff;

export class Encryption {
  private masterKey: Uint8Array | null = null;
  private relockTimer: NodeJS.Timeout | null = null;
  private until = 0;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private record: MasterKeyRecord | null,
    private readonly keyring: Keyring,
    private readonly store: WalletStore,
    private readonly now: () => number,
  ) {}

  get encrypted(): boolean {
    return this.record !== null;
  }

  get locked(): boolean {
    return this.encrypted && this.masterKey === null;
  }

  /** Unix seconds until which the wallet stays unlocked; 0 while locked. */
  get unlockedUntil(): number {
    return this.masterKey ? this.until : 0;
  }

  /** The key that opens the wallet's secrets: null for an unencrypted wallet; throws (-13) while locked. */
  requireKey(): Uint8Array | null {
    if (!this.encrypted) return null;
    if (!this.masterKey) throw lockedError();
    return this.masterKey;
  }

  private serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** encryptwallet: seals every secret under a new master key in one transaction; the wallet is then locked. */
  encrypt(passphrase: string): Promise<void> {
    return this.serialize(async () => {
      if (this.encrypted) throw new WalletError('wrong-state', 'Error: running with an encrypted wallet, but encryptwallet was called.');
      const { masterKey, record } = await createMasterKey(passphrase);
      // Secrets imported while the key was being derived are sealed too: sealAll runs now.
      this.store.write((w) => {
        this.keyring.sealAll(masterKey, w);
        if (!this.keyring.opensWith(masterKey)) throw new WalletError('wallet', 'Error: Failed to encrypt the wallet.');
        w.putMasterKey(record);
      });
      masterKey.fill(0);
      this.record = record;
    });
  }

  /** walletpassphrase: unlocks for `seconds` (again, if already unlocked: the new timeout replaces the old). */
  unlock(passphrase: string, seconds: number): Promise<void> {
    return this.serialize(async () => {
      const record = this.record;
      if (!record) throw new WalletError('wrong-state', 'Error: running with an unencrypted wallet, but walletpassphrase was called.');
      const key = await decryptMasterKey(record, passphrase);
      if (!key || !this.keyring.opensWith(key)) throw new WalletError('wrong-passphrase', 'Error: The wallet passphrase entered was incorrect.');
      this.lock();
      this.masterKey = key;
      this.until = this.now() + seconds;
      this.armRelock(Date.now() + seconds * 1000);
    });
  }

  /** Node's timers cap at about 24.8 days, below walletpassphrase's longest timeout: re-arm until due. */
  private armRelock(dueMs: number): void {
    const wait = Math.min(dueMs - Date.now(), MAX_TIMER_MS);
    this.relockTimer = setTimeout(() => (Date.now() >= dueMs ? this.lock() : this.armRelock(dueMs)), Math.max(0, wait));
    this.relockTimer.unref();
  }

  /** walletlock (and the timeout's end): forget the master key. */
  lock(): void {
    if (this.relockTimer) clearTimeout(this.relockTimer);
    this.relockTimer = null;
    this.masterKey?.fill(0);
    this.masterKey = null;
    this.until = 0;
  }

  /** walletpassphrasechange: the same master key under a new passphrase; nothing else is re-encrypted. */
  change(oldPassphrase: string, newPassphrase: string): Promise<void> {
    return this.serialize(async () => {
      const record = this.record;
      if (!record) throw new WalletError('wrong-state', 'Error: running with an unencrypted wallet, but walletpassphrasechange was called.');
      const key = await decryptMasterKey(record, oldPassphrase);
      if (!key) throw new WalletError('wrong-passphrase', 'Error: The wallet passphrase entered was incorrect.');
      try {
        const next = await encryptMasterKey(key, newPassphrase);
        this.store.write((w) => w.putMasterKey(next));
        this.record = next;
      } finally {
        key.fill(0);
      }
    });
  }
}
