import type { BlockIndexEntry } from '../chain/block-index.ts';
import type { InvItem } from './messages.ts';
import type { Peer } from './peer.ts';
import { RecentSet } from './recent-set.ts';

/** Known inventory remembered per peer. */
const KNOWN_INVENTORY_MAX = 50_000;
/** Core's addr token bucket: 0.1 addresses per second, at most 1000 saved up. */
export const ADDR_RATE_PER_SECOND = 0.1;
export const ADDR_BUCKET_MAX = 1000;

/** What the network keeps about one connected peer beyond the connection itself. */
export class PeerState {
  /** The most-work header the peer has shown us. */
  bestKnown: BlockIndexEntry | null = null;
  /** When a getheaders went out that is not answered yet (0: none). */
  headersRequestedAt = 0;
  /** Transactions and blocks the peer knows of (announced either way), so they are not announced to it. */
  readonly known = new RecentSet(KNOWN_INVENTORY_MAX);
  /** Transactions waiting for the next trickle to this peer. */
  readonly txQueue = new Set<string>();
  nextTrickle = 0;
  txRequests = 0;
  /**
   * Items of the peer's getdata not served yet: serving pauses while the send buffer is over
   * -maxsendbuffer and goes on when it drains (Core's vRecvGetData).
   */
  readonly getData: InvItem[] = [];
  /** When the peer became the one holding up the download window. */
  stallingSince: number | null = null;
  getaddrAnswered = false;
  addrTokens = ADDR_BUCKET_MAX;
  addrTokensAt = Date.now();
  lastBlockAt = 0;
  lastTxAt = 0;
  /** The fee filter last sent to the peer, and when. */
  feeFilterSent = -1n;
  feeFilterAt = 0;
  constructor(
    readonly peer: Peer,
    /** The -addnode/-connect/addnode entry this connection serves, if any. */
    readonly target: string | null,
  ) {}
}

/** The connected peers by id, as the network's parts read them; only the network adds and removes. */
export type Peers = ReadonlyMap<number, PeerState>;

/** A protocol violation by `peer`: the network disconnects it, and may discourage its address. */
export type Misbehaving = (peer: Peer, reason: string) => void;
