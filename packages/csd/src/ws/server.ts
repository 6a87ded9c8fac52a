/**
 * The WebSocket server on -wsport: accepts connections (who may connect, how many), reads client
 * messages (rate limit, protocol, subscriptions), keeps connections alive, and delivers pushes
 * without letting a slow reader make the node buffer without bound. What to push, and when, is
 * ws/notifier.ts's job.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { AddressPrefixes } from '@cs/consensus';
import type { AllowList } from '../rpc/allowip.ts';
import type { JsonObject, JsonValue } from '../format/json-value.ts';
import { RateLimiter } from '@cs/runtime/rate-limit';
import { ProtocolError, acceptedAnswer, errorAnswer, parseMessage, readRequest } from './protocol.ts';
import { SubscriptionTable } from './subscriptions.ts';
import { textFrame } from './frame.ts';

export interface WsLimits {
  /** Open connections at once; further handshakes are refused with HTTP 503. */
  readonly maxConnections: number;
  /** Addresses one connection may watch on address-tx. */
  readonly maxAddressesPerConnection: number;
  /** OPoI requests one connection may watch on opoi (with request_id). */
  readonly maxRequestsPerConnection: number;
  /** Bytes queued for one connection beyond which it is cut off as a slow consumer. */
  readonly maxBufferedBytes: number;
  /** Largest client message; a longer one closes the connection (1009). */
  readonly maxMessageBytes: number;
  /** Keepalive: every interval each connection is pinged, and one that missed the last ping is dropped. */
  readonly pingIntervalMs: number;
}

export const DEFAULT_WS_LIMITS: WsLimits = {
  maxConnections: 1000,
  maxAddressesPerConnection: 100,
  maxRequestsPerConnection: 100,
  // The largest burst one event causes must fit: a block of minimal transactions (4,000,000
  // weight / ~240 weight each ≈ 16,000) makes as many mempool removal pushes of ~260 bytes,
  // about 4 MB queued at once for a healthy mempool subscriber. Twice that is the bound.
  maxBufferedBytes: 8 * 1024 * 1024,
  // A request is under 200 bytes (the longest address is 90 characters, a request_id 36); the rest is slack.
  maxMessageBytes: 4096,
  pingIntervalMs: 30_000,
};

/**
 * A corked connection is flushed once this much is queued: one writev carries up to ~250 mempool
 * pushes of ~260 bytes (250 times fewer system calls), and a burst still reaches the kernel's
 * send buffer (16 KB, autotuned up to 4 MB on Linux) slice by slice instead of piling up in the process first.
 */
const CORK_FLUSH_BYTES = 64 * 1024;

/** WebSocket close codes the server uses (RFC 6455 section 7.4.1). */
export const CloseCode = {
  GOING_AWAY: 1001,
  POLICY_VIOLATION: 1008,
  TRY_AGAIN_LATER: 1013,
} as const;

export interface WsServerOptions {
  /** Address encodings of the network, to read address-tx subscriptions. */
  readonly net: AddressPrefixes;
  /** Who may connect: the RPC allow-list (loopback plus rpcallowip). */
  readonly allowList: AllowList;
  /** rpccorsdomain: the one origin a browser may connect from (non-browser clients send no Origin). */
  readonly corsDomain?: string;
  /** wsratelimit: client messages per minute per connection; 0 = unlimited. */
  readonly rateLimit: number;
  readonly logger: Logger;
  readonly limits?: Partial<WsLimits>;
}

/** One open connection. */
export class WsClient {
  /** Answered the last keepalive ping (or has not been pinged yet). */
  alive = true;
  /** Cut off (rate limit, slow consumer): nothing more is sent or read. */
  cut = false;
  /** The server's write round (see WsServer.#deliver) in which this connection was last written to. */
  wroteIn = -1;
  /** Corked for the rest of the current write round. */
  corked = false;
  /** Bytes written since the connection was last corked or flushed. */
  corkedBytes = 0;

  constructor(
    readonly socket: WebSocket,
    /** The upgraded connection under `socket`: framed messages are written to it directly. */
    readonly wire: Duplex,
    readonly peer: string,
    /** Unique per server, the rate limiter's key. */
    readonly id: string,
  ) {}
}

export class WsServer {
  readonly subscriptions: SubscriptionTable<WsClient>;
  readonly #clients = new Set<WsClient>();
  readonly #servers: Server[] = [];
  readonly #wss: WebSocketServer;
  readonly #limits: WsLimits;
  readonly #limiter: RateLimiter;
  readonly #options: WsServerOptions;
  readonly #keepalive: NodeJS.Timeout;
  #nextId = 0;
  #closing = false;
  /** Write rounds: one runs from a first delivery to the next tick, when what it corked is flushed. */
  #round = 0;
  #flushQueued = false;
  readonly #corked: WsClient[] = [];

  constructor(options: WsServerOptions) {
    this.#options = options;
    this.#limits = { ...DEFAULT_WS_LIMITS, ...options.limits };
    // Room for the windows of connections that closed within the last minute as well.
    this.#limiter = new RateLimiter({ limit: options.rateLimit, maxClients: 2 * this.#limits.maxConnections });
    // Pushes are small and many: compressing each for every client would cost more than it saves.
    this.#wss = new WebSocketServer({ noServer: true, clientTracking: false, perMessageDeflate: false, maxPayload: this.#limits.maxMessageBytes });
    this.subscriptions = new SubscriptionTable(this.#limits.maxAddressesPerConnection, this.#limits.maxRequestsPerConnection);
    this.#keepalive = setInterval(() => this.#pingAll(), this.#limits.pingIntervalMs).unref();
  }

  /** Starts listening on one address; call again for more (as the RPC server, 127.0.0.1 and ::1 by default). */
  async listen(port: number, host: string): Promise<AddressInfo> {
    if (this.#closing) throw new Error('WebSocket server is closed');
    const server = createServer((_req, res) => {
      res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket', connection: 'close' });
      res.end('This port speaks WebSocket only\n');
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.#onUpgrade(req, socket, head));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    server.on('error', (err) => this.#options.logger.error({ err }, 'WebSocket server error'));
    this.#servers.push(server);
    const address = server.address() as AddressInfo;
    this.#options.logger.info({ address: address.address, port: address.port }, 'WebSocket server listening');
    return address;
  }

  get connectionCount(): number {
    return this.#clients.size;
  }

  /** Sends one push to each of `clients`, serialized and framed once for all of them. */
  push(clients: Iterable<WsClient>, payload: JsonObject): void {
    let frame: Buffer | undefined;
    for (const client of clients) this.#deliver(client, (frame ??= jsonFrame(payload)));
  }

  /** Refuses new connections, says goodbye (1001) to the open ones and cuts whatever lingers after `graceMs`. */
  async close(graceMs = 1000): Promise<void> {
    this.#closing = true;
    clearInterval(this.#keepalive);
    const servers = this.#servers.splice(0);
    // A server's close completes when its last socket, upgraded ones included, has gone.
    const closed = Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    for (const client of this.#clients) client.socket.close(CloseCode.GOING_AWAY, 'server shutting down');
    const force = setTimeout(() => {
      for (const client of this.#clients) client.socket.terminate();
    }, graceMs);
    await closed;
    clearTimeout(force);
  }

  #onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const onError = () => socket.destroy();
    socket.on('error', onError);
    const peer = req.socket.remoteAddress ?? '';
    const origin = req.headers.origin;
    if (!this.#options.allowList.allows(peer)) return this.#refuse(socket, 403, 'Forbidden', peer, 'client address not in rpcallowip');
    if (origin !== undefined && origin !== this.#options.corsDomain)
      return this.#refuse(socket, 403, 'Forbidden', peer, `origin ${origin} is not rpccorsdomain`);
    if (this.#closing) return this.#refuse(socket, 503, 'Service Unavailable', peer, 'shutting down');
    if (this.#clients.size >= this.#limits.maxConnections) return this.#refuse(socket, 503, 'Service Unavailable', peer, 'too many connections');
    this.#wss.handleUpgrade(req, socket, head, (ws) => {
      socket.off('error', onError);
      this.#onConnection(ws, socket, peer);
    });
  }

  #refuse(socket: Duplex, status: number, text: string, peer: string, why: string): void {
    this.#options.logger.debug({ peer, why }, 'WebSocket handshake refused');
    socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  }

  #onConnection(socket: WebSocket, wire: Duplex, peer: string): void {
    const client = new WsClient(socket, wire, peer, String(this.#nextId++));
    this.#clients.add(client);
    socket.on('message', (data, isBinary) => this.#onMessage(client, data, isBinary));
    socket.on('pong', () => (client.alive = true));
    socket.on('close', () => {
      this.#clients.delete(client);
      this.subscriptions.remove(client);
    });
    // Oversized or malformed frames end here (ws then closes with 1009 or 1002).
    socket.on('error', (err) => this.#options.logger.debug({ err, peer }, 'WebSocket connection error'));
  }

  #onMessage(client: WsClient, data: RawData, isBinary: boolean): void {
    if (client.cut) return;
    if (!this.#limiter.tryTake(client.id)) {
      this.#deliver(
        client,
        jsonFrame(errorAnswer(new ProtocolError('rate-limited', `Rate limit exceeded: at most ${this.#options.rateLimit} messages per minute`))),
      );
      this.#cut(client, CloseCode.POLICY_VIOLATION, 'rate limit exceeded');
      return;
    }
    let message: JsonValue | undefined;
    let reply: JsonObject;
    try {
      if (isBinary) throw new ProtocolError('invalid-request', 'Binary messages are not supported: send JSON text');
      message = parseMessage(rawText(data));
      const request = readRequest(message, this.#options.net);
      this.subscriptions.apply(client, request);
      reply = acceptedAnswer(request);
    } catch (e) {
      if (!(e instanceof ProtocolError)) throw e;
      reply = errorAnswer(e, message);
    }
    this.#deliver(client, jsonFrame(reply));
  }

  /**
   * Queues a framed message for a client unless that would take its backlog past the bound: then
   * it is cut off instead. Without compression the library writes its own frames (pings, close)
   * to the connection at once too, so writing ours directly keeps every frame whole and in order.
   *
   * A connection's first frame in a write round leaves at once, as one push to many clients
   * should. A second frame in the same round corks the connection until the next tick, so that a
   * burst (a block's mempool removals: one push per transaction) leaves as one writev instead of
   * one system call per frame. Corking keeps the library's frames in the same queue and order, and
   * the corked bytes count in writableLength, so the bound still holds.
   */
  #deliver(client: WsClient, frame: Buffer): void {
    if (client.cut || client.socket.readyState !== client.socket.OPEN) return;
    const buffered = client.wire.writableLength;
    if (buffered + frame.length > this.#limits.maxBufferedBytes) {
      this.#options.logger.info({ peer: client.peer, buffered }, 'WebSocket client cut off: not reading fast enough');
      this.#cut(client, CloseCode.TRY_AGAIN_LATER, 'slow consumer');
      return;
    }
    if (!this.#flushQueued) {
      this.#flushQueued = true;
      process.nextTick(this.#flush);
    }
    if (client.wroteIn === this.#round && !client.corked) {
      client.corked = true;
      client.corkedBytes = 0;
      client.wire.cork();
      this.#corked.push(client);
    }
    client.wroteIn = this.#round;
    client.wire.write(frame);
    if (!client.corked || (client.corkedBytes += frame.length) < CORK_FLUSH_BYTES) return;
    // A long burst goes out in slices, so that the kernel takes its share as it did before.
    client.corkedBytes = 0;
    client.wire.uncork();
    client.wire.cork();
  }

  /** Ends a write round: what it corked goes out, each connection's frames in one write. */
  readonly #flush = (): void => {
    this.#flushQueued = false;
    this.#round++;
    for (const client of this.#corked) {
      client.corked = false;
      client.wire.uncork();
    }
    this.#corked.length = 0;
  };

  /**
   * Stops serving a client: no more pushes or reads, then a close frame with the reason. A peer
   * that does not complete the close handshake is dropped at the next keepalive round.
   */
  #cut(client: WsClient, code: number, reason: string): void {
    client.cut = true;
    client.alive = false;
    this.subscriptions.remove(client);
    client.socket.close(code, reason);
  }

  #pingAll(): void {
    for (const client of this.#clients) {
      if (!client.alive) {
        client.socket.terminate();
        continue;
      }
      client.alive = false;
      client.socket.ping();
    }
  }
}

function jsonFrame(message: JsonObject): Buffer {
  return textFrame(Buffer.from(JSON.stringify(message)));
}

/** A text frame's bytes as a string (ws hands them over as one Buffer unless told otherwise). */
function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return (Buffer.isBuffer(data) ? data : Buffer.from(data)).toString('utf8');
}
