/** The compact target of a header as the templates and mining information show it. */
import { compactToTarget } from '@cs/consensus';

export function bitsHex(bits: number): string {
  return bits.toString(16).padStart(8, '0');
}

/** Core's GetTarget().GetHex(): the 256-bit target as 64 hex digits, most significant first. */
export function targetHex(bits: number): string {
  return compactToTarget(bits).target.toString(16).padStart(64, '0');
}
