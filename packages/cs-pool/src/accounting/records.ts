import type { NewShare } from './store.ts';

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
  return `{"address":${JSON.stringify(share.address)},"worker":${JSON.stringify(share.worker)},"work":{"$big":"${share.work}"},"difficulty":${JSON.stringify(share.difficulty)},"solo":${share.solo},"time":${share.time}}`;
}
