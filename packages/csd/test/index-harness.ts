// Helpers for tests of the optional indexes (packages/csd/src/indexes/).
import type { IndexProgress } from '../src/indexes/sync.ts';

/** Resolves once `progress()` reports the index synced; fails after `timeoutMs`. */
export async function waitSynced(progress: () => IndexProgress, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!progress().synced) {
    if (Date.now() > deadline) throw new Error(`index not synced after ${timeoutMs} ms: ${JSON.stringify(progress())}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
