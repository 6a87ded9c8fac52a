import type { Logger } from 'pino';
import type { Transaction } from '@cs/consensus';
import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { Chain } from '../chain/chainstate.ts';
import type { ChainBlockEvent } from '../chain/events.ts';
import type { AddedEvent, RemovedEvent } from '../mempool/events.ts';
import type { Mempool } from '../mempool/mempool.ts';
import type { OpoiContentStore } from '../opoi/content.ts';
import { OpoiFeed } from '../opoi/feed.ts';
import { blockSequenceBody, hashBody, mempoolSequenceBody } from './bodies.ts';
import type { ZmqNotification } from './notifications.ts';
import { ZmqPublishers, type ZmqNotifier } from './publishers.ts';

/**
 * Core's CZMQNotificationInterface: which chain and mempool events reach which topics.
 * - rawtx/hashtx: every transaction entering the mempool, and every transaction of a block
 *   connected or disconnected (so a transaction may be published several times);
 * - rawblock/hashblock: the new tip, once per chain update that connected blocks (not each block
 *   of a reorg, and nothing when blocks were only disconnected, e.g. by invalidateblock);
 * - sequence: every block connected (C) or disconnected (D), every transaction added to the
 *   mempool (A) or removed from it for any reason but a block (R), A and R with the mempool
 *   sequence number;
 * - opoi (ours): every OPoI lifecycle step of a block connected, or undone with a block
 *   disconnected, and response content accepted, as the WebSocket opoi channel's JSON.
 * Notifiers are visited in Core's order (topic, then endpoint as configured) for each event.
 */
export class ZmqNotificationInterface {
  /** A block was connected since the last tip event: the next one publishes the tip. */
  #connectedSinceTip = false;
  /** The opoi topic; its chain listeners come after this interface's, so a block's OPoI steps follow its sequence C or D. */
  readonly #opoi: OpoiFeed;

  private constructor(
    private readonly publishers: ZmqPublishers,
    private readonly chain: Chain,
    private readonly mempool: Mempool,
    private readonly log: Logger,
    content: OpoiContentStore | undefined,
  ) {
    chain.events.on('connect', this.#onConnect);
    chain.events.on('disconnect', this.#onDisconnect);
    chain.events.on('tip', this.#onTip);
    mempool.events.on('added', this.#onAdded);
    mempool.events.on('removed', this.#onRemoved);
    const opoi = publishers.notifiers.filter((n) => n.topic === 'opoi');
    this.#opoi = new OpoiFeed({
      chain,
      content,
      wanted: () => opoi.length > 0,
      send: ({ json }) => {
        const body = Buffer.from(JSON.stringify(json));
        for (const n of opoi) n.send(body);
      },
    });
  }

  /** Binds every configured endpoint and starts publishing; `content` is where opoi's `published` messages come from. */
  static async start(
    notifications: readonly ZmqNotification[],
    chain: Chain,
    mempool: Mempool,
    log: Logger,
    content?: OpoiContentStore,
  ): Promise<ZmqNotificationInterface> {
    return new ZmqNotificationInterface(await ZmqPublishers.open(notifications, log), chain, mempool, log, content);
  }

  close(): void {
    this.#opoi.close();
    this.chain.events.off('connect', this.#onConnect);
    this.chain.events.off('disconnect', this.#onDisconnect);
    this.chain.events.off('tip', this.#onTip);
    this.mempool.events.off('added', this.#onAdded);
    this.mempool.events.off('removed', this.#onRemoved);
    this.publishers.close();
  }

  get #notifiers(): readonly ZmqNotifier[] {
    return this.publishers.notifiers;
  }

  readonly #onAdded = ({ entry, sequence }: AddedEvent): void => {
    const bodies = new TxBodies(entry.tx);
    for (const n of this.#notifiers) {
      if (n.topic === 'sequence') n.send(mempoolSequenceBody(entry.tx.txid, 'A', sequence));
      else bodies.sendTo(n);
    }
  };

  readonly #onRemoved = ({ entry, reason, sequence }: RemovedEvent): void => {
    // A confirmed transaction is announced with its block (C), as in Core.
    if (reason === 'block') return;
    for (const n of this.#notifiers) if (n.topic === 'sequence') n.send(mempoolSequenceBody(entry.tx.txid, 'R', sequence));
  };

  readonly #onConnect = (event: ChainBlockEvent): void => {
    this.#connectedSinceTip = true;
    this.#announceBlockChange(event, 'C');
  };

  readonly #onDisconnect = (event: ChainBlockEvent): void => this.#announceBlockChange(event, 'D');

  #announceBlockChange({ block, entry }: ChainBlockEvent, label: 'C' | 'D'): void {
    for (const tx of block.txs) {
      const bodies = new TxBodies(tx);
      for (const n of this.#notifiers) bodies.sendTo(n);
    }
    for (const n of this.#notifiers) if (n.topic === 'sequence') n.send(blockSequenceBody(entry.hash, label));
  }

  readonly #onTip = (tip: BlockIndexEntry): void => {
    if (!this.#connectedSinceTip) return;
    this.#connectedSinceTip = false;
    let raw: Uint8Array | undefined;
    for (const n of this.#notifiers) {
      if (n.topic === 'hashblock') n.send(hashBody(tip.hash));
      if (n.topic !== 'rawblock') continue;
      raw ??= this.chain.readRawBlock(tip);
      if (raw) n.send(raw);
      else this.log.error({ hash: tip.hashHex }, 'ZeroMQ rawblock: the tip block cannot be read');
    }
  };
}

/** A transaction's rawtx and hashtx bodies, each built at most once however many notifiers send it. */
class TxBodies {
  #raw: Uint8Array | undefined;
  #hash: Uint8Array | undefined;

  constructor(private readonly tx: Transaction) {}

  /** Sends the body `n` publishes for a transaction, if its topic is a transaction topic. */
  sendTo(n: ZmqNotifier): void {
    // rawtx carries the witness, as Core serializes for RPC.
    if (n.topic === 'rawtx') n.send((this.#raw ??= this.tx.encode()));
    else if (n.topic === 'hashtx') n.send((this.#hash ??= hashBody(this.tx.txid)));
  }
}
