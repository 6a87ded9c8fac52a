/**
 * Published OPoI response content: accepted and stored only when its SHA-256 is the response hash
 * a miner revealed on the active chain for the request. Content is not derived from blocks, so it
 * stays across -reindex and reorgs; it is served only while a reveal on the active chain names its
 * hash. The P2P layer relays what `publish` accepts (the `published` event).
 */
import { sha256, toHex } from '@cs/consensus';
import { TypedEvents } from '../events/typed-events.ts';
import type { ChainDatabase } from '../storage/database.ts';
import type { OpoiStore } from '../chain/opoi-store.ts';

/** Largest response content a node stores: 256 KiB, about 60,000 tokens of text. */
export const MAX_OPOI_CONTENT_BYTES = 256 * 1024;

/** Why content was refused; the RPC reports each as -8 with the message. */
export class ContentError extends Error {
  override readonly name = 'ContentError';
}

export interface PublishedContent {
  readonly requestId: string;
  readonly responseHash: string;
  /** Actor key of the miner whose reveal the content matches. */
  readonly miner: string;
  readonly bytes: number;
  /** The content itself (what the peer-to-peer layer relays). */
  readonly content: Uint8Array;
  /** False when the same content was already stored (nothing new to announce or relay). */
  readonly isNew: boolean;
}

export type ContentEventMap = { published: [PublishedContent] };

function contentKey(requestId: string, responseHash: string): Buffer {
  return Buffer.from(requestId + responseHash, 'hex');
}

export class OpoiContentStore {
  readonly events: TypedEvents<ContentEventMap>;

  constructor(
    private readonly db: ChainDatabase,
    private readonly opoi: OpoiStore,
    onError: (event: string, err: unknown) => void,
  ) {
    this.events = new TypedEvents(onError);
  }

  /** Stores `content` for the request when a revealed response hash matches it; throws ContentError otherwise. */
  publish(requestId: string, content: Uint8Array): PublishedContent {
    if (content.length > MAX_OPOI_CONTENT_BYTES) throw new ContentError(`content is ${content.length} bytes; at most ${MAX_OPOI_CONTENT_BYTES}`);
    if (!this.opoi.request(requestId)) throw new ContentError('request_id not found on-chain');
    const responseHash = toHex(sha256(content));
    const reveal = this.opoi.commitsOf(requestId).find((c) => c.reveal?.responseHash === responseHash);
    if (!reveal) throw new ContentError(`content hash ${responseHash} matches no revealed response of the request`);
    const key = contentKey(requestId, responseHash);
    const isNew = this.db.tables.opoicontent.get(key) === undefined;
    if (isNew) this.db.write(() => this.db.tables.opoicontent.put(key, Buffer.from(content)));
    const published = { requestId, responseHash, miner: reveal.miner, bytes: content.length, content, isNew };
    if (isNew) this.events.emit('published', published);
    return published;
  }

  /**
   * The content to show for a request: the winner's once it is resolved, else the first revealed
   * response whose content was published; undefined when there is none.
   */
  get(requestId: string): { responseHash: string; miner: string; content: Buffer; final: boolean } | undefined {
    const r = this.opoi.request(requestId);
    if (!r) return undefined;
    const revealed = this.opoi.commitsOf(requestId).filter((c) => c.reveal !== null);
    const ordered = r.winner === null ? revealed : revealed.filter((c) => c.miner === r.winner);
    for (const c of ordered) {
      const content = this.db.tables.opoicontent.get(contentKey(requestId, c.reveal!.responseHash));
      if (content) return { responseHash: c.reveal!.responseHash, miner: c.miner, content, final: r.winner !== null };
    }
    return undefined;
  }
}
