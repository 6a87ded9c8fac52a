/**
 * Proof of work: Equihash / ZelHash verification and solving, nonce search, compact targets,
 * difficulty and chain work, and LWMA-3 retargeting. Pure functions, no I/O.
 */
export { EQUIHASH_200_9, EQUIHASH_48_5, ZELHASH, equihashLayout, solutionSize } from './equihash-params.ts';
export type { EquihashLayout, EquihashParams } from './equihash-params.ts';
export { packIndices, unpackIndices } from './equihash-encoding.ts';
export {
  HEADER_BYTES,
  HEADER_INPUT_BYTES,
  HEADER_NONCE_BYTES,
  checkEquihash,
  checkHeaderSolution,
  verifyEquihash,
  verifyHeaderSolution,
} from './equihash.ts';
export type { EquihashCheck } from './equihash.ts';
export { solveEquihash, solveHeader } from './solver.ts';
export { mineHeader } from './mining.ts';
export type { MineOptions, MinedHeader } from './mining.ts';
export {
  CORE_DIFF1_BITS,
  blockProof,
  checkProofOfWork,
  compactToTarget,
  getDifficulty,
  hashMeetsTarget,
  hashToBigInt,
  targetToCompact,
} from './target.ts';
export type { CompactTarget } from './target.ts';
export { LWMA3_TARGET_SPACING, LWMA3_WINDOW, lwma3NextBits } from './lwma.ts';
export type { LwmaBlock, LwmaParams } from './lwma.ts';
