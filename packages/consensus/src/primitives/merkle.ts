import { sha256d } from '../crypto/hash.ts';

export interface MerkleResult {
  readonly root: Uint8Array;
  /**
   * True when two identical adjacent hashes were paired at some level (CVE-2012-2459): such a
   * tree has the same root as a different transaction list, so the block must be rejected as
   * mutated rather than marked invalid.
   */
  readonly mutated: boolean;
}

/** Bitcoin's merkle root: odd levels duplicate their last node. An empty list gives zeros. */
export function merkleRoot(leaves: readonly Uint8Array[]): MerkleResult {
  if (leaves.length === 0) return { root: new Uint8Array(32), mutated: false };
  let level = leaves.slice();
  let mutated = false;
  const pair = new Uint8Array(64);
  while (level.length > 1) {
    const next: Uint8Array[] = [];
    for (let i = 0; i < level.length; i += 2) {
      const left = level[i];
      const right = i + 1 < level.length ? level[i + 1] : left;
      if (i + 1 < level.length && bytesEq32(left, right)) mutated = true;
      next.push(parent(pair, left, right));
    }
    level = next;
  }
  return { root: level[0], mutated };
}

function bytesEq32(a: Uint8Array, b: Uint8Array): boolean {
  for (let i = 0; i < 32; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The hashes a first leaf is paired with on its way to the root (stratum's merkle branch), from
 * the other leaves: what a pool computes once per template, after which each coinbase's root
 * costs one hash per level instead of the whole tree. The tree is merkleRoot's.
 */
export function merkleBranch(rest: readonly Uint8Array[]): Uint8Array[] {
  const branch: Uint8Array[] = [];
  const pair = new Uint8Array(64);
  // Level by level, without the first node, which is the one the branch leads up from.
  let level: readonly Uint8Array[] = rest;
  while (level.length > 0) {
    branch.push(level[0]);
    const next: Uint8Array[] = [];
    for (let i = 1; i < level.length; i += 2) next.push(parent(pair, level[i], i + 1 < level.length ? level[i + 1] : level[i]));
    level = next;
  }
  return branch;
}

/** The root of a tree whose first leaf is `first` and whose other leaves gave `branch`. */
export function rootFromBranch(first: Uint8Array, branch: readonly Uint8Array[]): Uint8Array {
  const pair = new Uint8Array(64);
  let node = first;
  for (const sibling of branch) node = parent(pair, node, sibling);
  return node;
}

/** SHA256d(left ‖ right), through a 64-byte scratch buffer the caller reuses across a tree. */
function parent(pair: Uint8Array, left: Uint8Array, right: Uint8Array): Uint8Array {
  pair.set(left, 0);
  pair.set(right, 32);
  return sha256d(pair);
}
