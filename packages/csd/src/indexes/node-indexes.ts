/**
 * The optional indexes a node runs (-txindex, -addressindex, both on by default), created with
 * the node and started once its chain has loaded.
 */
import type { Logger } from 'pino';
import type { Chain } from '../chain/chainstate.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { ChainDatabase } from '../storage/database.ts';
import { AddressIndex } from './address-index.ts';
import { TransactionIndex } from './tx-index.ts';

export interface NodeIndexes {
  readonly txIndex?: TransactionIndex;
  readonly addressIndex?: AddressIndex;
}

export interface NodeIndexOptions {
  readonly db: ChainDatabase;
  readonly chain: Chain;
  readonly mempool: Mempool;
  readonly log: Logger;
  readonly txindex: boolean;
  readonly addressindex: boolean;
}

/** The enabled indexes, not yet following anything (the chain may still be loading). */
export function openIndexes(o: NodeIndexOptions): NodeIndexes {
  return {
    ...(o.txindex ? { txIndex: new TransactionIndex(o) } : {}),
    ...(o.addressindex ? { addressIndex: new AddressIndex(o) } : {}),
  };
}

/** Starts following the chain (and mempool): call after the chain has loaded, before the mempool loads. */
export function startIndexes(indexes: NodeIndexes): void {
  indexes.txIndex?.start();
  indexes.addressIndex?.start();
}

/** Stops following; waits for background syncs to finish their current transaction. */
export async function closeIndexes(indexes: NodeIndexes): Promise<void> {
  await indexes.txIndex?.close();
  await indexes.addressIndex?.close();
}
