/**
 * The numbers of the cs peer-to-peer protocol, each with where it comes from. docs/protocol.md
 * ("Peer-to-peer protocol") explains them for operators and implementers.
 */
import { HEADER_PREFIX_SIZE, MAX_BLOCK_SERIALIZED_SIZE, MAX_SOLUTION_SIZE } from '@cs/consensus';

/** Our protocol version: Core's 70016 (wtxidrelay, BIP339) plus nothing else; peers below MIN_PEER_PROTO_VERSION are refused. */
export const PROTOCOL_VERSION = 70016;
export const MIN_PEER_PROTO_VERSION = 70016;

/** Service bits (Core's): a full node that serves every block, with segwit. */
export const NODE_NETWORK = 1n;
export const NODE_WITNESS = 1n << 3n;
export const LOCAL_SERVICES = NODE_NETWORK | NODE_WITNESS;

/**
 * The largest payload: a block may be MAX_BLOCK_SERIALIZED_SIZE bytes, so the limit is that plus
 * room for nothing else (Core's MAX_PROTOCOL_MESSAGE_LENGTH is the same 4,000,000).
 */
export const MAX_MESSAGE_SIZE = MAX_BLOCK_SERIALIZED_SIZE;

/**
 * Headers per `headers` message. Core's 2000 fits: even with the largest Equihash solution we
 * accept ((200,9), 1344 bytes) an entry is 140 + 3 + 1344 + 1 = 1488 bytes, and 2000 of them are
 * 2,976,000 bytes, under MAX_MESSAGE_SIZE. (Zcash needed 160 only because its limit is 2 MiB.)
 * A reply with fewer than this many tells the requester the sender's tip was reached.
 */
export const MAX_HEADERS_RESULTS = 2000;
/** One headers entry at most: header, solution with its 3-byte length, the empty tx count. */
export const MAX_HEADERS_ENTRY_SIZE = HEADER_PREFIX_SIZE + 3 + MAX_SOLUTION_SIZE + 1;

/** Core's limits on inv/getdata/notfound entries, addr entries, locator hashes and the user agent. */
export const MAX_INV_SIZE = 50_000;
export const MAX_ADDR_TO_SEND = 1000;
export const MAX_LOCATOR_SIZE = 101;
export const MAX_USER_AGENT_LENGTH = 256;

/** Inventory types (Core's; MSG_WITNESS_FLAG marks the segwit serialization). */
export const MSG_TX = 1;
export const MSG_BLOCK = 2;
export const MSG_WTX = 5;
export const MSG_WITNESS_FLAG = 1 << 30;
export const MSG_WITNESS_TX = MSG_TX | MSG_WITNESS_FLAG;
export const MSG_WITNESS_BLOCK = MSG_BLOCK | MSG_WITNESS_FLAG;

/** The user agent we send (BIP14). */
export const USER_AGENT = '/csd:0.1.0/';
