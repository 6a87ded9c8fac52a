/**
 * Answers that need an optional index: 501 when it is switched off (the node cannot answer, and
 * must not pretend there is nothing), 503 while it is still catching up with the chain (partial
 * data would look like a wrong answer). docs/rest.md explains both statuses.
 */
import type { IndexProgress } from '../indexes/sync.ts';
import { RestError } from './errors.ts';

/** How long a client is asked to wait before retrying a syncing index. */
const SYNC_RETRY_SECONDS = 5;

export function indexDisabled(message: string): RestError {
  return new RestError(501, message);
}

export function requireSynced(progress: IndexProgress): void {
  if (progress.synced) return;
  throw new RestError(503, `Index is still syncing (height ${progress.height} of ${progress.tipHeight})`, { 'Retry-After': SYNC_RETRY_SECONDS });
}
