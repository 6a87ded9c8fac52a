/**
 * The hashes and numbers the OPoI lifecycle turns on: request ids as UUID text, the commitment a
 * COMMIT publishes, the deterministic winner draw and the split of the escrow.
 */
import { DecodeError } from '../encoding/errors.ts';
import { concatBytes, toHex } from '../encoding/hex.ts';
import { sha256, sha256Hex, sha256d } from '../crypto/hash.ts';
import type { Actor } from './payload.ts';

/** The 16 bytes of a UUID written 8-4-4-4-12 (any case); a DecodeError for anything else. */
export function requestIdFromUuid(text: string): Uint8Array {
  return Uint8Array.from(Buffer.from(requestIdHexFromUuid(text), 'hex'));
}

/** The 32 lower-case hex digits of a UUID written 8-4-4-4-12 (any case), as records key requests. */
export function requestIdHexFromUuid(text: string): string {
  // Checked by hand: RPC and REST parse an id on every call, and a case-insensitive regex plus a
  // replace cost more than the lookup they lead to.
  let ok = typeof text === 'string' && text.length === 36;
  for (let i = 0; ok && i < 36; i++) {
    const c = text.charCodeAt(i);
    ok = i === 8 || i === 13 || i === 18 || i === 23 ? c === 0x2d : (c >= 0x30 && c <= 0x39) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66);
  }
  if (!ok) throw new DecodeError('invalid', 'request_id must be a UUID (8-4-4-4-12 hex digits)');
  return (text.slice(0, 8) + text.slice(9, 13) + text.slice(14, 18) + text.slice(19, 23) + text.slice(24)).toLowerCase();
}

/** Lower-case 8-4-4-4-12 text of a 16-byte request id. */
export function requestIdToUuid(id: Uint8Array): string {
  return uuidFromHex(toHex(id));
}

/** 8-4-4-4-12 text of a request id given as 32 hex digits (how records keep it). */
export function uuidFromHex(h: string): string {
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** request_id ‖ miner type ‖ miner hash ‖ response_hash ‖ token_count u32le ‖ salt, the commitment's preimage. */
function commitmentPreimage(requestId: Uint8Array, miner: Actor, responseHash: Uint8Array, tokenCount: number, salt: Uint8Array): Uint8Array {
  const at = requestId.length + 1 + miner.hash.length + responseHash.length;
  const preimage = new Uint8Array(at + 4 + salt.length);
  preimage.set(requestId, 0);
  preimage[requestId.length] = miner.type;
  preimage.set(miner.hash, requestId.length + 1);
  preimage.set(responseHash, at - responseHash.length);
  new DataView(preimage.buffer).setUint32(at, tokenCount, true);
  preimage.set(salt, at + 4);
  return preimage;
}

/**
 * SHA-256(request_id ‖ miner type ‖ miner hash ‖ response_hash ‖ token_count u32le ‖ salt): binds
 * the answer, its length and its author to the request, and hides them until the reveal.
 */
export function commitmentHash(requestId: Uint8Array, miner: Actor, responseHash: Uint8Array, tokenCount: number, salt: Uint8Array): Uint8Array {
  return sha256(commitmentPreimage(requestId, miner, responseHash, tokenCount, salt));
}

/** commitmentHash in hex, as commit records keep it: how a block checks a REVEAL against its commit. */
export function commitmentHex(requestId: Uint8Array, miner: Actor, responseHash: Uint8Array, tokenCount: number, salt: Uint8Array): string {
  return sha256Hex(commitmentPreimage(requestId, miner, responseHash, tokenCount, salt));
}

/**
 * The winner among `candidates` (valid reveals, in any order): they are sorted by miner key, and
 * SHA256d(resolving block hash ‖ request_id), read as a big-endian number, picks one modulo
 * their count. The resolving block is mined after every commit, so no committer knew the draw.
 */
export function drawWinner(blockHash: Uint8Array, requestId: Uint8Array, candidates: readonly string[]): string {
  if (candidates.length === 0) throw new RangeError('no candidates to draw from');
  const sorted = [...candidates].sort();
  const seed = BigInt(`0x${toHex(sha256d(concatBytes(blockHash, requestId)))}`);
  return sorted[Number(seed % BigInt(sorted.length))];
}

/** What the escrow pays the winner: the payment plus the fee for the tokens generated. */
export function winnerAmount(payment: bigint, feePerToken: bigint, tokenCount: number): bigint {
  return payment + feePerToken * BigInt(tokenCount);
}

/** What a REQUEST locks in escrow: the payment plus the fee for every token it allows. */
export function escrowAmount(payment: bigint, feePerToken: bigint, maxTokens: number): bigint {
  return payment + feePerToken * BigInt(maxTokens);
}

/** The smallest payment a request may offer is one base unit above this. */
export function minimumPaymentFloor(feeBase: bigint, feePerPromptToken: bigint, promptTokenCount: number): bigint {
  return feeBase + feePerPromptToken * BigInt(promptTokenCount);
}

/** SHA-256(request_id ‖ auditor type ‖ auditor hash ‖ verdict u8 ‖ salt): hides a verdict until its reveal. */
export function verdictCommitment(requestId: Uint8Array, auditor: Actor, verdict: number, salt: Uint8Array): Uint8Array {
  return sha256(concatBytes(requestId, Uint8Array.of(auditor.type), auditor.hash, Uint8Array.of(verdict), salt));
}

const VERIFIABLE_TAG = new TextEncoder().encode('OPOI-V1');

/**
 * The response hash of a VERIFIABLE answer: SHA-256("OPOI-V1" ‖ token count u32le ‖ token ids u32le
 * ‖ text). It binds the token ids an auditor replays, not only the text, because text → tokens is
 * not always the inverse of tokens → text. An OPEN answer's response hash is SHA-256 of its text.
 */
export function verifiableResponseHash(tokens: readonly number[], text: Uint8Array): Uint8Array {
  const ids = new Uint8Array(4 + 4 * tokens.length);
  const view = new DataView(ids.buffer);
  view.setUint32(0, tokens.length, true);
  tokens.forEach((t, i) => view.setUint32(4 + 4 * i, t, true));
  return sha256(concatBytes(VERIFIABLE_TAG, ids, text));
}

/**
 * Draws up to `count` auditors among `candidates` (in any order): each is ranked by
 * SHA-256(seed ‖ key), seed = SHA256d(block hash ‖ request_id ‖ round), and the lowest ranks win,
 * returned in rank order. The block is mined after the step that asks for the draw (the publish
 * or the challenge), so neither the publisher nor the challenger knew it.
 */
export function drawAuditors(blockHash: Uint8Array, requestId: Uint8Array, round: number, candidates: readonly string[], count: number): string[] {
  const seed = sha256d(concatBytes(blockHash, requestId, Uint8Array.of(round)));
  return [...new Set(candidates)]
    .map((key) => ({ key, rank: toHex(sha256(concatBytes(seed, Buffer.from(key, 'hex')))) }))
    .sort((a, b) => (a.rank < b.rank ? -1 : a.rank > b.rank ? 1 : 0))
    .slice(0, count)
    .map((c) => c.key);
}

/**
 * How a forfeited collateral is shared: half among the auditors that said invalid (equal shares,
 * rounded down), a quarter to the requester, the rest burned. Burning a quarter keeps a cheater's
 * own auditor stake (or the requester's, in a self-dealt request) from getting the whole
 * collateral back; paying the auditors rewards the replay that caught the cheat.
 */
export function forfeitShares(collateral: bigint, invalidAuditors: number): { perAuditor: bigint; requester: bigint; burned: bigint } {
  const perAuditor = invalidAuditors > 0 ? collateral / 2n / BigInt(invalidAuditors) : 0n;
  const requester = collateral / 4n;
  return { perAuditor, requester, burned: collateral - perAuditor * BigInt(invalidAuditors) - requester };
}

/** A challenge bond after a valid outcome: half shared equally by the auditors that said valid, the rest to the winner. */
export function bondShares(bond: bigint, validAuditors: number): { perAuditor: bigint; winner: bigint } {
  const perAuditor = validAuditors > 0 ? bond / 2n / BigInt(validAuditors) : 0n;
  return { perAuditor, winner: bond - perAuditor * BigInt(validAuditors) };
}
