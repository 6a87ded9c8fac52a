/**
 * Coin selection, as Core's coinselection.cpp: branch-and-bound looks for a set of coins that
 * pays the target without change (within the cost of making change); the knapsack solver is the
 * fallback that aims at target + a change amount. When both find a set, the one with the lower
 * waste wins. Pure functions over candidate coins; the caller computes fees and builds the
 * transaction.
 */

export interface Candidate<T = unknown> {
  readonly coin: T;
  /** What the coin contributes toward the target: its value minus the fee to spend it (its value when recipients pay the fee). */
  readonly amount: bigint;
  /** Fee to spend it at the transaction's fee rate. */
  readonly fee: bigint;
  /** Fee to spend it at the long-term (consolidation) fee rate. */
  readonly longTermFee: bigint;
}

export interface SelectionParams {
  /** What the selected amounts must add up to (payments plus the fee of everything but the inputs). */
  readonly target: bigint;
  /** Making change costs its output now and spending it later; changeless sets may overshoot by this. */
  readonly costOfChange: bigint;
  /** Knapsack's extra aim above the target, so that the change is not tiny (Core's min_change_target). */
  readonly changeTarget: bigint;
  /** Change below this is not made (it goes to the fee). */
  readonly minViableChange: bigint;
  /** Fee of the change output itself. */
  readonly changeFee: bigint;
  /** Recipients pay the fee: no branch-and-bound (Core skips it then: changeless sets rarely fit). */
  readonly subtractFee: boolean;
  /** Uniform in [0, 1): the knapsack solver's coin flips. */
  readonly random: () => number;
}

export interface Selection<T> {
  readonly candidates: readonly Candidate<T>[];
  readonly algorithm: 'bnb' | 'knapsack';
  readonly waste: bigint;
}

/** Core's TOTAL_TRIES for branch-and-bound. */
const BNB_TOTAL_TRIES = 100_000;
/** Core's ApproximateBestSubset iterations. */
const KNAPSACK_ITERATIONS = 1000;

/**
 * Core's SelectCoinsBnB: depth-first search over coins sorted by amount, largest first, for a
 * set within [target, target + costOfChange] of least waste (input fees over long-term fees plus
 * the overshoot). Gives up after BNB_TOTAL_TRIES steps.
 */
export function branchAndBound<T>(pool: readonly Candidate<T>[], target: bigint, costOfChange: bigint): Candidate<T>[] | null {
  const utxos = pool.filter((c) => c.amount > 0n).sort((a, b) => (b.amount > a.amount ? 1 : b.amount < a.amount ? -1 : 0));
  let available = utxos.reduce((sum, c) => sum + c.amount, 0n);
  if (available < target || utxos.length === 0) return null;
  // With fees above the long-term rate, adding inputs only adds waste: prune on it.
  const feerateHigh = utxos[0].fee > utxos[0].longTermFee;
  const selection: number[] = [];
  let value = 0n;
  let waste = 0n;
  let best: number[] | null = null;
  let bestWaste = 0n;
  let index = 0;
  for (let tries = 0; tries < BNB_TOTAL_TRIES; tries++, index++) {
    let backtrack = false;
    if (value + available < target || value > target + costOfChange || (best !== null && waste > bestWaste && feerateHigh)) {
      backtrack = true;
    } else if (value >= target) {
      const total = waste + (value - target);
      if (best === null || total <= bestWaste) {
        best = [...selection];
        bestWaste = total;
      }
      backtrack = true;
    }
    if (backtrack) {
      if (selection.length === 0) break;
      // Give back the coins skipped since the last included one, then try without that one.
      for (index--; index > selection[selection.length - 1]; index--) available += utxos[index].amount;
      const u = utxos[index];
      value -= u.amount;
      waste -= u.fee - u.longTermFee;
      selection.pop();
    } else {
      const u = utxos[index];
      available -= u.amount;
      const prev = utxos[index - 1];
      // An excluded coin equal to this one makes including this one a branch already searched.
      const sameAsSkipped = index > 0 && selection[selection.length - 1] !== index - 1 && u.amount === prev.amount && u.fee === prev.fee;
      if (selection.length === 0 || !sameAsSkipped) {
        selection.push(index);
        value += u.amount;
        waste += u.fee - u.longTermFee;
      }
    }
  }
  return best ? best.map((i) => utxos[i]) : null;
}

/**
 * Core's KnapsackSolver: an exact single coin if there is one; all smaller coins if they add up
 * exactly; otherwise the best of random subsets of the smaller coins (aiming at target, then at
 * target + changeTarget), unless the smallest larger coin is better.
 */
export function knapsack<T>(pool: readonly Candidate<T>[], target: bigint, changeTarget: bigint, random: () => number): Candidate<T>[] | null {
  const shuffled = shuffle(
    pool.filter((c) => c.amount > 0n),
    random,
  );
  const applicable: Candidate<T>[] = [];
  let lowestLarger: Candidate<T> | null = null;
  let totalLower = 0n;
  for (const c of shuffled) {
    if (c.amount === target) return [c];
    if (c.amount < target + changeTarget) {
      applicable.push(c);
      totalLower += c.amount;
    } else if (!lowestLarger || c.amount < lowestLarger.amount) {
      lowestLarger = c;
    }
  }
  if (totalLower === target) return applicable;
  if (totalLower < target) return lowestLarger ? [lowestLarger] : null;
  applicable.sort((a, b) => (b.amount > a.amount ? 1 : b.amount < a.amount ? -1 : 0));
  let { included, total } = approximateBestSubset(applicable, totalLower, target, random);
  if (total !== target && totalLower >= target + changeTarget) {
    ({ included, total } = approximateBestSubset(applicable, totalLower, target + changeTarget, random));
  }
  if (lowestLarger && ((total !== target && total < target + changeTarget) || lowestLarger.amount <= total)) return [lowestLarger];
  return applicable.filter((_, i) => included[i]);
}

function approximateBestSubset<T>(coins: readonly Candidate<T>[], totalLower: bigint, target: bigint, random: () => number) {
  let best = coins.map(() => true);
  let bestTotal = totalLower;
  for (let rep = 0; rep < KNAPSACK_ITERATIONS && bestTotal !== target; rep++) {
    const included = coins.map(() => false);
    let total = 0n;
    let reached = false;
    for (let pass = 0; pass < 2 && !reached; pass++) {
      for (let i = 0; i < coins.length; i++) {
        // First pass: random subsets; second: add what the first left out until the target is reached.
        if (pass === 0 ? random() < 0.5 : !included[i]) {
          total += coins[i].amount;
          included[i] = true;
          if (total >= target) {
            reached = true;
            if (total < bestTotal) {
              bestTotal = total;
              best = [...included];
            }
            total -= coins[i].amount;
            included[i] = false;
          }
        }
      }
    }
  }
  return { included: best, total: bestTotal };
}

/** Fisher-Yates with the caller's randomness. */
export function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** Change a selection leaves (0 when below the viable minimum), as Core's SelectionResult::GetChange. */
export function changeOf(selected: bigint, p: Pick<SelectionParams, 'target' | 'changeFee' | 'minViableChange'>): bigint {
  const change = selected - p.target - p.changeFee;
  return change < p.minViableChange ? 0n : change;
}

/** Core's waste metric: input fees over their long-term cost, plus making change or else the overshoot. */
export function wasteOf<T>(candidates: readonly Candidate<T>[], p: SelectionParams, preset = 0n): bigint {
  const selected = preset + candidates.reduce((sum, c) => sum + c.amount, 0n);
  const inputs = candidates.reduce((sum, c) => sum + c.fee - c.longTermFee, 0n);
  return inputs + (changeOf(selected, p) > 0n ? p.costOfChange : selected - p.target);
}

/**
 * Runs the algorithms and keeps the least wasteful result. `preset` is what inputs the caller
 * already chose contribute (fundrawtransaction); the candidates must make up the rest.
 */
export function selectCoins<T>(pool: readonly Candidate<T>[], p: SelectionParams, preset = 0n): Selection<T> | null {
  const needed = p.target - preset;
  if (needed <= 0n) return { candidates: [], algorithm: 'bnb', waste: wasteOf([], p, preset) };
  const results: Selection<T>[] = [];
  if (!p.subtractFee) {
    const bnb = branchAndBound(pool, needed, p.costOfChange);
    if (bnb) results.push({ candidates: bnb, algorithm: 'bnb', waste: wasteOf(bnb, p, preset) });
  }
  const ks = knapsack(pool, needed, p.changeTarget, p.random);
  if (ks) results.push({ candidates: ks, algorithm: 'knapsack', waste: wasteOf(ks, p, preset) });
  if (results.length === 0) return null;
  return results.reduce((best, r) => (r.waste < best.waste ? r : best));
}

/** Core's CHANGE_LOWER and CHANGE_UPPER: the range knapsack's change aim is drawn from. */
const CHANGE_LOWER = 50_000n;
const CHANGE_UPPER = 1_000_000n;

/** Core's GenerateChangeTarget: a random change aim, so that change amounts do not give the payment away. */
export function changeTarget(payment: bigint, changeFee: bigint, random: () => number): bigint {
  if (payment <= CHANGE_LOWER / 2n) return changeFee + CHANGE_LOWER;
  const upper = payment * 2n < CHANGE_UPPER ? payment * 2n : CHANGE_UPPER;
  const span = upper - CHANGE_LOWER;
  return changeFee + CHANGE_LOWER + (span > 0n ? BigInt(Math.floor(random() * Number(span))) : 0n);
}
