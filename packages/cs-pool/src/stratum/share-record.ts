/**
 * A share as the verifier threads receive it: its 140 header bytes then its solution, in records
 * of one size per parameter set, several to a message.
 */
import { HEADER_BYTES, checkHeaderSolution, solutionSize, type EquihashParams } from '@cs/consensus';

export const recordBytes = (equihash: EquihashParams): number => HEADER_BYTES + solutionSize(equihash);

/** Whether record `i` of `batch` holds a valid Equihash solution. */
export function checkRecord(equihash: EquihashParams, batch: Uint8Array, i: number, record: number): boolean {
  const at = i * record;
  return checkHeaderSolution(equihash, batch.subarray(at, at + HEADER_BYTES), batch.subarray(at + HEADER_BYTES, at + record)) === 'ok';
}
