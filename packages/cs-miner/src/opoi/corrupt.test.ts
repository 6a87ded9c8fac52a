import assert from 'node:assert/strict';
import { test } from 'node:test';
import { corruptTokenIds } from './corrupt.ts';

// A vocabulary of 10: 0-2 control, 9 ends generation.
const space = { vocabularySize: 10, isEogToken: (t: number) => t === 9 };
const ids = [3, 4, 5, 6, 7, 8];

test('each mode spoils the ids with tokens that are neither control nor end of generation', () => {
  assert.deepEqual(corruptTokenIds('none', ids, space), ids);
  for (let i = 0; i < 50; i++) {
    const one = corruptTokenIds('token', ids, space);
    assert.equal(one.length, ids.length);
    const changed = one.flatMap((t, k) => (t === ids[k] ? [] : [k]));
    assert.equal(changed.length, 1);
    assert.ok(one[changed[0]] >= 3 && one[changed[0]] <= 8);
    assert.deepEqual(corruptTokenIds('truncate', ids, space), [3, 4, 5]);
    const random = corruptTokenIds('random', ids, space);
    assert.equal(random.length, ids.length);
    assert.ok(random.every((t) => t >= 3 && t <= 8));
  }
  // An empty answer still comes back wrong: one token.
  for (const mode of ['token', 'truncate', 'random'] as const) assert.equal(corruptTokenIds(mode, [], space).length, 1);
});
