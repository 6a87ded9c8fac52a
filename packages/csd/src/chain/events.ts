import type { Block, OpoiEvent } from '@cs/consensus';
import { TypedEvents } from '../events/typed-events.ts';
import type { BlockIndexEntry } from './block-index.ts';
import type { BlockUndo } from './undo.ts';

/** A block joining or leaving the active chain, with the coins its transactions spent. */
export interface ChainBlockEvent {
  readonly block: Block;
  readonly entry: BlockIndexEntry;
  readonly undo: BlockUndo;
  /** The OPoI lifecycle steps the block made (on disconnect: the steps now undone), in order. */
  readonly opoi: readonly OpoiEvent[];
}

/** What connecting a block cost, as Core's -debug=bench reports it. */
export interface ConnectTiming {
  /** Inputs whose coins were looked up and scripts verified (coinbase excluded). */
  readonly inputs: number;
  /** The whole connect: reading and decoding the block, checks, scripts, the atomic write. */
  readonly seconds: number;
  /** Where those seconds went, in order (Core's -debug=bench split). */
  readonly phases: {
    /** Reading and decoding the block, contextual checks, coin lookups; scripts already run meanwhile. */
    readonly plan: number;
    /** Waiting for the script checks still running once the plan is done. */
    readonly scripts: number;
    /** The atomic write of coins, undo data, index entry and tip. */
    readonly write: number;
  };
  /** Whether the block was planned while its parent's scripts were checked (a lookahead). */
  readonly plannedAhead: boolean;
}

/**
 * What the chain announces. Everything above the chain (mempool, wallet, indexes, ZeroMQ,
 * WebSocket, later P2P and OPoI state) subscribes here instead of reaching into storage.
 * Listeners run after the change is committed, in connection order.
 * (A type alias rather than an interface, so that it fits TypedEvents' index signature.)
 */
export type ChainEventMap = {
  connect: [ChainBlockEvent & { readonly timing: ConnectTiming }];
  disconnect: [ChainBlockEvent];
  /** The active tip changed (once per activation, after all connects and disconnects). */
  tip: [BlockIndexEntry];
};

/** The chain's announcements; see ChainEventMap. */
export class ChainEvents extends TypedEvents<ChainEventMap> {}
