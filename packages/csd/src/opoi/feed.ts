/**
 * The OPoI lifecycle as a stream of notices, for the WebSocket `opoi` channel and the ZeroMQ
 * `opoi` topic alike (docs/notifications.md): every step of a connected block in block order,
 * every step of a disconnected block in reverse order marked `undone`, and response content the
 * node newly accepted. Each interface decides who gets a notice; this decides what it says.
 */
import type { OpoiEvent } from '@cs/consensus';
import type { Chain } from '../chain/chainstate.ts';
import type { ChainBlockEvent } from '../chain/events.ts';
import type { JsonObject } from '../format/json-value.ts';
import type { OpoiContentStore, PublishedContent } from './content.ts';
import { eventToJson, publishedToJson } from './json.ts';

export interface OpoiNotice {
  /** The request the step belongs to (32 hex digits), null for stake steps: what subscriptions filter on. */
  readonly requestId: string | null;
  /** The push: `type: 'opoi'` then the step's fields. */
  readonly json: JsonObject;
}

export interface OpoiFeedOptions {
  readonly chain: Chain;
  /** Where `published` notices come from; without it there are none. */
  readonly content?: OpoiContentStore;
  /** Whether anybody listens now: when not, no notice is built. */
  readonly wanted: () => boolean;
  readonly send: (notice: OpoiNotice) => void;
}

export class OpoiFeed {
  readonly #o: OpoiFeedOptions;

  constructor(options: OpoiFeedOptions) {
    this.#o = options;
    options.chain.events.on('connect', this.#onConnect);
    options.chain.events.on('disconnect', this.#onDisconnect);
    options.content?.events.on('published', this.#onPublished);
  }

  close(): void {
    this.#o.chain.events.off('connect', this.#onConnect);
    this.#o.chain.events.off('disconnect', this.#onDisconnect);
    this.#o.content?.events.off('published', this.#onPublished);
  }

  readonly #onConnect = ({ entry, opoi }: ChainBlockEvent): void => this.#announce(opoi, entry.hashHex, false);

  // Undone newest first, the order in which the state went back.
  readonly #onDisconnect = ({ entry, opoi }: ChainBlockEvent): void => this.#announce([...opoi].reverse(), entry.hashHex, true);

  #announce(events: readonly OpoiEvent[], blockHash: string, undone: boolean): void {
    if (events.length === 0 || !this.#o.wanted()) return;
    const params = this.#o.chain.params;
    for (const e of events) this.#o.send({ requestId: e.requestId, json: { type: 'opoi', ...eventToJson(e, blockHash, undone, params) } });
  }

  readonly #onPublished = (p: PublishedContent): void => {
    if (!this.#o.wanted()) return;
    this.#o.send({ requestId: p.requestId, json: { type: 'opoi', ...publishedToJson(p, this.#o.chain.height, this.#o.chain.params) } });
  };
}
