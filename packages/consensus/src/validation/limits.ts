import { WITNESS_SCALE_FACTOR } from '../primitives/tx.ts';

/** BIP141 block weight limit; the serialized size limit follows from it (all-witness block). */
export const MAX_BLOCK_WEIGHT = 4_000_000;
export const MAX_BLOCK_SERIALIZED_SIZE = 4_000_000;
/** BIP141 sigop cost limit (legacy sigops count 4 each). */
export const MAX_BLOCK_SIGOPS_COST = 80_000;
/** 100 blocks: a reorg deeper than this is implausible, so only then may a coinbase be spent. */
export const COINBASE_MATURITY = 100;
/** 1e8 base units per coin, as Bitcoin. */
export const COIN = 100_000_000n;
/** No amount anywhere may exceed the total supply: 21,000,000 coins (docs/protocol.md, subsidy). */
export const MAX_MONEY = 21_000_000n * COIN;
export { WITNESS_SCALE_FACTOR };

export function moneyRange(v: bigint): boolean {
  return v >= 0n && v <= MAX_MONEY;
}
