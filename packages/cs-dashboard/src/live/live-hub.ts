/**
 * Live updates: the dashboard holds one WebSocket to each node (`new-blocks`, `mempool` and
 * `opoi` channels, docs/notifications.md) and relays every push to the browsers connected to its
 * own `/live` WebSocket, tagged with the node's index. A node that goes away is retried every few
 * seconds; browsers are told when a node's feed goes up or down.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocket, WebSocketServer } from 'ws';
import type { NodeEndpoint } from '../config/config.ts';

const CHANNELS = ['new-blocks', 'mempool', 'opoi'];
const RETRY_MS = 2_000;
/** A browser that reads slower than this much queued output is dropped rather than buffered without end. */
const MAX_BUFFERED = 4 * 1024 * 1024;

/** The host of an Origin header; null for "null" (sandboxed pages, file://) and anything unparsable. */
function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

export class LiveHub {
  private readonly browsers = new WebSocketServer({ noServer: true });
  private readonly feeds: (WebSocket | null)[];
  private readonly up: boolean[];
  private readonly timers = new Set<NodeJS.Timeout>();
  private closed = false;
  /** Node pushes relayed since start, for /metrics. */
  relayed = 0;

  constructor(
    private readonly nodes: readonly NodeEndpoint[],
    private readonly log: Logger,
    /** Called for each push, before browsers get it (the pool history sampler listens). */
    private readonly onPush: (node: number, msg: Record<string, unknown>) => void = () => {},
  ) {
    this.feeds = nodes.map(() => null);
    this.up = nodes.map(() => false);
    this.browsers.on('connection', (ws) => {
      ws.send(JSON.stringify({ type: 'feeds', up: this.up }));
    });
  }

  start(): void {
    this.nodes.forEach((n, i) => {
      if (n.wsUrl) this.connect(i, n.wsUrl);
    });
  }

  browserCount(): number {
    return this.browsers.clients.size;
  }

  feedsUp(): readonly boolean[] {
    return this.up;
  }

  /** Takes an HTTP upgrade for `/live`; only same-origin pages (the dashboard's own) may connect. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const origin = req.headers.origin;
    if (origin !== undefined && hostOf(origin) !== req.headers.host) {
      socket.end('HTTP/1.1 403 Forbidden\r\nconnection: close\r\n\r\n');
      return;
    }
    this.browsers.handleUpgrade(req, socket, head, (ws) => this.browsers.emit('connection', ws, req));
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    for (const f of this.feeds) f?.terminate();
    for (const b of this.browsers.clients) b.terminate();
    await new Promise((r) => this.browsers.close(r));
  }

  private connect(i: number, url: string): void {
    const ws = new WebSocket(url, { handshakeTimeout: 10_000 });
    this.feeds[i] = ws;
    ws.on('open', () => {
      for (const channel of CHANNELS) ws.send(JSON.stringify({ action: 'subscribe', channel }));
      this.setUp(i, true);
      this.log.info({ node: this.nodes[i].name }, 'following the node WebSocket');
    });
    ws.on('message', (data) => {
      let msg: Record<string, unknown>;
      try {
        msg = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (msg.type === 'subscribed') return;
      this.relayed++;
      this.onPush(i, msg);
      this.broadcast({ ...msg, node: i });
    });
    ws.on('error', (e) => this.log.debug({ node: this.nodes[i].name, err: e.message }, 'node WebSocket error'));
    ws.on('close', () => {
      if (this.up[i]) this.log.warn({ node: this.nodes[i].name }, 'node WebSocket closed; retrying');
      this.setUp(i, false);
      this.feeds[i] = null;
      if (this.closed) return;
      const t = setTimeout(() => {
        this.timers.delete(t);
        this.connect(i, url);
      }, RETRY_MS);
      this.timers.add(t);
    });
  }

  private setUp(i: number, up: boolean): void {
    if (this.up[i] === up) return;
    this.up[i] = up;
    this.broadcast({ type: 'feeds', up: this.up });
  }

  private broadcast(msg: unknown): void {
    const text = JSON.stringify(msg);
    for (const b of this.browsers.clients) {
      if (b.readyState !== WebSocket.OPEN) continue;
      if (b.bufferedAmount > MAX_BUFFERED) b.terminate();
      else b.send(text);
    }
  }
}
