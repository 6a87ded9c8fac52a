/** What the connecting thread and the coins writer thread (coins-writer.ts, coins-writer-main.ts) say to each other. */
import type { PackedChanges } from './coins-cache.ts';

/** What the main thread asks of the writer thread. */
export type WriterRequest =
  | { readonly kind: 'write'; readonly changes: PackedChanges; readonly meta: { readonly key: string; readonly value: Uint8Array } }
  | { readonly kind: 'close' };

/** The writer thread's answer to a write: the error's message when it failed. */
export interface WriterReply {
  readonly error: string | null;
}

/** Values of the shared state word. */
export const IDLE = 0;
export const WRITING = 1;
