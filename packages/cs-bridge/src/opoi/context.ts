/** What every part of the OPoI engine reads: the configuration, the node, the store and the miners connected now. */
import type { RpcClient, RpcResult } from '@cs/client';
import type { Logger } from 'pino';
import type { BridgeConfig } from '../config/env.ts';
import type { MinerConnection } from '../relay/relay.ts';
import type { BridgeStore } from '../store/store.ts';

export type StakeStatus = 'unknown' | 'active' | 'pending' | 'no-stake' | 'inactive' | 'node-error';

/** A request as getopoirequest answers it (docs/rpc.md, "The request object"). */
export type ChainRequest = RpcResult<'getopoirequest'>;

export interface EngineContext {
  readonly config: BridgeConfig;
  readonly rpc: RpcClient;
  readonly store: BridgeStore;
  readonly log: Logger;
  /** Authorized connections that announced OPoI, by connection id. */
  readonly miners: ReadonlyMap<number, MinerConnection>;
  /** The node's height at the start of this tick: the next block is height + 1. */
  readonly height: number;
  readonly stake: StakeStatus;
  /** Model ids of the manifests the stake serves (its STAKE's list): the VERIFIABLE work it may commit to. */
  readonly serves: readonly string[];
}

/** Settled requests pay out (protocol.md §11.4). */
export const SETTLED: ReadonlySet<string> = new Set(['FULFILLED', 'REJECTED', 'EXPIRED']);
