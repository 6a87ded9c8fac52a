/**
 * Published OPoI content between the network and the node's content store (opoi/content.ts).
 * The network relays only what its sink accepted, so a node never passes on what it could not
 * check; content published on this node (submitopoicontent, or accepted from a peer) goes out
 * to every peer that has not seen it.
 */
import { hashToHex, sha256d, toHex } from '@cs/consensus';
import { ContentError, type OpoiContentStore, type PublishedContent } from '../opoi/content.ts';
import type { PeerState, Peers } from './peer-state.ts';
import { RecentSet } from './recent-set.ts';

/** Seen content remembered, so that what comes back from another peer is not relayed again. */
const SEEN_CONTENT_MAX = 50_000;

/**
 * Where published OPoI content goes when it arrives from a peer: `accept` checks the content
 * against the response hash revealed for `requestId` (16 bytes) and keeps it, answering false
 * when it does not match (or the request is unknown).
 */
export interface OpoiContentSink {
  accept(requestId: Uint8Array, content: Uint8Array): boolean;
}

/** The content store as the network's sink; refusals are the peer's content being wrong, not errors of this node. */
export function contentStoreSink(store: OpoiContentStore): OpoiContentSink {
  return {
    accept(requestId, content) {
      try {
        store.publish(toHex(requestId), content);
        return true;
      } catch (e) {
        if (e instanceof ContentError) return false;
        throw e;
      }
    },
  };
}

/** Where stored content is announced: the Network, named by the one call relaying needs, since the network imports the sink type from here. */
export interface ContentPublisher {
  publishOpoiContent(requestId: Uint8Array, content: Uint8Array): void;
}

/** Relays every newly stored content to the peers, for as long as the node runs. */
export function relayPublishedContent(store: OpoiContentStore, network: ContentPublisher): void {
  store.events.on('published', (p: PublishedContent) => network.publishOpoiContent(Buffer.from(p.requestId, 'hex'), p.content));
}

/** Content between peers: each content once, and from a peer only what the sink accepted. */
export class OpoiContentRelay {
  private readonly seen = new RecentSet(SEEN_CONTENT_MAX);

  constructor(
    private readonly peers: Peers,
    /** Without one, content from peers is ignored. */
    private readonly sink: OpoiContentSink | undefined,
  ) {}

  /** Sends content to every peer that has not seen it, but `except` (the one it came from). */
  publish(requestId: Uint8Array, content: Uint8Array, except: number | null): void {
    const key = contentKey(requestId, content);
    this.seen.add(key);
    for (const s of this.peers.values()) {
      if (s.peer.id === except || !s.peer.handshakeDone || s.known.has(key)) continue;
      s.known.add(key);
      s.peer.send({ command: 'opoicontent', requestId, content });
    }
  }

  receive(state: PeerState, requestId: Uint8Array, content: Uint8Array): void {
    const key = contentKey(requestId, content);
    state.known.add(key);
    if (!this.sink || this.seen.has(key)) return;
    if (!this.sink.accept(requestId, content)) return;
    this.publish(requestId, content, state.peer.id);
  }
}

function contentKey(requestId: Uint8Array, content: Uint8Array): string {
  return hashToHex(sha256d(Buffer.concat([requestId, content])));
}
