import { DecodeError, Reader, Writer, bytesEqual, sha256d } from '@cs/consensus';
import type { StatsHistory } from './confirm-stats.ts';

/**
 * fee_estimates.dat, our own layout of what Core's CBlockPolicyEstimator::Write saves. Integers
 * little-endian, doubles IEEE 754 little-endian (8 bytes):
 *
 *   u8           version (1)
 *   i64          time written, Unix seconds (files older than 60 hours are ignored)
 *   u32 × 3      best seen height, first and last height of the recorded history
 *   compactsize  number of buckets, then each bucket's upper bound (double)
 *   compactsize  number of horizons (3: medium, short, long), then per horizon:
 *     double     decay;  u32 scale;  compactsize periods
 *     doubles    fee rate sums per bucket, confirmed counts per bucket,
 *                confirmed-within counts [period][bucket], failed-after counts [period][bucket]
 *   4 bytes      the first 4 bytes of SHA256d of everything before
 */
const ESTIMATES_FILE_VERSION = 1;
const CHECKSUM_SIZE = 4;

export interface HorizonState {
  readonly decay: number;
  readonly scale: number;
  readonly history: StatsHistory;
}

export interface EstimatorState {
  readonly writtenAt: number;
  readonly bestSeenHeight: number;
  readonly historicalFirst: number;
  readonly historicalBest: number;
  readonly buckets: readonly number[];
  readonly horizons: readonly HorizonState[];
}

// The file holds some 38,000 doubles: one scratch array for all of them, not two objects each.
const scratch = new Uint8Array(8);
const scratchView = new DataView(scratch.buffer);

function writeDouble(w: Writer, v: number): void {
  scratchView.setFloat64(0, v, true);
  w.bytes(scratch);
}

function readDouble(r: Reader): number {
  scratch.set(r.bytes(8, 'double'));
  return scratchView.getFloat64(0, true);
}

function writeDoubles(w: Writer, values: readonly number[]): void {
  for (const v of values) writeDouble(w, v);
}

function readDoubles(r: Reader, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(readDouble(r));
  return out;
}

/** Row by row, so a count the file lies about fails at the first missing byte instead of allocating. */
function readRows(r: Reader, rows: number, n: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < rows; i++) out.push(readDoubles(r, n));
  return out;
}

export function encodeEstimatesFile(s: EstimatorState): Uint8Array {
  const w = new Writer(64 * 1024);
  w.u8(ESTIMATES_FILE_VERSION).i64le(BigInt(s.writtenAt));
  w.u32le(s.bestSeenHeight).u32le(s.historicalFirst).u32le(s.historicalBest);
  w.compactSize(s.buckets.length);
  writeDoubles(w, s.buckets);
  w.compactSize(s.horizons.length);
  for (const h of s.horizons) {
    writeDouble(w, h.decay);
    w.u32le(h.scale).compactSize(h.history.confAvg.length);
    writeDoubles(w, h.history.feerateAvg);
    writeDoubles(w, h.history.txCtAvg);
    for (const row of h.history.confAvg) writeDoubles(w, row);
    for (const row of h.history.failAvg) writeDoubles(w, row);
  }
  const body = w.finish();
  const file = new Uint8Array(body.length + CHECKSUM_SIZE);
  file.set(body);
  file.set(sha256d(body).subarray(0, CHECKSUM_SIZE), body.length);
  return file;
}

/** Throws DecodeError for a damaged, truncated or unknown-version file. */
export function decodeEstimatesFile(file: Uint8Array): EstimatorState {
  if (file.length < 1 + CHECKSUM_SIZE) throw new DecodeError('truncated', 'estimates file too short');
  const body = file.subarray(0, file.length - CHECKSUM_SIZE);
  if (!bytesEqual(sha256d(body).subarray(0, CHECKSUM_SIZE), file.subarray(body.length))) {
    throw new DecodeError('invalid', 'estimates file checksum mismatch');
  }
  const r = new Reader(body);
  const version = r.u8();
  if (version !== ESTIMATES_FILE_VERSION) throw new DecodeError('invalid', `unknown estimates file version ${version}`);
  const writtenAt = Number(r.i64le());
  const bestSeenHeight = r.u32le();
  const historicalFirst = r.u32le();
  const historicalBest = r.u32le();
  const buckets = readDoubles(r, r.compactSize());
  const horizons: HorizonState[] = [];
  for (let n = r.compactSize(); n > 0; n--) {
    const decay = readDouble(r);
    const scale = r.u32le();
    const periods = r.compactSize();
    const feerateAvg = readDoubles(r, buckets.length);
    const txCtAvg = readDoubles(r, buckets.length);
    const confAvg = readRows(r, periods, buckets.length);
    const failAvg = readRows(r, periods, buckets.length);
    horizons.push({ decay, scale, history: { feerateAvg, txCtAvg, confAvg, failAvg } });
  }
  r.end('estimates file');
  return { writtenAt, bestSeenHeight, historicalFirst, historicalBest, buckets, horizons };
}
