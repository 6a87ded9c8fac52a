/**
 * The address index (-addressindex), behind /rest/address: for any address, its confirmed
 * totals and history from the database (indexes/address-store.ts, kept in step with the active
 * chain by indexes/sync.ts) and its unconfirmed activity from the mempool
 * (indexes/mempool-addresses.ts).
 */
import type { Logger } from 'pino';
import type { Chain } from '../chain/chainstate.ts';
import type { Mempool } from '../mempool/mempool.ts';
import { ADDRESS_INDEX_MARKER, type ChainDatabase } from '../storage/database.ts';
import { addressKey } from './address-deltas.ts';
import { ADDRESS_INDEX_VERSION, AddressStore, type AddressSummary } from './address-store.ts';
import { MempoolAddresses, type UnconfirmedActivity } from './mempool-addresses.ts';
import { IndexSync, type IndexProgress } from './sync.ts';

/** Which of an address's transactions to list: items `from` (inclusive) to `to` (exclusive). */
export interface ItemRange {
  readonly from: number;
  readonly to: number;
}

/** What the index knows about one address, with one page of its transactions. */
export interface AddressActivity {
  readonly confirmed: AddressSummary;
  readonly unconfirmed: UnconfirmedActivity;
  /** How many transactions touch it: the unconfirmed and the confirmed ones. */
  readonly totalItems: number;
  /**
   * Txids of items `from` to `to` of the list of every transaction touching it: the unconfirmed
   * ones first, then the confirmed ones, each newest first. Fewer at the end of the list.
   */
  readonly transactions: readonly string[];
}

export interface AddressIndexOptions {
  readonly db: ChainDatabase;
  readonly chain: Chain;
  readonly mempool: Mempool;
  readonly log: Logger;
}

export class AddressIndex {
  readonly #store: AddressStore;
  readonly #sync: IndexSync;
  readonly #unconfirmed: MempoolAddresses;

  constructor(options: AddressIndexOptions) {
    this.#store = new AddressStore(options.db.tables);
    this.#sync = new IndexSync({
      name: ADDRESS_INDEX_MARKER,
      version: ADDRESS_INDEX_VERSION,
      db: options.db,
      chain: options.chain,
      indexer: this.#store,
      log: options.log,
    });
    this.#unconfirmed = new MempoolAddresses(options.mempool);
  }

  /** Follows the mempool and the chain from now on; call after the chain has loaded and before the mempool loads. */
  start(): void {
    this.#unconfirmed.start();
    this.#sync.start();
  }

  async close(): Promise<void> {
    this.#unconfirmed.close();
    await this.#sync.close();
  }

  progress(): IndexProgress {
    return this.#sync.progress();
  }

  /**
   * The activity of the address whose output script is `script`, with the page `items` of its
   * transactions. Only complete once progress() says synced. Reads as many index entries as the
   * page holds, whatever the length of the address's history.
   */
  activity(script: Uint8Array, items: ItemRange): AddressActivity {
    const key = addressKey(script);
    const unconfirmed = this.#unconfirmed.activity(key);
    const confirmed = this.#store.summary(key);
    const pending = unconfirmed.txids.length;
    const skip = Math.max(0, items.from - pending);
    const count = items.to - Math.max(items.from, pending);
    return {
      confirmed,
      unconfirmed,
      totalItems: pending + confirmed.txCount,
      transactions: [...unconfirmed.txids.slice(items.from, items.to), ...this.#store.page(key, confirmed.txCount, skip, count)],
    };
  }
}
