/**
 * Client of csd's WebSocket notifications (`-wsport`, docs/notifications.md): subscribes to
 * channels, decodes every push into a typed value (an unknown or malformed message is a
 * WsDecodeError, never a silently wrong object), and reconnects with backoff, subscribing again to
 * everything it had, since the node forgets a client's subscriptions when the connection drops.
 */
import { EventEmitter } from 'node:events';
import { WebSocket } from 'ws';

export type WsSubscription =
  | { readonly channel: 'new-blocks' }
  | { readonly channel: 'mempool' }
  | { readonly channel: 'address-tx'; readonly address: string }
  | { readonly channel: 'opoi'; readonly request_id?: string };

export interface NewBlockPush {
  readonly type: 'new-blocks';
  readonly hash: string;
  readonly height: number;
  readonly previousblockhash: string | null;
  readonly time: number;
  readonly mediantime: number;
  readonly version: number;
  readonly merkleroot: string;
  readonly bits: string;
  readonly difficulty: number;
  readonly chainwork: string;
  readonly nTx: number;
  readonly size: number;
  readonly strippedsize: number;
  readonly weight: number;
  readonly disconnected: boolean;
}

export interface MempoolPush {
  readonly type: 'mempool';
  readonly event: 'added' | 'removed';
  readonly txid: string;
  readonly wtxid: string;
  readonly fee: number;
  readonly vsize: number;
  readonly weight: number;
  readonly sequence: number;
  readonly time?: number;
  readonly reason?: 'block' | 'conflict' | 'replaced' | 'expiry' | 'sizelimit' | 'reorg';
  readonly replacedby?: string;
}

export interface AddressTxPush {
  readonly type: 'address-tx';
  readonly address: string;
  readonly txid: string;
  readonly status: 'mempool' | 'confirmed' | 'reorged' | 'removed';
  readonly confirmed: boolean;
  readonly received: number;
  readonly sent: number;
  readonly blockhash?: string;
  readonly height?: number;
  readonly reason?: string;
}

export type OpoiEventName =
  | 'request'
  | 'commit'
  | 'reveal'
  | 'resolved'
  | 'expired'
  | 'paid'
  | 'published'
  | 'stake'
  | 'renew'
  | 'unstake'
  | 'released'
  | 'manifest'
  | 'publish'
  | 'auditor'
  | 'challenge'
  | 'verdict-commit'
  | 'verdict-reveal'
  | 'audited'
  | 'forfeit';

export interface OpoiPush {
  readonly type: 'opoi';
  readonly event: OpoiEventName;
  readonly undone: boolean;
  readonly request_id: string | null;
  readonly miner: string | null;
  readonly txid: string | null;
  readonly height: number;
  readonly block_hash: string | null;
  /** `published` only. */
  readonly response_hash?: string;
  readonly bytes?: number;
  /** `manifest` only: the model id registered. */
  readonly model_id?: string;
  /** `audited` only: the audit's outcome. */
  readonly outcome?: 'valid' | 'invalid' | 'unaudited';
}

export type WsPush = NewBlockPush | MempoolPush | AddressTxPush | OpoiPush;

/** The node's confirmation of a subscribe or unsubscribe message. */
export interface WsSubscriptionReply {
  readonly type: 'subscribed' | 'unsubscribed';
  readonly channel: WsSubscription['channel'];
  readonly address?: string;
  readonly request_id?: string;
}

/** The node's answer to a subscribe or unsubscribe message. */
export type WsReply = WsSubscriptionReply | { readonly type: 'error'; readonly code: string; readonly error: string; readonly request?: unknown };

/** A message that is not one of the documented pushes or replies. */
export class WsDecodeError extends Error {
  override readonly name = 'WsDecodeError';
}

/** The node refused a subscription (`code` as docs/notifications.md lists them: unknown-channel, invalid-address, ...). */
export class WsRefusedError extends Error {
  override readonly name = 'WsRefusedError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

type FieldType = 'string' | 'number' | 'boolean' | 'string?' | 'number?' | 'string|null';

/** The fields each message type must carry, checked on decoding. */
const FIELDS: Readonly<Record<(WsPush | WsReply)['type'], Readonly<Record<string, FieldType>>>> = {
  'new-blocks': { hash: 'string', height: 'number', time: 'number', nTx: 'number', disconnected: 'boolean', previousblockhash: 'string|null' },
  mempool: { event: 'string', txid: 'string', wtxid: 'string', fee: 'number', vsize: 'number', sequence: 'number', reason: 'string?' },
  'address-tx': { address: 'string', txid: 'string', status: 'string', confirmed: 'boolean', received: 'number', sent: 'number', height: 'number?' },
  opoi: {
    event: 'string',
    undone: 'boolean',
    request_id: 'string|null',
    miner: 'string|null',
    txid: 'string|null',
    height: 'number',
    block_hash: 'string|null',
  },
  subscribed: { channel: 'string' },
  unsubscribed: { channel: 'string' },
  error: { code: 'string', error: 'string' },
};

function fieldMatches(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string|null':
      return value === null || typeof value === 'string';
    case 'string?':
      return value === undefined || typeof value === 'string';
    case 'number?':
      return value === undefined || typeof value === 'number';
    default:
      return typeof value === type;
  }
}

/** One text frame from the node, typed; throws WsDecodeError for anything the documentation does not describe. */
export function decodeWsMessage(text: string): WsPush | WsReply {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new WsDecodeError(`not JSON: ${text.slice(0, 80)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new WsDecodeError('not a JSON object');
  const message = value as Record<string, unknown>;
  const type = message.type;
  if (typeof type !== 'string' || !Object.hasOwn(FIELDS, type)) throw new WsDecodeError(`unknown message type ${JSON.stringify(type)}`);
  for (const [field, fieldType] of Object.entries(FIELDS[type as keyof typeof FIELDS])) {
    if (!fieldMatches(message[field], fieldType)) throw new WsDecodeError(`${type}: ${field} is not ${fieldType}`);
  }
  return message as unknown as WsPush | WsReply;
}

export interface NodeSocketOptions {
  /** ws://host:wsport/ */
  readonly url: string;
  readonly subscriptions: readonly WsSubscription[];
  /** First reconnection delay, doubled up to maxRetryMs (defaults 1 s and 30 s). */
  readonly retryMs?: number;
  readonly maxRetryMs?: number;
}

interface NodeSocketEvents {
  /** Connected and the subscriptions sent. */
  open: [];
  push: [WsPush];
  /** The node confirmed a subscribe or unsubscribe. */
  reply: [WsSubscriptionReply];
  /** The node refused a subscription. */
  refused: [WsRefusedError];
  /** A message that could not be decoded, or a connection error (the socket reconnects by itself). */
  problem: [Error];
  close: [];
}

export class NodeSocket extends EventEmitter<NodeSocketEvents> {
  private ws: WebSocket | null = null;
  private retryMs: number;
  private timer: NodeJS.Timeout | null = null;
  private stopped = false;
  private readonly subscriptions = new Map<string, WsSubscription>();
  connected = false;

  constructor(private readonly opts: NodeSocketOptions) {
    super();
    this.retryMs = opts.retryMs ?? 1000;
    for (const s of opts.subscriptions) this.subscriptions.set(JSON.stringify(s), s);
  }

  start(): void {
    if (this.stopped) return;
    const ws = new WebSocket(this.opts.url);
    this.ws = ws;
    ws.on('open', () => {
      this.connected = true;
      this.retryMs = this.opts.retryMs ?? 1000;
      for (const s of this.subscriptions.values()) ws.send(JSON.stringify({ action: 'subscribe', ...s }));
      this.emit('open');
    });
    ws.on('message', (data) => this.receive(data.toString()));
    ws.on('error', (e) => this.emit('problem', e));
    ws.on('close', () => {
      const was = this.connected;
      this.connected = false;
      this.ws = null;
      if (was) this.emit('close');
      if (this.stopped) return;
      this.timer = setTimeout(() => this.start(), this.retryMs);
      this.retryMs = Math.min(this.retryMs * 2, this.opts.maxRetryMs ?? 30_000);
    });
  }

  /** Adds a subscription, now if connected and again after every reconnection. */
  subscribe(s: WsSubscription): void {
    this.subscriptions.set(JSON.stringify(s), s);
    if (this.connected) this.ws?.send(JSON.stringify({ action: 'subscribe', ...s }));
  }

  unsubscribe(s: WsSubscription): void {
    if (!this.subscriptions.delete(JSON.stringify(s))) return;
    if (this.connected) this.ws?.send(JSON.stringify({ action: 'unsubscribe', ...s }));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.terminate();
  }

  private receive(text: string): void {
    let message: WsPush | WsReply;
    try {
      message = decodeWsMessage(text);
    } catch (e) {
      this.emit('problem', e as Error);
      return;
    }
    if (message.type === 'error') this.emit('refused', new WsRefusedError(message.code, message.error));
    else if (isReply(message)) this.emit('reply', message);
    else this.emit('push', message);
  }
}

function isReply(message: WsPush | WsSubscriptionReply): message is WsSubscriptionReply {
  return message.type === 'subscribed' || message.type === 'unsubscribed';
}
