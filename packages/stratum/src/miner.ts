/**
 * The miner's side of ZIP 301: the algorithm a notify names, set_target and set_extranonce, the
 * hash a share is judged by, and the mining.submit parameters for a solved header.
 */
import { EQUIHASH_200_9, EQUIHASH_48_5, HEADER_INPUT_BYTES, Writer, ZELHASH, sha256d, toHex, type EquihashParams } from '@cs/consensus';
import { targetFromHex } from './target.ts';

const KNOWN_ALGORITHMS: readonly EquihashParams[] = [ZELHASH, EQUIHASH_48_5, EQUIHASH_200_9];

/**
 * The parameter set of notify's trailing ALGO_TYPE and PERSONALIZATION ("125_4","ZelProof"), or
 * null when a notify has no such fields. A set no miner implements is a RangeError: mining on a
 * guess would only produce rejected shares.
 */
export function notifyAlgorithm(params: readonly unknown[]): EquihashParams | null {
  const [algo, pers] = [params[8], params[9]];
  if (algo === undefined || algo === null) return null;
  const found = KNOWN_ALGORITHMS.find((p) => algo === `${p.n}_${p.k}` && (pers === undefined || pers === null || pers === p.personalization));
  if (!found) throw new RangeError(`unsupported algorithm ${String(algo)} ${String(pers ?? '')}`.trim());
  return found;
}

/** An algorithm named as `-algo` writes it: 125_4 (ZelHash), 48_5 or 200_9. */
export function algorithmByName(name: string): EquihashParams {
  const found = KNOWN_ALGORITHMS.find((p) => name === `${p.n}_${p.k}`);
  if (!found) throw new RangeError(`unknown algorithm '${name}' (125_4, 48_5 or 200_9)`);
  return found;
}

export function parseSetTarget(params: readonly unknown[]): bigint {
  return targetFromHex(String(params[0]));
}

/** mining.set_extranonce ["NONCE_1", NONCE_2 length]: the new NONCE_1, which must leave room for a NONCE_2. */
export function parseSetExtranonce(params: readonly unknown[]): Uint8Array {
  const hex = params[0];
  if (typeof hex !== 'string' || !/^([0-9a-fA-F]{2}){1,31}$/.test(hex)) throw new RangeError('set_extranonce: NONCE_1 is 1 to 31 bytes of hex');
  return Buffer.from(hex, 'hex');
}

/** SHA-256d of header ‖ compactSize(solution) ‖ solution, internal byte order: what targets are compared with. */
export function shareHash(header140: Uint8Array, solution: Uint8Array): Uint8Array {
  return sha256d(new Writer(header140.length + 3 + solution.length).bytes(header140).varBytes(solution).finish());
}

/** mining.submit's params for a solved header: TIME and NONCE_2 as they stand in it, the solution with its compactSize. */
export function submitParams(worker: string, jobId: string, header140: Uint8Array, nonce1Length: number, solution: Uint8Array): string[] {
  const time = toHex(header140.subarray(100, 104));
  const nonce2 = toHex(header140.subarray(HEADER_INPUT_BYTES + nonce1Length));
  const sol = toHex(new Writer(solution.length + 3).varBytes(solution).finish());
  return [worker, jobId, time, nonce2, sol];
}
