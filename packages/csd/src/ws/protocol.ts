/**
 * The WebSocket client protocol (docs/notifications.md): what a client may send, how it is
 * read, and the answers it gets. Pure functions, no sockets: the server hands every text
 * message here and sends back what comes out.
 */
import {
  AddressError,
  DecodeError,
  decodeAddress,
  destinationToScript,
  encodeDestination,
  requestIdFromUuid,
  toHex,
  type AddressPrefixes,
} from '@cs/consensus';
import { uuidOf } from '../opoi/json.ts';
import { isJsonObject, parseJson, type JsonObject, type JsonValue } from '../format/json-value.ts';

export const CHANNELS = ['new-blocks', 'address-tx', 'mempool', 'opoi'] as const;
export type Channel = (typeof CHANNELS)[number];

export const ACTIONS = ['subscribe', 'unsubscribe'] as const;
export type Action = (typeof ACTIONS)[number];

/**
 * An address a client watches: its canonical text (what pushes carry, whatever case the client
 * typed) and the output script it stands for, as hex, which is what transactions are matched on.
 */
export interface WatchedAddress {
  readonly address: string;
  readonly script: string;
}

export type Request =
  | { readonly action: Action; readonly channel: 'new-blocks' | 'mempool' }
  | { readonly action: Action; readonly channel: 'address-tx'; readonly address: WatchedAddress }
  /** `requestId` (32 hex digits) narrows the channel to one OPoI request; null: every step, stakes included. */
  | { readonly action: Action; readonly channel: 'opoi'; readonly requestId: string | null };

/** Machine-readable error codes; clients should branch on these, not on the message text. */
export type ErrorCode =
  | 'parse-error'
  | 'invalid-request'
  | 'unknown-action'
  | 'unknown-channel'
  | 'invalid-address'
  | 'invalid-request-id'
  | 'not-subscribed'
  | 'too-many-subscriptions'
  | 'rate-limited';

/** A message the server refuses; the connection stays open unless the code says otherwise (rate-limited). */
export class ProtocolError extends Error {
  override readonly name = 'ProtocolError';

  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** A text message as JSON; throws ProtocolError 'parse-error' (nesting deeper than MAX_JSON_DEPTH included). */
export function parseMessage(text: string): JsonValue {
  const value = parseJson(text);
  if (value === undefined) throw new ProtocolError('parse-error', 'Parse error: the message is not valid JSON');
  return value;
}

/** A parsed message as a request; throws ProtocolError for anything but a well-formed one. */
export function readRequest(message: JsonValue, net: AddressPrefixes): Request {
  if (!isJsonObject(message)) throw new ProtocolError('invalid-request', 'The message must be a JSON object');
  const { action, channel, address, request_id: requestId } = message;
  if (!isOneOf(ACTIONS, action)) {
    throw new ProtocolError('unknown-action', `Unknown action ${describe(action)}: expected "subscribe" or "unsubscribe"`);
  }
  if (!isOneOf(CHANNELS, channel)) {
    throw new ProtocolError('unknown-channel', `Unknown channel ${describe(channel)}: expected "new-blocks", "address-tx", "mempool" or "opoi"`);
  }
  if (address !== undefined && channel !== 'address-tx') throw new ProtocolError('invalid-request', `The ${channel} channel takes no address`);
  if (requestId !== undefined && channel !== 'opoi') throw new ProtocolError('invalid-request', `The ${channel} channel takes no request_id`);
  if (channel === 'opoi') return { action, channel, requestId: requestId === undefined ? null : watchedRequest(requestId) };
  if (channel !== 'address-tx') return { action, channel };
  if (typeof address !== 'string') throw new ProtocolError('invalid-address', 'The address-tx channel needs an "address" string');
  return { action, channel, address: watchedAddress(address, net) };
}

/** A request_id member: a UUID, kept as the 32 hex digits OPoI notices carry internally. */
function watchedRequest(value: JsonValue): string {
  if (typeof value !== 'string') throw new ProtocolError('invalid-request-id', 'request_id must be a UUID string');
  try {
    return toHex(requestIdFromUuid(value));
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    throw new ProtocolError('invalid-request-id', `Invalid request_id ${JSON.stringify(value)}: ${e.message}`);
  }
}

function watchedAddress(text: string, net: AddressPrefixes): WatchedAddress {
  try {
    const destination = decodeAddress(text, net);
    return { address: encodeDestination(destination, net), script: toHex(destinationToScript(destination)) };
  } catch (e) {
    if (!(e instanceof AddressError)) throw e;
    throw new ProtocolError('invalid-address', `Invalid address: ${e.message}`);
  }
}

function isOneOf<T extends string>(values: readonly T[], value: JsonValue | undefined): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

function describe(value: JsonValue | undefined): string {
  return value === undefined ? '(missing)' : JSON.stringify(value);
}

/** The answer to an accepted request: `subscribed` or `unsubscribed`, naming what. */
export function acceptedAnswer(request: Request): JsonObject {
  return {
    type: request.action === 'subscribe' ? 'subscribed' : 'unsubscribed',
    channel: request.channel,
    ...(request.channel === 'address-tx' ? { address: request.address.address } : {}),
    ...(request.channel === 'opoi' && request.requestId !== null ? { request_id: uuidOf(request.requestId) } : {}),
  };
}

/** The answer to a refused message; `request` echoes it when it was JSON, so the client can tell which one failed. */
export function errorAnswer(error: ProtocolError, request?: JsonValue): JsonObject {
  return { type: 'error', code: error.code, error: error.message, ...(request !== undefined ? { request } : {}) };
}
