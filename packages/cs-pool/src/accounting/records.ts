import type { BlockRecord, NewShare } from './store.ts';
import { weightOfLegacyWork } from './weights.ts';

/** Records as JSON for the stores: bigint fields as {"$big": "<decimal>"}, since JSON has no integers beyond 2^53. */
export type Json = Record<string, unknown>;

export function encodeRecord(value: object): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) out[k] = typeof v === 'bigint' ? { $big: v.toString() } : v;
  return out;
}

export function decodeRecord<T>(value: Json): T {
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    const big = typeof v === 'object' && v !== null && '$big' in v ? (v as { $big: string }).$big : null;
    out[k] = big === null ? v : BigInt(big);
  }
  return out as T;
}

/**
 * A share as the JSON text of its record (what JSON.stringify(encodeRecord(share)) gives), written
 * by hand: shares are stored one per accepted share, and the generic path (a copied object, then
 * lmdb-js's JSON.stringify and Buffer.from) cost about three times as much.
 */
export function shareRecordJson(share: NewShare): string {
  return `{"address":${JSON.stringify(share.address)},"worker":${JSON.stringify(share.worker)},"weight":{"$big":"${share.weight}"},"difficulty":${JSON.stringify(share.difficulty)},"solo":${share.solo},"time":${share.time}}`;
}

/** A stored share record; one written before weights (its work in hashes) gets its weight from that work. */
export function shareFromRecord(value: Json, powLimit: bigint): NewShare {
  const { work, ...share } = decodeRecord<NewShare & { work?: bigint }>(value);
  return work === undefined ? share : { ...share, weight: weightOfLegacyWork(work, powLimit) };
}

/** A stored block record; one written before weights (its networkWork in hashes) gets its networkWeight from that. */
export function blockFromRecord(value: Json, powLimit: bigint): BlockRecord {
  const { networkWork, ...block } = decodeRecord<BlockRecord & { networkWork?: bigint }>(value);
  return networkWork === undefined ? block : { ...block, networkWeight: weightOfLegacyWork(networkWork, powLimit) };
}
