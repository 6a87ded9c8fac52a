/**
 * Share validation, in the order that costs least for bad input: shape and lengths, duplicate,
 * Equihash, then the hash against the share target. Every rejection is a StratumError with ZIP
 * 301's code; a stale job (21) is the caller's lookup, since only it knows the live jobs.
 */
import { Writer, checkHeaderSolution, fromHex, hashToBigInt, solutionSize } from '@cs/consensus';
import { StratumError, StratumErrorCode } from './codec.ts';
import { headerPrefix, type Job } from './job.ts';
import type { SubmitParams } from './methods.ts';
import { shareHash } from './miner.ts';

export interface ShareContext {
  readonly job: Job;
  readonly nonce1: Uint8Array;
  readonly submit: SubmitParams;
  /** The connection's share target now. */
  readonly target: bigint;
  /** The target before the last change, still honoured for a short while (miners switch at the next job). */
  readonly previousTarget: bigint | null;
  /** Keys of the shares already accepted for this job (nonce ‖ solution); the caller owns the set. */
  readonly seen: Set<string>;
  /** Seconds since the epoch. */
  readonly now: number;
  /** How far the header time may run ahead of now (the network's maxFutureBlockTime). */
  readonly maxFutureTime: number;
}

export interface ValidShare {
  readonly header: Uint8Array;
  /** Without its compactSize prefix. */
  readonly solution: Uint8Array;
  /** Internal byte order. */
  readonly hash: Uint8Array;
  /** The target the share was accepted against: its difficulty is what the share is worth. */
  readonly target: bigint;
  readonly isBlock: boolean;
}

const HEX_RE = /^[0-9a-f]*$/;

/** The solution's canonical compactSize prefix for the parameter set, as hex. */
function solutionPrefixHex(size: number): string {
  return Buffer.from(new Writer(9).compactSize(size).finish()).toString('hex');
}

export function validateShare(ctx: ShareContext): ValidShare {
  const { job, submit, nonce1 } = ctx;
  const nonce2Hex = 2 * (32 - nonce1.length);
  if (submit.nonce2.length !== nonce2Hex || !HEX_RE.test(submit.nonce2)) {
    throw new StratumError(StratumErrorCode.OTHER, `nonce_2 must be ${nonce2Hex} hex digits`);
  }
  if (submit.time.length !== 8 || !HEX_RE.test(submit.time)) throw new StratumError(StratumErrorCode.OTHER, 'time must be 8 hex digits');
  const time = Buffer.from(submit.time, 'hex').readUInt32LE(0);
  if (time < job.mintime) throw new StratumError(StratumErrorCode.OTHER, 'time is before the block minimum');
  if (time > ctx.now + ctx.maxFutureTime) throw new StratumError(StratumErrorCode.OTHER, 'time is too far in the future');
  const size = solutionSize(job.equihash);
  const prefix = solutionPrefixHex(size);
  if (submit.solution.length !== prefix.length + 2 * size || !submit.solution.startsWith(prefix) || !HEX_RE.test(submit.solution)) {
    throw new StratumError(StratumErrorCode.OTHER, `solution must be ${prefix} followed by ${size} bytes in hex`);
  }
  const key = submit.nonce2 + submit.solution;
  if (ctx.seen.has(key)) throw new StratumError(StratumErrorCode.DUPLICATE_SHARE, 'duplicate share');

  const header = headerPrefix(job.headerInput, time, nonce1, fromHex(submit.nonce2));
  const solution = fromHex(submit.solution.slice(prefix.length));
  if (checkHeaderSolution(job.equihash, header, solution) !== 'ok') throw new StratumError(StratumErrorCode.OTHER, 'invalid solution');
  const hash = shareHash(header, solution);
  const value = hashToBigInt(hash);
  let target = ctx.target;
  if (value > target) {
    if (ctx.previousTarget === null || value > ctx.previousTarget) throw new StratumError(StratumErrorCode.LOW_DIFFICULTY, 'low difficulty share');
    target = ctx.previousTarget;
  }
  ctx.seen.add(key);
  return { header, solution, hash, target, isBlock: value <= job.target };
}
