import type { ChainParams } from '../params/networks.ts';

/** The new coins a block at `height` may create: the initial subsidy halved every interval. */
export function blockSubsidy(height: number, params: ChainParams): bigint {
  const halvings = Math.floor(height / params.halvingInterval);
  // Shifting a 64-bit amount by 64 or more is undefined in C++; Core returns 0 from there on.
  if (halvings >= 64) return 0n;
  return params.initialSubsidy >> BigInt(halvings);
}
