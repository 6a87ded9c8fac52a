import type { Logger } from 'pino';
import { DecodeError, Reader, Transaction, Writer, bytesEqual, hashFromHex, hashToHex, sha256d } from '@cs/consensus';
import type { MempoolEntry } from './entry.ts';
import { readOptionalFile, writeFileAtomic } from './files.ts';
import type { AcceptResult } from './results.ts';

/**
 * mempool.dat, written at shutdown and read at startup (Core's DumpMempool / LoadMempool, in our
 * own layout). All integers little-endian:
 *
 *   u8           version (1)
 *   compactsize  number of transactions, parents before children
 *   per transaction:
 *     tx         the transaction, witness serialization
 *     i64        entry time, Unix seconds
 *     i64        prioritisetransaction delta, base units
 *   compactsize  number of deltas for transactions not in the pool
 *   per delta:   32-byte txid (internal order), i64 delta
 *   compactsize  number of unbroadcast txids
 *   per txid:    32 bytes (internal order)
 *   4 bytes      the first 4 bytes of SHA256d of everything before
 *
 * The checksum makes a torn or damaged file fail as a whole, so a node never starts with half a
 * mempool it cannot account for.
 */
const MEMPOOL_FILE_VERSION = 1;
const CHECKSUM_SIZE = 4;

export interface PersistedTx {
  readonly tx: Transaction;
  readonly time: number;
  readonly feeDelta: bigint;
}

export interface MempoolSnapshot {
  readonly txs: readonly PersistedTx[];
  /** Prioritisations of transactions not in the pool, by txid (display hex). */
  readonly deltas: ReadonlyMap<string, bigint>;
  /** Txids (display hex) submitted locally and not yet announced to a peer. */
  readonly unbroadcast: readonly string[];
}

export function encodeMempoolFile(s: MempoolSnapshot): Uint8Array {
  const w = new Writer(1024);
  w.u8(MEMPOOL_FILE_VERSION);
  w.compactSize(s.txs.length);
  for (const { tx, time, feeDelta } of s.txs) {
    tx.write(w);
    w.i64le(BigInt(time)).i64le(feeDelta);
  }
  w.compactSize(s.deltas.size);
  for (const [txid, delta] of s.deltas) w.bytes(hashFromHex(txid)).i64le(delta);
  w.compactSize(s.unbroadcast.length);
  for (const txid of s.unbroadcast) w.bytes(hashFromHex(txid));
  const body = w.finish();
  const file = new Uint8Array(body.length + CHECKSUM_SIZE);
  file.set(body);
  file.set(sha256d(body).subarray(0, CHECKSUM_SIZE), body.length);
  return file;
}

/** Throws DecodeError for a file that is damaged, truncated, or of another version. */
export function decodeMempoolFile(file: Uint8Array): MempoolSnapshot {
  if (file.length < 1 + CHECKSUM_SIZE) throw new DecodeError('truncated', 'mempool file too short');
  const body = file.subarray(0, file.length - CHECKSUM_SIZE);
  if (!bytesEqual(sha256d(body).subarray(0, CHECKSUM_SIZE), file.subarray(body.length))) {
    throw new DecodeError('invalid', 'mempool file checksum mismatch');
  }
  const r = new Reader(body);
  const version = r.u8();
  if (version !== MEMPOOL_FILE_VERSION) throw new DecodeError('invalid', `unknown mempool file version ${version}`);
  const txs: PersistedTx[] = [];
  for (let n = r.compactSize(); n > 0; n--) {
    const tx = Transaction.read(r);
    txs.push({ tx, time: Number(r.i64le()), feeDelta: r.i64le() });
  }
  const deltas = new Map<string, bigint>();
  for (let n = r.compactSize(); n > 0; n--) {
    const txid = hashToHex(r.bytes(32, 'txid'));
    deltas.set(txid, r.i64le());
  }
  const unbroadcast: string[] = [];
  for (let n = r.compactSize(); n > 0; n--) unbroadcast.push(hashToHex(r.bytes(32, 'txid')));
  r.end('mempool file');
  return { txs, deltas, unbroadcast };
}

export interface LoadReport {
  readonly succeeded: number;
  readonly failed: number;
  readonly expired: number;
  readonly alreadyThere: number;
  /** Why the file was not used, when it was not. */
  readonly problem?: string;
}

export const NOTHING_LOADED: LoadReport = { succeeded: 0, failed: 0, expired: 0, alreadyThere: 0 };

/**
 * The pool as saving and loading see it: only the calls mempool.dat is written from and read back
 * through, so the Mempool can delegate here without this module depending on it.
 */
export interface PersistablePool {
  entries(): Iterable<MempoolEntry>;
  prioritised(): readonly { readonly txid: string; readonly feeDelta: bigint; readonly inMempool: boolean }[];
  unbroadcast(): readonly string[];
  prioritise(txid: string, delta: bigint): void;
  accept(tx: Transaction, opts: { readonly acceptTime: number; readonly unbroadcast: boolean }): AcceptResult;
}

/** Core's DumpMempool: every transaction, parents first, with entry time and delta. */
export async function saveMempool(mempool: PersistablePool, path: string): Promise<void> {
  const entries = [...mempool.entries()].sort((a, b) => a.countWithAncestors - b.countWithAncestors || a.sequence - b.sequence);
  const deltas = new Map(
    mempool
      .prioritised()
      .filter((p) => !p.inMempool)
      .map((p) => [p.txid, p.feeDelta]),
  );
  const snapshot: MempoolSnapshot = {
    txs: entries.map((e) => ({ tx: e.tx, time: e.time, feeDelta: e.feeDelta })),
    deltas,
    unbroadcast: mempool.unbroadcast(),
  };
  await writeFileAtomic(path, encodeMempoolFile(snapshot));
}

/**
 * Core's LoadMempool: each transaction that entered after `expiryCutoff` is offered again, keeping
 * its entry time and delta. A missing file is a first start; an unreadable or damaged one is
 * logged and ignored as a whole, so the node starts with an empty mempool rather than not at all.
 */
export async function loadMempool(mempool: PersistablePool, path: string, expiryCutoff: number, log: Logger): Promise<LoadReport> {
  const report = { ...NOTHING_LOADED };
  let snapshot: MempoolSnapshot;
  try {
    const bytes = await readOptionalFile(path);
    if (bytes === null) {
      log.info({ path }, 'no mempool file, starting with an empty mempool');
      return report;
    }
    snapshot = decodeMempoolFile(bytes);
  } catch (e) {
    const problem = e instanceof Error ? e.message : String(e);
    log.warn({ path, err: problem }, 'mempool file unusable, starting with an empty mempool');
    return { ...report, problem };
  }
  const unbroadcast = new Set(snapshot.unbroadcast);
  for (const { tx, time, feeDelta } of snapshot.txs) {
    if (feeDelta !== 0n) mempool.prioritise(tx.txidHex, feeDelta);
    if (time <= expiryCutoff) {
      report.expired++;
      continue;
    }
    const r = mempool.accept(tx, { acceptTime: time, unbroadcast: unbroadcast.has(tx.txidHex) });
    if (r.kind === 'accepted') report.succeeded++;
    else if (r.kind === 'rejected' && r.reason === 'txn-already-in-mempool') report.alreadyThere++;
    else report.failed++;
  }
  for (const [txid, delta] of snapshot.deltas) mempool.prioritise(txid, delta);
  log.info({ path, ...report }, 'mempool loaded');
  return report;
}
