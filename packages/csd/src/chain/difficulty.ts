import { lwma3NextBits, type ChainParams, type LwmaBlock } from '@cs/consensus';
import type { BlockIndexEntry } from './block-index.ts';

/** The bits a block extending `prev` must carry: LWMA-3 over prev and its ancestors, or powLimit on regtest. */
export function nextWorkRequired(prev: BlockIndexEntry, params: ChainParams): number {
  if (params.noRetarget) return params.powLimitBits;
  const blocks: LwmaBlock[] = [];
  for (let e: BlockIndexEntry | null = prev; e && blocks.length <= params.lwmaWindow; e = e.prev) {
    blocks.push({ time: e.time, bits: e.header.bits });
  }
  blocks.reverse();
  return lwma3NextBits(blocks, { window: params.lwmaWindow, targetSpacing: params.targetSpacing, powLimit: params.powLimit });
}
