/**
 * Share validation, in the order that costs least for bad input: shape and lengths, duplicate,
 * Equihash, then the hash against the share target. Every rejection is a StratumError with ZIP
 * 301's code; a stale job (21) is the caller's lookup, since only it knows the live jobs. A pool
 * that checks Equihash on other threads opens the share (everything before Equihash), hands its
 * header and solution over, and settles it with the answer, in the order opened: the same steps
 * and the same errors as validateShare on one thread.
 */
import {
  HEADER_BYTES,
  HEADER_INPUT_BYTES,
  HEADER_NONCE_BYTES,
  Writer,
  checkHeaderSolution,
  sha256d,
  solutionSize,
  type EquihashParams,
} from '@cs/consensus';
import { StratumError, StratumErrorCode } from './codec.ts';
import type { Job } from './job.ts';
import type { SubmitParams } from './methods.ts';

export interface ShareContext {
  readonly job: Job;
  readonly nonce1: Uint8Array;
  readonly submit: SubmitParams;
  /** The connection's share target now. */
  readonly target: bigint;
  /** The target before the last change, still honoured for a short while (miners switch at the next job). */
  readonly previousTarget: bigint | null;
  /** Hashes (hex, as shown) of the shares already accepted for this job; the caller owns the set. */
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

/** Where the header's time field starts: time and bits end the Equihash input. */
const TIME_OFFSET = HEADER_INPUT_BYTES - 8;

/** The solution's canonical compactSize prefix per solution size, as hex: one per parameter set, encoded once. */
const solutionPrefixes = new Map<number, string>();

function solutionPrefixHex(size: number): string {
  let prefix = solutionPrefixes.get(size);
  if (prefix === undefined) {
    prefix = Buffer.from(new Writer(9).compactSize(size).finish()).toString('hex');
    solutionPrefixes.set(size, prefix);
  }
  return prefix;
}

/** A share decoded and checked up to its Equihash solution. */
export interface PendingShare {
  /** The 140 header bytes. */
  readonly header: Uint8Array;
  /** Without its compactSize prefix. */
  readonly solution: Uint8Array;
  /** Internal byte order. */
  readonly hash: Uint8Array;
  /** The hash as shown (reversed hex): the duplicate key. */
  readonly key: string;
}

/**
 * Per share, only the essentials: the submitted hex decoded once into the bytes the block will carry
 * (header ‖ compactSize ‖ solution), hashed once (the hash is also the duplicate key, 64 characters
 * whatever the solution size), and a copy of an accepted share refused before its Equihash check.
 */
export function openShare(ctx: ShareContext): PendingShare {
  const { job, submit, nonce1 } = ctx;
  const nonce2Bytes = HEADER_NONCE_BYTES - nonce1.length;
  const size = solutionSize(job.equihash);
  const prefix = solutionPrefixHex(size);
  if (submit.nonce2.length !== 2 * nonce2Bytes) throw new StratumError(StratumErrorCode.OTHER, `nonce_2 must be ${2 * nonce2Bytes} hex digits`);
  if (submit.time.length !== 8) throw new StratumError(StratumErrorCode.OTHER, 'time must be 8 hex digits');
  if (submit.solution.length !== prefix.length + 2 * size || !submit.solution.startsWith(prefix)) {
    throw new StratumError(StratumErrorCode.OTHER, `solution must be ${prefix} followed by ${size} bytes in hex`);
  }
  // Every byte is written below or the share is rejected, so the buffer needs no zeroing. A hex
  // decode stops at the first character that is not hex: a short count is a malformed field.
  const full = Buffer.allocUnsafe(HEADER_BYTES + submit.solution.length / 2);
  full.set(job.headerInput, 0);
  if (full.write(submit.time, TIME_OFFSET, 'hex') !== 4) throw new StratumError(StratumErrorCode.OTHER, 'time must be 8 hex digits');
  full.set(nonce1, HEADER_INPUT_BYTES);
  if (full.write(submit.nonce2, HEADER_INPUT_BYTES + nonce1.length, 'hex') !== nonce2Bytes) {
    throw new StratumError(StratumErrorCode.OTHER, `nonce_2 must be ${2 * nonce2Bytes} hex digits`);
  }
  if (full.write(submit.solution, HEADER_BYTES, 'hex') !== submit.solution.length / 2) {
    throw new StratumError(StratumErrorCode.OTHER, `solution must be ${prefix} followed by ${size} bytes in hex`);
  }
  const time = full.readUInt32LE(TIME_OFFSET);
  if (time < job.mintime) throw new StratumError(StratumErrorCode.OTHER, 'time is before the block minimum');
  if (time > ctx.now + ctx.maxFutureTime) throw new StratumError(StratumErrorCode.OTHER, 'time is too far in the future');
  const hash = sha256d(full);
  // The hash as shown (reversed): the duplicate key and, read as a number, what meets a target.
  const key = Buffer.from(hash).reverse().toString('hex');
  if (ctx.seen.has(key)) throw new StratumError(StratumErrorCode.DUPLICATE_SHARE, 'duplicate share');
  return { header: full.subarray(0, HEADER_BYTES), solution: full.subarray(HEADER_BYTES + prefix.length / 2), hash, key };
}

/**
 * The verdict on an opened share once its Equihash solution is checked (`solutionOk`): the valid
 * share, recorded in `seen`, or the rejection. Settled in the order opened, shares checked on other
 * threads get the answers of validateShare: a copy opened while the original was being checked is
 * a duplicate here once the original is in.
 */
export function settleShare(ctx: ShareContext, pending: PendingShare, solutionOk: boolean): ValidShare {
  if (ctx.seen.has(pending.key)) throw new StratumError(StratumErrorCode.DUPLICATE_SHARE, 'duplicate share');
  if (!solutionOk) throw new StratumError(StratumErrorCode.OTHER, 'invalid solution');
  const value = BigInt(`0x${pending.key}`);
  let target = ctx.target;
  if (value > target) {
    if (ctx.previousTarget === null || value > ctx.previousTarget) throw new StratumError(StratumErrorCode.LOW_DIFFICULTY, 'low difficulty share');
    target = ctx.previousTarget;
  }
  ctx.seen.add(pending.key);
  return { header: pending.header, solution: pending.solution, hash: pending.hash, target, isBlock: value <= ctx.job.target };
}

/** Whether an opened share's Equihash solution is valid, on the calling thread. */
export function checkShareSolution(equihash: EquihashParams, pending: PendingShare): boolean {
  return checkHeaderSolution(equihash, pending.header, pending.solution) === 'ok';
}

/** Validation on the calling thread, in the order that costs least for bad input. */
export function validateShare(ctx: ShareContext): ValidShare {
  const pending = openShare(ctx);
  return settleShare(ctx, pending, checkShareSolution(ctx.job.equihash, pending));
}
