/**
 * The wallet's keys and scripts: the HD seed with one BIP44-style account per address type
 * (BIP84 m/84'/coin'/0' for bech32, BIP44 m/44'/coin'/0' for legacy), imported private keys and
 * watch-only scripts, and which output scripts they make "mine".
 *
 * Addresses derive from the accounts' extended public keys, which are stored in the clear, so a
 * locked wallet still hands out addresses; private keys derive from the seed on demand. Every
 * chain (receive, change) is watched `lookahead` indexes past the next unused one (Core's
 * keypool), so that payments to addresses handed out by a restored older backup are still found.
 */
import { randomBytes } from 'node:crypto';
import { hash160, p2pkhScript, p2wpkhScript, toHex } from '@cs/consensus';
import { open, seal } from './crypter.ts';
import { lockedError } from './errors.ts';
import { ExtendedKey, HARDENED } from './hd.ts';
import {
  ADDRESS_TYPES,
  type AccountRecord,
  type AddressType,
  type ImportedKeyRecord,
  type KeyChain,
  type Secret,
  type SeedRecord,
} from './records.ts';
import { counterKey, type StoredWallet, type WalletWriter } from './store.ts';

/** Core's -keypool default: how far past the last used index each chain is watched. */
export const DEFAULT_LOOKAHEAD = 1000;
const SEED_BYTES = 32;
const PURPOSE: Readonly<Record<AddressType, number>> = { bech32: 84, legacy: 44 };
/** Associated data of sealed secrets: what each ciphertext is, so none can stand in for another. */
const SEED_AAD = Buffer.from('cs-wallet seed');

/** Why the wallet considers a script its own. */
export type Ownership =
  | { readonly kind: 'hd'; readonly type: AddressType; readonly chain: KeyChain; readonly index: number; readonly publicKey: Uint8Array }
  | { readonly kind: 'imported'; readonly publicKey: Uint8Array }
  | { readonly kind: 'watch' };

export type KeyOwnership = Exclude<Ownership, { kind: 'watch' }>;

/** The output script an address type pays a public key with. */
export function scriptForKey(type: AddressType, publicKey: Uint8Array): Uint8Array {
  return type === 'bech32' ? p2wpkhScript(hash160(publicKey)) : p2pkhScript(hash160(publicKey));
}

/** Records of a new wallet: a random seed and the accounts derived from it. */
export function generateWallet(coinType: number): { seed: SeedRecord; accounts: Map<AddressType, AccountRecord> } {
  const seedBytes = new Uint8Array(randomBytes(SEED_BYTES));
  const master = ExtendedKey.fromSeed(seedBytes);
  const accounts = new Map<AddressType, AccountRecord>();
  for (const type of ADDRESS_TYPES) {
    const account = master.derivePath(accountPath(type, coinType));
    accounts.set(type, { publicKey: account.publicKey, chainCode: account.chainCode, parentFingerprint: account.parentFingerprint });
    account.wipe();
  }
  const seed: SeedRecord = { secret: { kind: 'plain', bytes: seedBytes }, seedId: hash160(master.publicKey), masterFingerprint: master.fingerprint };
  master.wipe();
  return { seed, accounts };
}

function accountPath(type: AddressType, coinType: number): number[] {
  return [HARDENED + PURPOSE[type], HARDENED + coinType, HARDENED];
}

interface DerivedChain {
  readonly type: AddressType;
  readonly chain: KeyChain;
  readonly node: ExtendedKey;
  readonly keys: Uint8Array[];
}

/** Keys of a lookahead window derived per turn of the event loop while the rest is left to the background. */
const BACKGROUND_SLICE = 50;

export class Keyring {
  private seed: SeedRecord;
  private readonly chains = new Map<string, DerivedChain>();
  private readonly counters = new Map<string, number>();
  private readonly byScript = new Map<string, Ownership>();
  /** HASH160 of a public key → its ownership: how the signer finds the key of P2PKH and P2WPKH outputs. */
  private readonly byKeyHash = new Map<string, KeyOwnership>();
  private readonly imported = new Map<string, { readonly publicKey: Uint8Array; record: ImportedKeyRecord }>();
  private readonly watched = new Map<string, number>();
  private readonly labels = new Map<string, string>();
  /**
   * Chains whose lookahead window is not fully derived. Four windows of -keypool keys are about a
   * second of curve arithmetic, which would delay every start: they are derived a slice at a time
   * once the constructor returns, and every lookup of keys or scripts finishes them first, so no
   * answer misses a key.
   */
  private readonly underived = new Set<DerivedChain>();

  constructor(
    stored: Pick<StoredWallet, 'seed' | 'accounts' | 'counters' | 'keys' | 'watch' | 'labels'>,
    private readonly coinType: number,
    readonly lookahead: number,
    readonly birth: number,
  ) {
    this.seed = stored.seed;
    for (const [key, next] of stored.counters) this.counters.set(key, next);
    for (const type of ADDRESS_TYPES) {
      const a = stored.accounts.get(type)!;
      const account = ExtendedKey.fromPublic(a.publicKey, a.chainCode, 3, a.parentFingerprint, HARDENED);
      for (const chain of [0, 1] as const) {
        const derived: DerivedChain = { type, chain, node: account.derive(chain), keys: [] };
        this.chains.set(counterKey(type, chain), derived);
        this.underived.add(derived);
      }
    }
    for (const { publicKey, record } of stored.keys.values()) this.addImportedInMemory(publicKey, record);
    for (const [script, birth] of stored.watch) {
      this.watched.set(script, birth);
      if (!this.byScript.has(script)) this.byScript.set(script, { kind: 'watch' });
    }
    for (const [script, label] of stored.labels) this.labels.set(script, label);
    this.deriveInBackground();
  }

  // ---- queries ----

  ownership(script: Uint8Array): Ownership | undefined {
    this.deriveAll();
    return this.byScript.get(toHex(script));
  }

  /** The key whose HASH160 is `keyHash`, if the wallet holds it. */
  keyForHash(keyHash: Uint8Array): KeyOwnership | undefined {
    this.deriveAll();
    return this.byKeyHash.get(toHex(keyHash));
  }

  label(script: Uint8Array): string | undefined {
    return this.labels.get(toHex(script));
  }

  get seedId(): Uint8Array {
    return this.seed.seedId;
  }

  get masterFingerprint(): number {
    return this.seed.masterFingerprint;
  }

  /** Whether keys or scripts were imported. */
  get holdsImports(): boolean {
    return this.imported.size > 0 || this.watched.size > 0;
  }

  /** Whether any watch-only script was imported (getbalances then shows `watchonly`). */
  get watchesScripts(): boolean {
    return this.watched.size > 0;
  }

  get encrypted(): boolean {
    return this.seed.secret.kind === 'sealed';
  }

  /** The BIP32 path of an HD key. */
  path(own: Extract<Ownership, { kind: 'hd' }>): number[] {
    return [...accountPath(own.type, this.coinType), own.chain, own.index];
  }

  /** When a script became the wallet's (getaddressinfo `timestamp`). */
  birthOf(own: Ownership, script: Uint8Array): number {
    if (own.kind === 'imported') return this.imported.get(toHex(own.publicKey))!.record.birth;
    if (own.kind === 'watch') return this.watched.get(toHex(script)) ?? this.birth;
    return this.birth;
  }

  nextIndex(type: AddressType, chain: KeyChain): number {
    return this.counters.get(counterKey(type, chain)) ?? 0;
  }

  /** The script the next address of a chain would pay to, without using it up. */
  peek(type: AddressType, chain: KeyChain): { index: number; script: Uint8Array } {
    this.deriveAll();
    const index = this.nextIndex(type, chain);
    return { index, script: scriptForKey(type, this.chains.get(counterKey(type, chain))!.keys[index]) };
  }

  // ---- changes (each persisted through the writer of the caller's transaction) ----

  /**
   * Records that index `index` of a chain is in use (handed out, or seen paying us), so it is
   * never handed out again, and moves the lookahead window past it. Returns whether it moved.
   */
  markUsed(type: AddressType, chain: KeyChain, index: number, w: WalletWriter): boolean {
    if (index < this.nextIndex(type, chain)) return false;
    this.counters.set(counterKey(type, chain), index + 1);
    w.putCounter(type, chain, index + 1);
    this.extendLookahead(this.chains.get(counterKey(type, chain))!);
    return true;
  }

  /** Adds an imported key (sealed under `masterKey` when the wallet is encrypted). */
  importKey(privateKey: Uint8Array, publicKey: Uint8Array, birth: number, masterKey: Uint8Array | null, w: WalletWriter): void {
    if (this.encrypted && !masterKey) throw lockedError();
    const secret: Secret = masterKey
      ? { kind: 'sealed', box: seal(masterKey, privateKey, publicKey) }
      : { kind: 'plain', bytes: new Uint8Array(privateKey) };
    const record: ImportedKeyRecord = { secret, birth };
    w.putKey(publicKey, record);
    this.addImportedInMemory(publicKey, record);
  }

  watch(script: Uint8Array, birth: number, w: WalletWriter): void {
    const hex = toHex(script);
    w.putWatch(script, birth);
    this.watched.set(hex, birth);
    if (!this.byScript.has(hex)) this.byScript.set(hex, { kind: 'watch' });
  }

  setLabel(script: Uint8Array, label: string, w: WalletWriter): void {
    w.putLabel(script, label);
    this.labels.set(toHex(script), label);
  }

  /** Seals the seed and every imported key under `masterKey` (encryptwallet). */
  sealAll(masterKey: Uint8Array, w: WalletWriter): void {
    const seedBytes = this.secretBytes(this.seed.secret, SEED_AAD, null);
    this.seed = { ...this.seed, secret: { kind: 'sealed', box: seal(masterKey, seedBytes, SEED_AAD) } };
    seedBytes.fill(0);
    w.putSeed(this.seed);
    for (const entry of this.imported.values()) {
      const key = this.secretBytes(entry.record.secret, entry.publicKey, null);
      entry.record = { ...entry.record, secret: { kind: 'sealed', box: seal(masterKey, key, entry.publicKey) } };
      key.fill(0);
      w.putKey(entry.publicKey, entry.record);
    }
  }

  /** Whether `masterKey` opens the seed: the check after encrypting and before trusting a master key. */
  opensWith(masterKey: Uint8Array): boolean {
    if (this.seed.secret.kind !== 'sealed') return false;
    const bytes = open(masterKey, this.seed.secret.box, SEED_AAD);
    bytes?.fill(0);
    return bytes !== null;
  }

  // ---- private keys ----

  /** The private key of a key the wallet holds; `masterKey` is needed once the wallet is encrypted. */
  privateKey(own: KeyOwnership, masterKey: Uint8Array | null): Uint8Array {
    if (own.kind === 'imported') {
      const entry = this.imported.get(toHex(own.publicKey))!;
      return this.secretBytes(entry.record.secret, entry.publicKey, masterKey);
    }
    const seedBytes = this.secretBytes(this.seed.secret, SEED_AAD, masterKey);
    const master = ExtendedKey.fromSeed(seedBytes);
    seedBytes.fill(0);
    const child = master.derivePath(this.path(own));
    master.wipe();
    return child.privateKey!;
  }

  private secretBytes(secret: Secret, aad: Uint8Array, masterKey: Uint8Array | null): Uint8Array {
    if (secret.kind === 'plain') return new Uint8Array(secret.bytes);
    if (!masterKey) throw lockedError();
    const bytes = open(masterKey, secret.box, aad);
    if (!bytes) throw new Error('a wallet secret does not decrypt with the master key: the wallet is damaged');
    return bytes;
  }

  // ---- internals ----

  private deriveInBackground(): void {
    const slice = () => {
      const [next] = this.underived;
      if (next === undefined) return;
      if (this.extendLookahead(next, BACKGROUND_SLICE)) this.underived.delete(next);
      setImmediate(slice).unref();
    };
    setImmediate(slice).unref();
  }

  private deriveAll(): void {
    for (const derived of this.underived) this.extendLookahead(derived);
    this.underived.clear();
  }

  /** Derives up to `limit` more keys of a chain's lookahead window; returns whether the window is whole. */
  private extendLookahead(derived: DerivedChain, limit = Number.POSITIVE_INFINITY): boolean {
    const { type, chain } = derived;
    const wanted = Math.min(this.nextIndex(type, chain) + this.lookahead, derived.keys.length + limit);
    while (derived.keys.length < wanted) {
      const index = derived.keys.length;
      // An invalid child (odds below 2^-127) would stop the wallet; BIP32 skips it, which
      // would break the index-to-key mapping the counters rely on, so it is left fatal.
      const publicKey = derived.node.derive(index).publicKey;
      derived.keys.push(publicKey);
      const own: Ownership = { kind: 'hd', type, chain, index, publicKey };
      this.byScript.set(toHex(scriptForKey(type, publicKey)), own);
      this.byKeyHash.set(toHex(hash160(publicKey)), own);
    }
    return derived.keys.length >= this.nextIndex(type, chain) + this.lookahead;
  }

  private addImportedInMemory(publicKey: Uint8Array, record: ImportedKeyRecord): void {
    const hex = toHex(publicKey);
    this.imported.set(hex, { publicKey, record });
    const own: Ownership = { kind: 'imported', publicKey };
    const keyHash = toHex(hash160(publicKey));
    // An HD key imported again stays an HD key: its path is more useful than the import.
    if (!this.byKeyHash.has(keyHash)) this.byKeyHash.set(keyHash, own);
    const scripts = [p2pkhScript(hash160(publicKey))];
    // Segwit v0 requires compressed keys (policy WITNESS_PUBKEYTYPE): no P2WPKH for the others.
    if (publicKey.length === 33) scripts.push(p2wpkhScript(hash160(publicKey)));
    for (const script of scripts) {
      const s = toHex(script);
      const existing = this.byScript.get(s);
      if (!existing || existing.kind === 'watch') this.byScript.set(s, own);
    }
  }
}
