/**
 * -corruptanswers, for demonstrations and tests: how a VERIFIABLE answer is spoiled before it is
 * sent, so that a demonstration can show a cheat being caught and tests can check that it is.
 * The text sent is always what the spoiled ids detokenize to: the cheat is in the tokens, which
 * only a replay of the model catches.
 */
export const CORRUPT_MODES = ['none', 'token', 'truncate', 'random'] as const;
export type CorruptMode = (typeof CORRUPT_MODES)[number];

export interface TokenSpace {
  readonly vocabularySize: number;
  isEogToken(token: number): boolean;
}

/** A uniformly drawn token that is neither a control token (<unk>, <s>, </s> of a llama vocabulary) nor an end of generation, nor `not`. */
function randomToken(space: TokenSpace, random: () => number, not: number): number {
  for (;;) {
    const t = 3 + Math.floor(random() * (space.vocabularySize - 3));
    if (t !== not && !space.isEogToken(t)) return t;
  }
}

/**
 * token: one token replaced at a random position; truncate: the second half dropped (an answer of
 * one token or none gets one random token instead, so that something is always wrong);
 * random: every token random (as many as the honest answer had, at least one).
 */
export function corruptTokenIds(mode: CorruptMode, ids: readonly number[], space: TokenSpace, random: () => number = Math.random): number[] {
  const out = [...ids];
  switch (mode) {
    case 'none':
      return out;
    case 'token': {
      if (out.length === 0) return [randomToken(space, random, -1)];
      const at = Math.floor(random() * out.length);
      out[at] = randomToken(space, random, out[at]);
      return out;
    }
    case 'truncate':
      return out.length > 1 ? out.slice(0, Math.floor(out.length / 2)) : [randomToken(space, random, out[0] ?? -1)];
    case 'random':
      return Array.from({ length: Math.max(1, out.length) }, () => randomToken(space, random, -1));
  }
}
