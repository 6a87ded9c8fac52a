import type { Block } from '@cs/consensus';
import type { BlockIndexEntry } from './block-index.ts';
import type { BlockUndo } from './undo.ts';

/** A block joining or leaving the active chain, with the coins its transactions spent. */
export interface ChainBlockEvent {
  readonly block: Block;
  readonly entry: BlockIndexEntry;
  readonly undo: BlockUndo;
}

/**
 * What the chain announces. Everything above the chain (mempool, wallet, indexes, ZeroMQ,
 * WebSocket, later P2P and OPoI state) subscribes here instead of reaching into storage.
 * Listeners run after the change is committed, in connection order.
 */
export interface ChainEventMap {
  connect: [ChainBlockEvent];
  disconnect: [ChainBlockEvent];
  /** The active tip changed (once per activation, after all connects and disconnects). */
  tip: [BlockIndexEntry];
}

type Listener<K extends keyof ChainEventMap> = (...args: ChainEventMap[K]) => void;

export class ChainEvents {
  private readonly listeners: { [K in keyof ChainEventMap]: Listener<K>[] } = { connect: [], disconnect: [], tip: [] };

  /** `onError` hears a listener that threw: the chain has already committed, so it must go on. */
  constructor(private readonly onError: (event: string, err: unknown) => void) {}

  on<K extends keyof ChainEventMap>(event: K, listener: Listener<K>): void {
    this.listeners[event].push(listener);
  }

  off<K extends keyof ChainEventMap>(event: K, listener: Listener<K>): void {
    const list = this.listeners[event];
    const i = list.indexOf(listener);
    if (i >= 0) list.splice(i, 1);
  }

  emit<K extends keyof ChainEventMap>(event: K, ...args: ChainEventMap[K]): void {
    for (const listener of [...this.listeners[event]]) {
      try {
        listener(...args);
      } catch (err) {
        this.onError(event, err);
      }
    }
  }
}
