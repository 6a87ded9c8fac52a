import type { Transaction } from '@cs/consensus';
import type { MempoolEntry } from './entry.ts';

/** Why a transaction left the mempool (Core's MemPoolRemovalReason). */
export type RemovalReason =
  /** Confirmed in a connected block. */
  | 'block'
  /** Spent an input that a connected block spent. */
  | 'conflict'
  /** Evicted by a BIP125 replacement. */
  | 'replaced'
  /** Older than -mempoolexpiry. */
  | 'expiry'
  /** Evicted to keep the pool under -maxmempool, or past package limits after a reorg. */
  | 'sizelimit'
  /** No longer valid for the next block after blocks were disconnected. */
  | 'reorg';

export interface AddedEvent {
  readonly entry: MempoolEntry;
  /** Core's mempool sequence number (ZeroMQ "sequence" topic, getrawmempool mempool_sequence). */
  readonly sequence: number;
}

export interface RemovedEvent {
  readonly entry: MempoolEntry;
  readonly reason: RemovalReason;
  readonly sequence: number;
  /** For 'replaced': the transaction that replaced it. */
  readonly replacedBy?: Transaction;
}

/**
 * What the mempool announces to WebSocket, ZeroMQ and the wallet. Listeners run synchronously
 * after the change; one that throws is reported and does not stop the others.
 */
export interface MempoolEventMap {
  added: [AddedEvent];
  removed: [RemovedEvent];
}

type Listener<K extends keyof MempoolEventMap> = (...args: MempoolEventMap[K]) => void;

export class MempoolEvents {
  private readonly listeners: { [K in keyof MempoolEventMap]: Listener<K>[] } = { added: [], removed: [] };

  constructor(private readonly onError: (event: string, err: unknown) => void) {}

  on<K extends keyof MempoolEventMap>(event: K, listener: Listener<K>): void {
    this.listeners[event].push(listener);
  }

  off<K extends keyof MempoolEventMap>(event: K, listener: Listener<K>): void {
    const list = this.listeners[event];
    const i = list.indexOf(listener);
    if (i >= 0) list.splice(i, 1);
  }

  emit<K extends keyof MempoolEventMap>(event: K, ...args: MempoolEventMap[K]): void {
    for (const listener of [...this.listeners[event]]) {
      try {
        listener(...args);
      } catch (err) {
        this.onError(event, err);
      }
    }
  }
}
