/** Reading path segments, with the error texts docs/rest.md lists (Core's where Core has one). */
import { badRequest } from './errors.ts';

const HASH_HEX = /^[0-9a-fA-F]{64}$/;
const DECIMAL = /^[0-9]+$/;

/** A block hash or txid in display order, returned lower-case as the chain's maps key it. */
export function parseHash(text: string): string {
  if (!HASH_HEX.test(text)) throw badRequest(`Invalid hash: ${text}`);
  return text.toLowerCase();
}

/** A decimal integer in [min, max]; anything else is null. */
export function parseDecimal(text: string, min: number, max: number): number | null {
  if (!DECIMAL.test(text) || text.length > 10) return null;
  const n = Number(text);
  return n >= min && n <= max ? n : null;
}

/** Query parameter `name`: `fallback` when absent, else a decimal in [min, max] (400 otherwise). */
export function decimalQuery(query: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = query.get(name);
  if (raw === null) return fallback;
  const n = parseDecimal(raw, min, max);
  if (n === null) throw badRequest(`Invalid ${name}: ${raw} (a decimal from ${min} to ${max})`);
  return n;
}

/** The segments an endpoint expects, by count; the message says what the URI should look like. */
export function expectArgs(args: readonly string[], counts: readonly number[], usage: string): void {
  if (!counts.includes(args.length)) throw badRequest(`Invalid URI format. Expected ${usage}`);
}
