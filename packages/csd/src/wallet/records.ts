/**
 * The wallet's records in the node's database (table `wallet`) and their byte layouts. Like
 * Core's wallet database, one key-value table holds every kind of record; the first key byte says
 * which kind. Integers are little-endian inside values and big-endian inside keys (so that keys
 * sort by them). docs/wallet.md describes the layout for operators.
 */
import { Reader, Transaction, Writer, hashFromHex, hashToHex } from '@cs/consensus';
import type { MasterKeyRecord, SealedBox } from './crypter.ts';
import type { TxState } from './tx-state.ts';

export const RecordType = {
  /** name → small values: format version, birth time, best block. */
  META: 0x01,
  /** the HD seed (one record). */
  SEED: 0x02,
  /** address type → the account's extended public key. */
  ACCOUNT: 0x03,
  /** address type ‖ chain → next unused index. */
  COUNTER: 0x04,
  /** public key → an imported private key. */
  KEY: 0x05,
  /** output script → a watch-only script. */
  WATCH: 0x06,
  /** output script → label. */
  LABEL: 0x07,
  /** txid → wallet transaction. */
  TX: 0x08,
  /** txid ‖ be32(vout) → a coin locked by lockunspent. */
  LOCK: 0x09,
  /** the master key, encrypted under the passphrase (one record, present once encrypted). */
  MASTER_KEY: 0x0a,
} as const;

/** Bumped when a record layout changes. */
export const WALLET_FORMAT_VERSION = 1;

export type AddressType = 'bech32' | 'legacy';
export const ADDRESS_TYPES: readonly AddressType[] = ['bech32', 'legacy'];
/** BIP44 chains: 0 for addresses handed out, 1 for change. */
export type KeyChain = 0 | 1;
export const EXTERNAL: KeyChain = 0;
export const INTERNAL: KeyChain = 1;

/** A secret in the clear (unencrypted wallet) or sealed under the master key. */
export type Secret = { readonly kind: 'plain'; readonly bytes: Uint8Array } | { readonly kind: 'sealed'; readonly box: SealedBox };

export interface SeedRecord {
  readonly secret: Secret;
  /** HASH160 of the master public key (getwalletinfo's hdseedid). */
  readonly seedId: Uint8Array;
  readonly masterFingerprint: number;
}

/** An account's extended public key (m/purpose'/coin'/0'): addresses derive from it without the seed. */
export interface AccountRecord {
  readonly publicKey: Uint8Array;
  readonly chainCode: Uint8Array;
  readonly parentFingerprint: number;
}

export interface ImportedKeyRecord {
  readonly secret: Secret;
  /** Unix seconds when it was imported. */
  readonly birth: number;
}

export interface TxRecord {
  readonly tx: Transaction;
  readonly state: TxState;
  /** Unix seconds when the wallet first saw the transaction. */
  readonly timeReceived: number;
  /** What listings show as `time`: the block time for transactions first seen in a block. */
  readonly time: number;
  /** Insertion order, for listtransactions. */
  readonly orderPos: number;
  readonly comment: string;
  readonly commentTo: string;
}

export interface BestBlock {
  readonly hash: string;
  readonly height: number;
}

const ADDRESS_TYPE_BYTE: Readonly<Record<AddressType, number>> = { bech32: 0, legacy: 1 };

function key(type: number, ...parts: Uint8Array[]): Buffer {
  return Buffer.concat([Buffer.of(type), ...parts]);
}

function be32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

export const keys = {
  meta: (name: string) => key(RecordType.META, Buffer.from(name)),
  seed: () => key(RecordType.SEED),
  account: (type: AddressType) => key(RecordType.ACCOUNT, Buffer.of(ADDRESS_TYPE_BYTE[type])),
  counter: (type: AddressType, chain: KeyChain) => key(RecordType.COUNTER, Buffer.of(ADDRESS_TYPE_BYTE[type], chain)),
  key: (publicKey: Uint8Array) => key(RecordType.KEY, publicKey),
  watch: (script: Uint8Array) => key(RecordType.WATCH, script),
  label: (script: Uint8Array) => key(RecordType.LABEL, script),
  tx: (txid: string) => key(RecordType.TX, hashFromHex(txid)),
  lock: (txid: string, vout: number) => key(RecordType.LOCK, hashFromHex(txid), be32(vout)),
  masterKey: () => key(RecordType.MASTER_KEY),
};

export function addressTypeFromByte(b: number): AddressType {
  const type = ADDRESS_TYPES.find((t) => ADDRESS_TYPE_BYTE[t] === b);
  if (!type) throw new Error(`unknown address type byte ${b}`);
  return type;
}

/** A copy: database values arrive as Buffers, whose slice() is a view that later writes would alter. */
function copy(b: Uint8Array): Uint8Array {
  return new Uint8Array(b);
}

function finish(w: Writer): Buffer {
  const bytes = w.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

// ---- secrets ----

function writeSecret(w: Writer, s: Secret): Writer {
  if (s.kind === 'plain') return w.u8(0).varBytes(s.bytes);
  return w.u8(1).varBytes(s.box.nonce).varBytes(s.box.data);
}

function readSecret(r: Reader): Secret {
  const kind = r.u8();
  if (kind === 0) return { kind: 'plain', bytes: copy(r.varBytes()) };
  if (kind === 1) return { kind: 'sealed', box: { nonce: copy(r.varBytes()), data: copy(r.varBytes()) } };
  throw new Error(`unknown secret kind ${kind}`);
}

// ---- records ----

export function encodeSeed(s: SeedRecord): Buffer {
  return finish(writeSecret(new Writer(128), s.secret).bytes(s.seedId).u32le(s.masterFingerprint));
}

export function decodeSeed(b: Uint8Array): SeedRecord {
  const r = new Reader(b);
  const secret = readSecret(r);
  const seedId = copy(r.bytes(20, 'seed id'));
  const masterFingerprint = r.u32le();
  r.end('seed record');
  return { secret, seedId, masterFingerprint };
}

export function encodeAccount(a: AccountRecord): Buffer {
  return finish(new Writer(72).bytes(a.publicKey).bytes(a.chainCode).u32le(a.parentFingerprint));
}

export function decodeAccount(b: Uint8Array): AccountRecord {
  const r = new Reader(b);
  const publicKey = copy(r.bytes(33, 'public key'));
  const chainCode = copy(r.bytes(32, 'chain code'));
  const parentFingerprint = r.u32le();
  r.end('account record');
  return { publicKey, chainCode, parentFingerprint };
}

export function encodeU32(n: number): Buffer {
  return finish(new Writer(4).u32le(n));
}

export function decodeU32(b: Uint8Array): number {
  const r = new Reader(b);
  const n = r.u32le();
  r.end('u32');
  return n;
}

export function encodeImportedKey(k: ImportedKeyRecord): Buffer {
  return finish(writeSecret(new Writer(96), k.secret).u32le(k.birth));
}

export function decodeImportedKey(b: Uint8Array): ImportedKeyRecord {
  const r = new Reader(b);
  const secret = readSecret(r);
  const birth = r.u32le();
  r.end('key record');
  return { secret, birth };
}

export function encodeBestBlock(b: BestBlock): Buffer {
  return finish(new Writer(36).bytes(hashFromHex(b.hash)).u32le(b.height));
}

export function decodeBestBlock(b: Uint8Array): BestBlock {
  const r = new Reader(b);
  const hash = hashToHex(r.bytes(32, 'block hash'));
  const height = r.u32le();
  r.end('best block');
  return { hash, height };
}

export function encodeMasterKey(m: MasterKeyRecord): Buffer {
  const w = new Writer(128).varBytes(m.kdf.salt).u32le(m.kdf.n).u32le(m.kdf.r).u32le(m.kdf.p);
  return finish(w.varBytes(m.box.nonce).varBytes(m.box.data));
}

export function decodeMasterKey(b: Uint8Array): MasterKeyRecord {
  const r = new Reader(b);
  const salt = copy(r.varBytes());
  const n = r.u32le();
  const rr = r.u32le();
  const p = r.u32le();
  const box = { nonce: copy(r.varBytes()), data: copy(r.varBytes()) };
  r.end('master key record');
  return { kdf: { salt, n, r: rr, p }, box };
}

const STATE_CONFIRMED = 0;
const STATE_INACTIVE = 1;
const STATE_CONFLICTED = 2;

function writeState(w: Writer, s: TxState): Writer {
  switch (s.kind) {
    case 'confirmed':
      return w.u8(STATE_CONFIRMED).bytes(hashFromHex(s.blockHash)).u32le(s.height).u32le(s.index).u32le(s.blockTime);
    case 'inactive':
      return w.u8(STATE_INACTIVE).u8(s.abandoned ? 1 : 0);
    case 'conflicted':
      return w.u8(STATE_CONFLICTED).bytes(hashFromHex(s.blockHash)).u32le(s.height);
  }
}

function readState(r: Reader): TxState {
  const kind = r.u8();
  switch (kind) {
    case STATE_CONFIRMED: {
      const blockHash = hashToHex(r.bytes(32, 'block hash'));
      return { kind: 'confirmed', blockHash, height: r.u32le(), index: r.u32le(), blockTime: r.u32le() };
    }
    case STATE_INACTIVE:
      return { kind: 'inactive', abandoned: r.u8() === 1 };
    case STATE_CONFLICTED: {
      const blockHash = hashToHex(r.bytes(32, 'block hash'));
      return { kind: 'conflicted', blockHash, height: r.u32le() };
    }
    default:
      throw new Error(`unknown transaction state ${kind}`);
  }
}

export function encodeTx(t: TxRecord): Buffer {
  const w = new Writer(256).varBytes(t.tx.encode());
  writeState(w, t.state);
  w.i64le(BigInt(t.timeReceived)).i64le(BigInt(t.time)).u32le(t.orderPos);
  return finish(w.varBytes(Buffer.from(t.comment)).varBytes(Buffer.from(t.commentTo)));
}

export function decodeTx(b: Uint8Array): TxRecord {
  const r = new Reader(b);
  const tx = Transaction.decode(copy(r.varBytes()));
  const state = readState(r);
  const timeReceived = Number(r.i64le());
  const time = Number(r.i64le());
  const orderPos = r.u32le();
  const comment = Buffer.from(r.varBytes()).toString();
  const commentTo = Buffer.from(r.varBytes()).toString();
  r.end('transaction record');
  return { tx, state, timeReceived, time, orderPos, comment, commentTo };
}
