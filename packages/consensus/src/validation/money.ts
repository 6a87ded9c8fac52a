/** 1e8 base units per coin, as Bitcoin. */
export const COIN = 100_000_000n;
/** No amount anywhere may exceed the total supply: 21,000,000 coins (docs/protocol.md, subsidy). */
export const MAX_MONEY = 21_000_000n * COIN;

export function moneyRange(v: bigint): boolean {
  return v >= 0n && v <= MAX_MONEY;
}
