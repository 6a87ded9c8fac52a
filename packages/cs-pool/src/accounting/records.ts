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
