import { WITNESS_SCALE_FACTOR } from '../primitives/tx.ts';

/** BIP141 block weight limit; the serialized size limit follows from it (all-witness block). */
export const MAX_BLOCK_WEIGHT = 4_000_000;
export const MAX_BLOCK_SERIALIZED_SIZE = 4_000_000;
/** BIP141 sigop cost limit (legacy sigops count 4 each). */
export const MAX_BLOCK_SIGOPS_COST = 80_000;
/** 100 blocks: a reorg deeper than this is implausible, so only then may a coinbase be spent. */
export const COINBASE_MATURITY = 100;
export { WITNESS_SCALE_FACTOR };
export { COIN, MAX_MONEY, moneyRange } from './money.ts';
