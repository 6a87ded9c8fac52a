import type { MempoolEntry } from './entry.ts';

/**
 * Package limits (-limitancestorcount, -limitancestorsize, -limitdescendantcount,
 * -limitdescendantsize), counts including the transaction itself, sizes in virtual bytes.
 */
export interface PackageLimits {
  readonly ancestorCount: number;
  readonly ancestorSize: number;
  readonly descendantCount: number;
  readonly descendantSize: number;
}

/**
 * Core's defaults: chains of 25 bound the work of updating ancestor and descendant totals (each
 * addition touches at most 24 others) and of block assembly; 101 kvB is the largest standard
 * transaction (400,000 weight = 100 kvB) plus room for a small parent or child.
 */
export const DEFAULT_PACKAGE_LIMITS: PackageLimits = {
  ancestorCount: 25,
  ancestorSize: 101_000,
  descendantCount: 25,
  descendantSize: 101_000,
};

/**
 * CPFP carve-out (Core's EXTRA_DESCENDANT_TX_SIZE_LIMIT): one more child of at most 10,000 vbytes
 * with a single in-pool ancestor may exceed the descendant limits, so that either party of a
 * two-party contract can always attach a fee-bumping child to a shared parent.
 */
export const EXTRA_DESCENDANT_TX_SIZE_LIMIT = 10_000;

export type AncestorsResult = { readonly ok: true; readonly ancestors: Set<MempoolEntry> } | { readonly ok: false; readonly error: string };

/**
 * Core's CalculateMemPoolAncestors for a transaction of `vsize` vbytes not yet in the pool whose
 * in-pool parents are `parents`: its in-pool ancestors, or the first limit it would break, worded
 * as Core words it.
 */
export function calculateAncestors(parents: ReadonlySet<MempoolEntry>, vsize: number, limits: PackageLimits): AncestorsResult {
  if (parents.size + 1 > limits.ancestorCount) {
    return { ok: false, error: `too many unconfirmed parents [limit: ${limits.ancestorCount}]` };
  }
  const ancestors = new Set<MempoolEntry>();
  const staged = new Set(parents);
  let totalSize = vsize;
  while (staged.size > 0) {
    const stage: MempoolEntry = staged.values().next().value!;
    staged.delete(stage);
    ancestors.add(stage);
    totalSize += stage.vsize;
    if (stage.sizeWithDescendants + vsize > limits.descendantSize) {
      return { ok: false, error: `exceeds descendant size limit for tx ${stage.txid} [limit: ${limits.descendantSize}]` };
    }
    if (stage.countWithDescendants + 1 > limits.descendantCount) {
      return { ok: false, error: `too many descendants for tx ${stage.txid} [limit: ${limits.descendantCount}]` };
    }
    if (totalSize > limits.ancestorSize) {
      return { ok: false, error: `exceeds ancestor size limit [limit: ${limits.ancestorSize}]` };
    }
    for (const parent of stage.parents) {
      if (!ancestors.has(parent)) staged.add(parent);
      if (staged.size + ancestors.size + 1 > limits.ancestorCount) {
        return { ok: false, error: `too many unconfirmed ancestors [limit: ${limits.ancestorCount}]` };
      }
    }
  }
  return { ok: true, ancestors };
}

/**
 * The limits for a transaction with `conflicts` direct conflicts, then, when those fail, the
 * carve-out retry: Core's sequence in MemPoolAccept::PreChecks.
 */
export function ancestorsWithinLimits(
  parents: ReadonlySet<MempoolEntry>,
  vsize: number,
  limits: PackageLimits,
  conflicts: ReadonlySet<MempoolEntry>,
): AncestorsResult {
  let effective = limits;
  if (conflicts.size === 1) {
    // A replacement evicts its conflict (and that one's descendants) from the same ancestors'
    // descendant totals, so those totals may exceed the limit by what it evicts.
    const conflict: MempoolEntry = conflicts.values().next().value!;
    effective = {
      ...limits,
      descendantCount: limits.descendantCount + 1,
      descendantSize: limits.descendantSize + conflict.sizeWithDescendants,
    };
  }
  const first = calculateAncestors(parents, vsize, effective);
  if (first.ok || vsize > EXTRA_DESCENDANT_TX_SIZE_LIMIT) return first;
  const carveOut: PackageLimits = {
    ancestorCount: 2,
    ancestorSize: effective.ancestorSize,
    descendantCount: effective.descendantCount + 1,
    descendantSize: effective.descendantSize + EXTRA_DESCENDANT_TX_SIZE_LIMIT,
  };
  const retry = calculateAncestors(parents, vsize, carveOut);
  // The carve-out failing too reports the ordinary limit the transaction broke.
  return retry.ok ? retry : first;
}
