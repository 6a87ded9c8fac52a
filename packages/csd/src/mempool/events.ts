import type { Transaction } from '@cs/consensus';
import { TypedEvents } from '../events/typed-events.ts';
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
  | 'reorg'
  /** An OPoI step the new tip no longer allows (a commit window closed, a request resolved). */
  | 'opoi';

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
 * (A type alias rather than an interface, so that it fits TypedEvents' index signature.)
 */
export type MempoolEventMap = {
  added: [AddedEvent];
  removed: [RemovedEvent];
  /** A transaction already in the pool, submitted locally again: peers are to hear of it again (Core's RelayTransaction in BroadcastTransaction). */
  rebroadcast: [{ readonly entry: MempoolEntry }];
};

/** The mempool's announcements; see MempoolEventMap. */
export class MempoolEvents extends TypedEvents<MempoolEventMap> {}
