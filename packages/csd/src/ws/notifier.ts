import type { Transaction } from '@cs/consensus';
import type { Chain } from '../chain/chainstate.ts';
import type { ChainBlockEvent } from '../chain/events.ts';
import type { Coin } from '../chain/coins.ts';
import type { AddedEvent, RemovedEvent } from '../mempool/events.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { OpoiContentStore } from '../opoi/content.ts';
import { OpoiFeed } from '../opoi/feed.ts';
import { addressActivity, type AddressActivity } from './address-activity.ts';
import { addressTxPush, mempoolAddedPush, mempoolRemovedPush, newBlockPush, type AddressTxStatus } from './payloads.ts';
import type { WsServer } from './server.ts';

/**
 * Turns chain and mempool events into WebSocket pushes for the clients subscribed to them. Work
 * is skipped for channels nobody listens to: transactions are matched against addresses only
 * while some client watches one.
 */
export class WsNotifier {
  /**
   * Address activity of mempool transactions that touched a watched address when they entered,
   * so that their leaving without confirmation can be announced: by then the coins they spent
   * may be gone from every view. Bounded by the mempool; an entry goes when its transaction leaves.
   */
  readonly #pending = new Map<string, AddressActivity[]>();
  /** The opoi channel; its chain listeners come after this notifier's, so a block's OPoI steps follow its other pushes. */
  readonly #opoi: OpoiFeed;

  constructor(
    private readonly server: WsServer,
    private readonly chain: Chain,
    private readonly mempool: Mempool,
    /** Source of `published` pushes on the opoi channel (none without it). */
    content?: OpoiContentStore,
  ) {
    chain.events.on('connect', this.#onConnect);
    chain.events.on('disconnect', this.#onDisconnect);
    mempool.events.on('added', this.#onAdded);
    mempool.events.on('removed', this.#onRemoved);
    const subs = server.subscriptions;
    this.#opoi = new OpoiFeed({
      chain,
      content,
      wanted: () => subs.watchesOpoi,
      send: ({ requestId, json }) => server.push(subs.opoiRecipients(requestId), json),
    });
  }

  close(): void {
    this.#opoi.close();
    this.chain.events.off('connect', this.#onConnect);
    this.chain.events.off('disconnect', this.#onDisconnect);
    this.mempool.events.off('added', this.#onAdded);
    this.mempool.events.off('removed', this.#onRemoved);
  }

  readonly #onConnect = (event: ChainBlockEvent): void => this.#announceBlock(event, false);

  readonly #onDisconnect = (event: ChainBlockEvent): void => this.#announceBlock(event, true);

  #announceBlock({ block, entry, undo }: ChainBlockEvent, disconnected: boolean): void {
    const subs = this.server.subscriptions;
    if (subs.newBlocks.size > 0) this.server.push(subs.newBlocks, newBlockPush(block, entry, this.chain.params, disconnected));
    if (!subs.watchesAddresses) return;
    const where: AddressTxStatus = { status: disconnected ? 'reorged' : 'confirmed', block: entry };
    // The undo data skips the coinbase: transaction i spent undo[i - 1].
    block.txs.forEach((tx, i) => this.#announceActivity(tx.txidHex, this.#activity(tx, i === 0 ? [] : undo[i - 1]), where));
  }

  readonly #onAdded = (event: AddedEvent): void => {
    const subs = this.server.subscriptions;
    if (subs.mempool.size > 0) this.server.push(subs.mempool, mempoolAddedPush(event));
    if (!subs.watchesAddresses) return;
    const { tx, txid } = event.entry;
    const view = this.mempool.coinView();
    const activity = this.#activity(
      tx,
      tx.inputs.map((input) => view.getCoin(input.prevout)),
    );
    if (activity.length === 0) return;
    this.#pending.set(txid, activity);
    this.#announceActivity(txid, activity, { status: 'mempool' });
  };

  readonly #onRemoved = (event: RemovedEvent): void => {
    const subs = this.server.subscriptions;
    if (subs.mempool.size > 0) this.server.push(subs.mempool, mempoolRemovedPush(event));
    const { txid } = event.entry;
    const activity = this.#pending.get(txid);
    if (!activity) return;
    this.#pending.delete(txid);
    // A confirmation is announced with its block (connect), which follows.
    if (event.reason !== 'block') this.#announceActivity(txid, activity, { status: 'removed', reason: event.reason });
  };

  #activity(tx: Transaction, spent: readonly (Coin | undefined)[]): AddressActivity[] {
    return addressActivity(tx, spent, (script) => this.server.subscriptions.watchers(script)?.address);
  }

  #announceActivity(txid: string, activity: readonly AddressActivity[], where: AddressTxStatus): void {
    for (const a of activity) {
      const watchers = this.server.subscriptions.watchers(a.script);
      if (watchers) this.server.push(watchers.clients, addressTxPush(txid, a, where));
    }
  }
}
