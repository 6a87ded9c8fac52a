/**
 * The wallet's persistence: reads every record at load, and writes changes inside one database
 * transaction per wallet state change, so a killed process leaves either all of a change or none
 * of it (an address handed out with its counter, a transaction with the coins it spends).
 */
import { hashToHex } from '@cs/consensus';
import type { ChainDatabase, Table } from '../storage/database.ts';
import type { MasterKeyRecord } from './crypter.ts';
import {
  ADDRESS_TYPES,
  RecordType,
  WALLET_FORMAT_VERSION,
  addressTypeFromByte,
  decodeAccount,
  decodeBestBlock,
  decodeImportedKey,
  decodeMasterKey,
  decodeSeed,
  decodeTx,
  decodeU32,
  encodeAccount,
  encodeBestBlock,
  encodeImportedKey,
  encodeMasterKey,
  encodeSeed,
  encodeTx,
  encodeU32,
  keys,
  type AccountRecord,
  type AddressType,
  type BestBlock,
  type ImportedKeyRecord,
  type KeyChain,
  type SeedRecord,
  type TxRecord,
} from './records.ts';

/** Everything stored, decoded. */
export interface StoredWallet {
  readonly version: number;
  readonly birth: number;
  readonly seed: SeedRecord;
  readonly accounts: ReadonlyMap<AddressType, AccountRecord>;
  /** `${type}/${chain}` → next unused index. */
  readonly counters: ReadonlyMap<string, number>;
  /** public key hex → record. */
  readonly keys: ReadonlyMap<string, { readonly publicKey: Uint8Array; readonly record: ImportedKeyRecord }>;
  /** script hex → birth time. */
  readonly watch: ReadonlyMap<string, number>;
  /** script hex → label. */
  readonly labels: ReadonlyMap<string, string>;
  readonly txs: readonly TxRecord[];
  /** `${txid}:${vout}` of persistent locks. */
  readonly locks: readonly { readonly txid: string; readonly vout: number }[];
  readonly masterKey: MasterKeyRecord | null;
  readonly bestBlock: BestBlock | null;
}

export function counterKey(type: AddressType, chain: KeyChain): string {
  return `${type}/${chain}`;
}

/** Puts and removes for one write transaction; only valid inside WalletStore.write. */
export class WalletWriter {
  constructor(private readonly table: Table) {}

  private put(key: Buffer, value: Buffer): void {
    this.table.put(key, value);
  }

  putMeta(name: 'version' | 'birth', value: number): void {
    this.put(keys.meta(name), encodeU32(value));
  }

  putBestBlock(best: BestBlock): void {
    this.put(keys.meta('bestblock'), encodeBestBlock(best));
  }

  putSeed(seed: SeedRecord): void {
    this.put(keys.seed(), encodeSeed(seed));
  }

  putAccount(type: AddressType, account: AccountRecord): void {
    this.put(keys.account(type), encodeAccount(account));
  }

  putCounter(type: AddressType, chain: KeyChain, next: number): void {
    this.put(keys.counter(type, chain), encodeU32(next));
  }

  putKey(publicKey: Uint8Array, record: ImportedKeyRecord): void {
    this.put(keys.key(publicKey), encodeImportedKey(record));
  }

  putWatch(script: Uint8Array, birth: number): void {
    this.put(keys.watch(script), encodeU32(birth));
  }

  putLabel(script: Uint8Array, label: string): void {
    this.put(keys.label(script), Buffer.from(label));
  }

  putTx(record: TxRecord): void {
    this.put(keys.tx(record.tx.txidHex), encodeTx(record));
  }

  deleteTx(txid: string): void {
    this.table.remove(keys.tx(txid));
  }

  putLock(txid: string, vout: number): void {
    this.put(keys.lock(txid, vout), Buffer.alloc(0));
  }

  deleteLock(txid: string, vout: number): void {
    this.table.remove(keys.lock(txid, vout));
  }

  putMasterKey(record: MasterKeyRecord): void {
    this.put(keys.masterKey(), encodeMasterKey(record));
  }
}

export class WalletStore {
  private readonly writer: WalletWriter;

  constructor(private readonly db: ChainDatabase) {
    this.writer = new WalletWriter(db.tables.wallet);
  }

  private get table(): Table {
    return this.db.tables.wallet;
  }

  /** Whether no wallet exists yet (first start). */
  isEmpty(): boolean {
    return this.table.get(keys.seed()) === undefined;
  }

  /** Runs `fn` as one atomic write transaction. */
  write<T>(fn: (w: WalletWriter) => T): T {
    return this.db.write(() => fn(this.writer));
  }

  /** Every raw record, read in one snapshot (backupwallet). */
  records(): { key: Buffer; value: Buffer }[] {
    const out: { key: Buffer; value: Buffer }[] = [];
    // getRange runs inside one read transaction, and no write can interleave with this loop.
    for (const { key, value } of this.table.getRange({})) out.push({ key: Buffer.from(key), value: Buffer.from(value) });
    return out;
  }

  /** Replaces every record with `records` in one transaction (restoring a backup). */
  replaceAll(records: readonly { key: Buffer; value: Buffer }[]): void {
    this.db.write(() => {
      const old = [...this.table.getKeys({})];
      for (const key of old) this.table.remove(key);
      for (const { key, value } of records) this.table.put(key, value);
    });
  }

  load(): StoredWallet {
    return parseRecords(this.table.getRange({}));
  }
}

/** Decodes a wallet's records (from the database or a backup); throws when they are not a whole, readable wallet. */
export function parseRecords(records: Iterable<{ readonly key: Uint8Array; readonly value: Uint8Array }>): StoredWallet {
  let version = 0;
  let birth = 0;
  let seed: SeedRecord | undefined;
  let bestBlock: BestBlock | null = null;
  let masterKey: MasterKeyRecord | null = null;
  const accounts = new Map<AddressType, AccountRecord>();
  const counters = new Map<string, number>();
  const importedKeys = new Map<string, { publicKey: Uint8Array; record: ImportedKeyRecord }>();
  const watch = new Map<string, number>();
  const labels = new Map<string, string>();
  const txs: TxRecord[] = [];
  const locks: { txid: string; vout: number }[] = [];
  for (const record of records) {
    const key = Buffer.from(record.key.buffer, record.key.byteOffset, record.key.byteLength);
    const value = record.value;
    const id = key.subarray(1);
    switch (key[0]) {
      case RecordType.META: {
        const name = id.toString();
        if (name === 'version') version = decodeU32(value);
        else if (name === 'birth') birth = decodeU32(value);
        else if (name === 'bestblock') bestBlock = decodeBestBlock(value);
        break;
      }
      case RecordType.SEED:
        seed = decodeSeed(value);
        break;
      case RecordType.ACCOUNT:
        accounts.set(addressTypeFromByte(id[0]), decodeAccount(value));
        break;
      case RecordType.COUNTER:
        counters.set(counterKey(addressTypeFromByte(id[0]), id[1] as KeyChain), decodeU32(value));
        break;
      case RecordType.KEY:
        importedKeys.set(id.toString('hex'), { publicKey: new Uint8Array(id), record: decodeImportedKey(value) });
        break;
      case RecordType.WATCH:
        watch.set(id.toString('hex'), decodeU32(value));
        break;
      case RecordType.LABEL:
        labels.set(id.toString('hex'), Buffer.from(value).toString());
        break;
      case RecordType.TX:
        txs.push(decodeTx(value));
        break;
      case RecordType.LOCK:
        locks.push({ txid: hashToHex(id.subarray(0, 32)), vout: id.readUInt32BE(32) });
        break;
      case RecordType.MASTER_KEY:
        masterKey = decodeMasterKey(value);
        break;
      default:
        throw new Error(`wallet record of unknown type ${key[0]}: this csd is older than the wallet`);
    }
  }
  if (!seed) throw new Error('the wallet has no HD seed record');
  if (version > WALLET_FORMAT_VERSION) throw new Error(`wallet format ${version} is newer than this csd understands (${WALLET_FORMAT_VERSION})`);
  for (const type of ADDRESS_TYPES) if (!accounts.has(type)) throw new Error(`the wallet has no ${type} account`);
  return { version, birth, seed, accounts, counters, keys: importedKeys, watch, labels, txs, locks, masterKey, bestBlock };
}
