// An independent model of docs/pool.md's payout schemes for the tests, in exact fractions: a share
// weighs powLimit / its target, the PPLNS window is -pplnsfactor times powLimit / the block's
// target, the fee is floor(reward × fee% / 100), each address gets the floor of its exact part
// and the units left go to the heaviest address (the first in sort order among equals). Nothing
// here is the pool's code: no 10^-40 weights, no store, no scheme functions.

/** A non-negative fraction n/d, kept reduced. */
class Fraction {
  readonly n: bigint;
  readonly d: bigint;

  constructor(n: bigint, d = 1n) {
    const g = gcd(n, d);
    this.n = n / g;
    this.d = d / g;
  }

  plus(o: Fraction): Fraction {
    return new Fraction(this.n * o.d + o.n * this.d, this.d * o.d);
  }

  minus(o: Fraction): Fraction {
    return new Fraction(this.n * o.d - o.n * this.d, this.d * o.d);
  }

  times(o: Fraction): Fraction {
    return new Fraction(this.n * o.n, this.d * o.d);
  }

  div(o: Fraction): Fraction {
    return new Fraction(this.n * o.d, this.d * o.n);
  }

  cmp(o: Fraction): number {
    const l = this.n * o.d;
    const r = o.n * this.d;
    return l < r ? -1 : l > r ? 1 : 0;
  }

  floor(): bigint {
    return this.n / this.d;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x === 0n ? 1n : x;
}

export interface ModelShare {
  readonly address: string;
  /** The target the pool accepted the share at (its set_target). */
  readonly target: bigint;
}

export interface ModelBlock {
  /** What the pool's coinbase output pays, base units. */
  readonly reward: bigint;
  /** -fee in basis points. */
  readonly feeBasisPoints: number;
  readonly powLimit: bigint;
}

export type ModelCredits = Record<string, number>;

function split(amount: bigint, weights: Map<string, Fraction>): ModelCredits {
  let total = new Fraction(0n);
  for (const w of weights.values()) total = total.plus(w);
  const out = new Map<string, bigint>();
  let given = 0n;
  for (const [address, w] of weights) {
    const part = new Fraction(amount).times(w).div(total).floor();
    out.set(address, part);
    given += part;
  }
  const heaviest = [...weights].sort(([a, wa], [b, wb]) => wb.cmp(wa) || (a < b ? -1 : 1))[0][0];
  out.set(heaviest, out.get(heaviest)! + amount - given);
  return Object.fromEntries([...out].filter(([, v]) => v > 0n).map(([a, v]) => [a, Number(v)]));
}

function distributable(block: ModelBlock): bigint {
  return block.reward - (block.reward * BigInt(block.feeBasisPoints)) / 10_000n;
}

/** PPLNS: `shares` oldest first, the block's own share last; the window is factor (n/d) × powLimit / networkTarget. */
export function modelPplns(block: ModelBlock, shares: readonly ModelShare[], networkTarget: bigint, factor: [bigint, bigint]): ModelCredits {
  const window = new Fraction(factor[0] * block.powLimit, factor[1] * networkTarget);
  const weights = new Map<string, Fraction>();
  let sum = new Fraction(0n);
  for (const s of [...shares].reverse()) {
    if (sum.cmp(window) >= 0) break;
    let w = new Fraction(block.powLimit, s.target);
    if (sum.plus(w).cmp(window) > 0) w = window.minus(sum);
    weights.set(s.address, (weights.get(s.address) ?? new Fraction(0n)).plus(w));
    sum = sum.plus(w);
  }
  return split(distributable(block), weights);
}

/** PROP: every share of the round, by its weight. */
export function modelProp(block: ModelBlock, round: readonly ModelShare[]): ModelCredits {
  const weights = new Map<string, Fraction>();
  for (const s of round) weights.set(s.address, (weights.get(s.address) ?? new Fraction(0n)).plus(new Fraction(block.powLimit, s.target)));
  return split(distributable(block), weights);
}
