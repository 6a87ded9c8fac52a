/**
 * The UTXO snapshot file of dumptxoutset and loadtxoutset (docs/snapshots.md): a fixed header
 * naming the network and the base block, then every record of the chain state, table by table in
 * STATE_TABLES order (the coins, then the OPoI state) and in key order within a table. The
 * snapshot's hash is SHA-256 over those record bytes, so the same chain state always hashes alike,
 * whether read from a file or walked in a database.
 */
import { createHash } from 'node:crypto';
import { closeSync, fstatSync, openSync, read, readSync } from 'node:fs';
import { promisify } from 'node:util';
import { open } from 'node:fs/promises';
import { DecodeError, Reader, Writer, hashFromHex, hashToHex } from '@cs/consensus';
import { STATE_TABLES, type Table } from '../storage/database.ts';

/** "csutxo", 0xff and a zero: no text file starts so. */
const MAGIC = Buffer.from('637375746f78ff00', 'hex');
const VERSION = 1;
/** magic, version, genesis hash, base hash, base height, chain transactions, coins, records. */
export const HEADER_BYTES = 8 + 2 + 32 + 32 + 4 + 8 + 8 + 8;
/** Bytes gathered before a write to the file. */
const CHUNK_BYTES = 1 << 20;
const COINS_TABLE = 0;

export interface SnapshotHeader {
  /** Display-order hashes. */
  readonly genesis: string;
  readonly baseHash: string;
  readonly baseHeight: number;
  /** Transactions in the chain up to and including the base block (Core's nchaintx). */
  readonly chainTxCount: number;
  readonly coins: number;
  readonly records: number;
}

/** One record of a state table: `table` indexes STATE_TABLES. */
export interface StateRecord {
  readonly table: number;
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

function encodeHeader(h: SnapshotHeader): Buffer {
  const w = new Writer(HEADER_BYTES)
    .bytes(MAGIC)
    .u16le(VERSION)
    .bytes(hashFromHex(h.genesis))
    .bytes(hashFromHex(h.baseHash))
    .u32le(h.baseHeight)
    .u64le(BigInt(h.chainTxCount))
    .u64le(BigInt(h.coins))
    .u64le(BigInt(h.records));
  const bytes = w.finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function decodeHeader(bytes: Uint8Array): SnapshotHeader {
  const r = new Reader(bytes);
  if (bytes.length < HEADER_BYTES || !Buffer.from(r.bytes(MAGIC.length)).equals(MAGIC)) {
    throw new DecodeError('invalid', 'not a UTXO snapshot file (bad magic)');
  }
  const version = r.u16le();
  if (version !== VERSION) throw new DecodeError('invalid', `UTXO snapshot version ${version} is not supported (this csd reads ${VERSION})`);
  return {
    genesis: hashToHex(r.bytes(32)),
    baseHash: hashToHex(r.bytes(32)),
    baseHeight: r.u32le(),
    chainTxCount: Number(r.u64le()),
    coins: Number(r.u64le()),
    records: Number(r.u64le()),
  };
}

function encodeRecord(table: number, key: Uint8Array, value: Uint8Array): Uint8Array {
  return new Writer(key.length + value.length + 12).u8(table).varBytes(key).varBytes(value).finish();
}

/** Every record of `tables` (a database handle's stateTables()), as the file holds them. */
export function* stateRecordBytes(tables: readonly Table[]): Generator<Uint8Array> {
  for (let id = 0; id < tables.length; id++) {
    for (const { key, value } of tables[id].getRange({})) yield encodeRecord(id, key, value);
  }
}

/** The snapshot hash of a chain state held in `tables`: what dumptxoutset would write for it. */
export function hashState(tables: readonly Table[]): string {
  const h = createHash('sha256');
  for (const bytes of stateRecordBytes(tables)) h.update(bytes);
  return h.digest('hex');
}

/**
 * Writes the snapshot of `tables` with `header`'s base block to `path`, which must not exist;
 * the counts are filled in at the end. Answers the header written and the content hash.
 * `pause` gives the event loop a turn now and then.
 */
export async function writeSnapshot(
  path: string,
  header: Omit<SnapshotHeader, 'coins' | 'records'>,
  tables: readonly Table[],
  pause: () => Promise<void>,
): Promise<{ header: SnapshotHeader; hash: string }> {
  const file = await open(path, 'wx');
  try {
    const hasher = createHash('sha256');
    let coins = 0;
    let records = 0;
    let chunk: Uint8Array[] = [];
    let chunkBytes = 0;
    let at = HEADER_BYTES;
    const flush = async () => {
      const bytes = Buffer.concat(chunk, chunkBytes);
      await file.write(bytes, 0, bytes.length, at);
      at += bytes.length;
      chunk = [];
      chunkBytes = 0;
      await pause();
    };
    for (const bytes of stateRecordBytes(tables)) {
      if (bytes[0] === COINS_TABLE) coins++;
      records++;
      hasher.update(bytes);
      chunk.push(bytes);
      chunkBytes += bytes.length;
      if (chunkBytes >= CHUNK_BYTES) await flush();
    }
    await flush();
    const full = { ...header, coins, records };
    await file.write(encodeHeader(full), 0, HEADER_BYTES, 0);
    await file.sync();
    return { header: full, hash: hasher.digest('hex') };
  } finally {
    await file.close();
  }
}

/** A snapshot file read into memory: its header, its hash, and its records to walk. */
export interface SnapshotFile {
  readonly header: SnapshotHeader;
  readonly hash: string;
  records(): Generator<StateRecord>;
}

/**
 * Reads and hashes the snapshot at `path`; throws DecodeError when it is not one (or is truncated).
 * `checkHeader` sees the header before the rest is read, and may refuse the file by throwing. The
 * header is read synchronously, so that `checkHeader` runs in the caller's turn: a syncing node
 * gives a turn only between blocks, and every turn waited for is blocks connected that the load
 * could have deferred (measured: about 1 s on the bench chain for the open, stat and read). The
 * body is then read in one request, not in the chunks readFile takes a turn for each of.
 */
export async function readSnapshot(path: string, checkHeader: (h: SnapshotHeader) => void = () => {}): Promise<SnapshotFile> {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, HEADER_BYTES));
    readSync(fd, head, 0, head.length, 0);
    const header = decodeHeader(head);
    checkHeader(header);
    const body = Buffer.allocUnsafe(size - HEADER_BYTES);
    for (let at = 0; at < body.length; ) {
      const { bytesRead } = await readAt(fd, body, at, body.length - at, HEADER_BYTES + at);
      if (bytesRead === 0) throw new DecodeError('truncated', 'the UTXO snapshot file ended while it was read');
      at += bytesRead;
    }
    const hash = createHash('sha256').update(body).digest('hex');
    return { header, hash, records: () => parseRecords(body, header) };
  } finally {
    closeSync(fd);
  }
}

const readAt = promisify(read);

function* parseRecords(body: Uint8Array, header: SnapshotHeader): Generator<StateRecord> {
  const r = new Reader(body);
  let records = 0;
  let coins = 0;
  let last = 0;
  while (r.remaining > 0) {
    const table = r.u8();
    // Tables in order, so that a damaged file cannot write a table the format does not have.
    if (table >= STATE_TABLES.length || table < last) throw new DecodeError('invalid', `UTXO snapshot record ${records} names table ${table}`);
    last = table;
    const key = r.varBytes();
    const value = r.varBytes();
    if (table === COINS_TABLE) coins++;
    records++;
    yield { table, key, value };
  }
  if (records !== header.records || coins !== header.coins) {
    throw new DecodeError(
      'invalid',
      `UTXO snapshot holds ${coins} coins in ${records} records, its header says ${header.coins} in ${header.records}`,
    );
  }
}
