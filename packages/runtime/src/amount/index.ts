/** Coin amounts as option text and as JSON values, in bigint base units. */
export * from './text.ts';
export * from './value.ts';
